import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyCrypto
import AmplifySQLite
import Foundation

/// A user as the pool stores it.
struct PoolUser: Sendable {
    let sub: String
    let username: String
    let confirmed: Bool
    let tokenVersion: Int64
}

/// Tokens the pool issued.
struct IssuedTokens: Sendable {
    let idToken: String
    let accessToken: String
    let refreshToken: String
    let accessExpiresAt: Date
    let refreshExpiresAt: Date
}

/// The user pool: users, attributes, codes, refresh tokens and the outbox in SQLite; passwords as
/// scrypt hashes with a per-user salt; codes and refresh tokens stored only as HMACs under the
/// pool's secret; tokens are ES256 JWTs signed with a key kept in a 0600 file.
actor LocalUserPool {
    let configuration: LocalAuthConfiguration
    let database: SQLiteDatabase
    private let signingKey: ES256Key
    let keyId: String
    private let poolSecret: [UInt8]
    let delivery: (any CodeDelivery)?
    /// Bumped after every revocation commits (sessions, users, deletions).
    let revocations: RevocationCounter

    init(configuration: LocalAuthConfiguration, delivery: (any CodeDelivery)?, revocations: RevocationCounter = RevocationCounter()) async throws {
        self.configuration = configuration
        self.delivery = delivery
        self.revocations = revocations
        try PoolFiles.ensureFolder(configuration.directory)
        database = try SQLiteDatabase(path: (configuration.directory as NSString).appendingPathComponent("users.sqlite"))
        signingKey = try Self.loadOrCreateKey(at: (configuration.directory as NSString).appendingPathComponent("signing-key.pem"))
        poolSecret = try Self.loadOrCreateSecret(at: (configuration.directory as NSString).appendingPathComponent("pool-secret"))
        let (x, y) = try signingKey.publicCoordinates()
        keyId = String(Base64URL.encode(Digest.sha256(x + y)).prefix(16))
        try await PoolSchema.migrate(database)
    }

    // MARK: Keys

    /// The pool's signing key, made on first use (the first of concurrent first uses wins).
    private static func loadOrCreateKey(at path: String) throws -> ES256Key {
        let pem = try PoolFiles.readOrCreate(at: path) { Array(try ES256Key.generate().privateKeyPEM().utf8) }
        do {
            return try ES256Key(privateKeyPEM: String(decoding: pem, as: UTF8.self))
        } catch {
            throw AuthError.configuration(
                "\(path) is not a valid ES256 private key: \(error).", "Restore the file, or remove the pool's folder to start a new pool.", error)
        }
    }

    /// The pool's 32-byte HMAC secret, made on first use.
    private static func loadOrCreateSecret(at path: String) throws -> [UInt8] {
        let secret = try PoolFiles.readOrCreate(at: path) { try Digest.randomBytes(32) }
        guard secret.count == 32 else {
            throw AuthError.configuration(
                "\(path) holds \(secret.count) bytes, not the pool's 32-byte secret.",
                "Restore the file, or remove the pool's folder to start a new pool.")
        }
        return secret
    }

    /// The public signing key as a JWKS document, for services that verify the tokens.
    func jwks() throws -> JSONValue {
        let (x, y) = try signingKey.publicCoordinates()
        return [
            "keys": [
                [
                    "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": .string(keyId),
                    "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y)),
                ]
            ]
        ]
    }

    func mac(_ text: String) -> [UInt8] {
        Digest.hmacSHA256(key: poolSecret, Array(text.utf8))
    }

    // MARK: Users

    /// The user named `typed` (compared by ``UsernameProfile/key(_:)``; of two users of an older
    /// pool whose names compare equal, the one named exactly so).
    func user(named typed: String) async throws -> PoolUser? {
        try await userRow(named: typed, columns: "sub, username, confirmed, token_version").map(Self.poolUser)
    }

    /// The row (`columns`) of the user named `typed`.
    private func userRow(named typed: String, columns: String) async throws -> SQLiteRow? {
        try await database.run(
            "SELECT \(columns) FROM users WHERE username_key = ? ORDER BY username = ? DESC LIMIT 1",
            [.text(UsernameProfile.key(typed)), .text(UsernameProfile.display(typed))]
        ).first
    }

    func user(sub: String) async throws -> PoolUser? {
        try await database.run("SELECT sub, username, confirmed, token_version FROM users WHERE sub = ?", [.text(sub)])
            .first.map(Self.poolUser)
    }

    private static func poolUser(_ row: SQLiteRow) -> PoolUser {
        PoolUser(
            sub: row["sub"].text ?? "", username: row["username"].text ?? "", confirmed: row["confirmed"].integer == 1,
            tokenVersion: row["token_version"].integer ?? 0)
    }

    func createUser(username typed: String, password: String, attributes: [AuthUserAttribute]) async throws -> (PoolUser, AuthCodeDeliveryDetails?) {
        let username = UsernameProfile.display(typed)
        let key = UsernameProfile.key(typed)
        switch UsernameProfile.refusal(of: typed) {
        case nil: break
        case .spaces:
            throw AuthError.validation("username", "The username is empty or contains spaces.", "Choose a username without spaces.")
        case .invisible(let scalar):
            throw AuthError.validation(
                "username", "The username contains an invisible or text-direction character (U+\(String(scalar.value, radix: 16, uppercase: true))).",
                "Choose a username of visible characters.")
        case .notAllowed(let scalar):
            throw AuthError.validation(
                "username",
                "The username contains a character usernames may not have (U+\(String(scalar.value, radix: 16, uppercase: true))): only letters, digits, marks and ASCII's printable characters are allowed.",
                "Choose a username of letters, digits and ASCII punctuation (RFC 8265's UsernameCaseMapped profile).")
        }
        try checkPolicy(password)
        let salt = try Digest.randomBytes(16)
        let hash = try hashPassword(password, salt: salt)
        let sub = UUID().uuidString.lowercased()
        let confirmed = !configuration.signUpRequiresConfirmation
        do {
            let taken = try await database.transaction { connection -> Bool in
                // Names that compare equal are one user (the transaction is BEGIN IMMEDIATE:
                // two sign-ups of look-alike names take turns).
                guard try connection.run("SELECT 1 FROM users WHERE username_key = ? LIMIT 1", [.text(key)]).isEmpty else { return true }
                try connection.run(
                    "INSERT INTO users (sub, username, username_key, password_hash, password_salt, confirmed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(sub), .text(username), .text(key), .blob(hash), .blob(salt), .integer(confirmed ? 1 : 0),
                        .real(Date().timeIntervalSince1970),
                    ])
                for attribute in attributes where attribute.key != .sub {
                    try connection.run(
                        "INSERT OR REPLACE INTO attributes VALUES (?, ?, ?)", [.text(sub), .text(attribute.key.rawValue), .text(attribute.value)])
                }
                return false
            }
            if taken { throw Self.usernameTaken(username, nil) }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.usernameTaken(username, error)
        }
        let user = PoolUser(sub: sub, username: username, confirmed: confirmed, tokenVersion: 0)
        guard !confirmed else { return (user, nil) }
        return (user, try await sendCode(to: user, purpose: .signUp))
    }

    private static func usernameTaken(_ username: String, _ error: (any Error)?) -> AuthError {
        AuthError.validation(
            "username", "A user named '\(PrintableText(username))' already exists.", "Sign in instead, or choose another username.", error)
    }

    func hashPassword(_ password: String, salt: [UInt8]) throws -> [UInt8] {
        try Scrypt(n: configuration.passwordHashCost).derive(password: Array(password.utf8), salt: salt)
    }

    func checkPolicy(_ password: String) throws {
        if let missing = configuration.passwordPolicy.violation(of: password) {
            throw AuthError.validation(
                "password", "The password does not meet the policy: it needs \(missing).", "Choose a password with \(missing).")
        }
    }

    /// What the transaction that checks a password decided.
    private enum PasswordCheck: Sendable {
        case accepted, wrong
        case locked(remaining: TimeInterval)
        case changed, gone
    }

    /// Checks a password, counting failures and locking the account after too many.
    ///
    /// The scrypt hash is computed outside any transaction (it is slow); the decision is made
    /// inside one `BEGIN IMMEDIATE` transaction that re-reads the row, so parallel guesses, from
    /// this process or another, are decided one at a time: the lock is checked there (a guess
    /// that started before the lock was set is refused as locked), and a failure is counted by
    /// one atomic `UPDATE … SET failed_attempts = failed_attempts + 1` that also sets the lock
    /// when the count reaches the limit. A lock that has run out starts a new count.
    func authenticate(username typed: String, password: String) async throws -> PoolUser {
        let incorrect = AuthError.notAuthorized("Incorrect username or password.", "Check the username and password.")
        // A password changed between the read and the check was hashed with the old salt: hash
        // again with the new one (twice at most; a third change in a row is refused as wrong).
        for _ in 0..<3 {
            guard let row = try await userRow(named: typed, columns: "*"),
                let salt = row["password_salt"].blob, let sub = row["sub"].text
            else {
                // Spend the same time as for a real user, so timing does not reveal who exists,
                // and lock the name as an account would be locked.
                _ = try? hashPassword(password, salt: [UInt8](repeating: 0, count: 16))
                if configuration.preventUserExistenceErrors { try await failPhantomSignIn(typed) }
                throw incorrect
            }
            // Locked already: refuse without spending a hash.
            let lockedUntil = row["locked_until"].real ?? 0
            let now = Date().timeIntervalSince1970
            if lockedUntil > now { throw Self.lockedError(remaining: lockedUntil - now) }
            let candidate = try hashPassword(password, salt: salt)
            switch try await checkPassword(candidate, salt: salt, sub: sub) {
            case .accepted: return Self.poolUser(row)
            case .wrong: throw incorrect
            case .locked(let remaining): throw Self.lockedError(remaining: remaining)
            case .gone: throw incorrect
            case .changed: continue
            }
        }
        throw incorrect
    }

    /// The decision, in one transaction: locked, right (the count is cleared) or wrong (counted
    /// atomically, locking at the limit).
    private func checkPassword(_ candidate: [UInt8], salt: [UInt8], sub: String) async throws -> PasswordCheck {
        let limit = Int64(configuration.maxFailedAttempts)
        let lockout = configuration.lockoutDuration
        return try await database.transaction { connection -> PasswordCheck in
            let now = Date().timeIntervalSince1970
            guard
                let row = try connection.run(
                    "SELECT password_hash, password_salt, locked_until FROM users WHERE sub = ?", [.text(sub)]
                ).first,
                let stored = row["password_hash"].blob, let currentSalt = row["password_salt"].blob
            else { return .gone }
            guard currentSalt == salt else { return .changed }
            let lockedUntil = row["locked_until"].real ?? 0
            if lockedUntil > now { return .locked(remaining: lockedUntil - now) }
            if Digest.constantTimeEquals(candidate, stored) {
                try connection.run("UPDATE users SET failed_attempts = 0, locked_until = 0 WHERE sub = ?", [.text(sub)])
                return .accepted
            }
            try connection.run(Self.countFailureSQL, [.integer(limit), .real(now + lockout), .text(sub)])
            return .wrong
        }
    }

    /// One statement: the new count is the old one plus one (or 1 after a lock that ran out), and
    /// the lock is set in the same write when that count reaches the limit (`?1` the limit, `?2`
    /// the lock's end, `?3` the user).
    static let countFailureSQL = """
        UPDATE users SET
            failed_attempts = CASE WHEN locked_until > 0 THEN 1 ELSE failed_attempts + 1 END,
            locked_until = CASE WHEN (CASE WHEN locked_until > 0 THEN 1 ELSE failed_attempts + 1 END) >= ?1
                                THEN ?2 ELSE 0 END
        WHERE sub = ?3
        """

    /// Counts a wrong sign-in code (one-time or MFA) toward the account's lockout, as a wrong
    /// password is.
    func countFailedCode(sub: String) async throws {
        try await database.run(
            Self.countFailureSQL,
            [
                .integer(Int64(configuration.maxFailedAttempts)), .real(Date().timeIntervalSince1970 + configuration.lockoutDuration), .text(sub),
            ])
    }

    /// - Throws: `AuthError.notAuthorized` ("locked for … more seconds") while the account is locked.
    func requireNotLocked(sub: String) async throws {
        let lockedUntil = try await database.run("SELECT locked_until FROM users WHERE sub = ?", [.text(sub)]).first?["locked_until"].real ?? 0
        let now = Date().timeIntervalSince1970
        if lockedUntil > now { throw Self.lockedError(remaining: lockedUntil - now) }
    }

    /// "locked for 42 more seconds"; a lock too far away to count (a stored value beyond any
    /// configured lockout) is reported without a number instead of trapping on the conversion.
    static func lockedError(remaining: TimeInterval) -> AuthError {
        let seconds = remaining.rounded(.up)
        let time = seconds.isFinite && seconds <= 1e12 ? "for \(Int64(seconds)) more seconds" : "indefinitely"
        return AuthError.notAuthorized(
            "Too many failed sign-in attempts; the account is locked \(time).", "Wait until the lock ends, then sign in or reset the password.")
    }

    func setPassword(sub: String, to password: String) async throws {
        try checkPolicy(password)
        let salt = try Digest.randomBytes(16)
        try await database.run(
            "UPDATE users SET password_hash = ?, password_salt = ?, failed_attempts = 0, locked_until = 0 WHERE sub = ?",
            [.blob(try hashPassword(password, salt: salt)), .blob(salt), .text(sub)])
    }

    func confirm(sub: String) async throws {
        try await database.run("UPDATE users SET confirmed = 1 WHERE sub = ?", [.text(sub)])
    }

    func deleteUser(sub: String) async throws {
        try await database.transaction { connection in
            try connection.run("DELETE FROM users WHERE sub = ?", [.text(sub)])
            try connection.run("DELETE FROM user_groups WHERE sub = ?", [.text(sub)])
        }
        revocations.bump()
    }

    // MARK: Groups

    /// The groups `sub` is in, by name.
    func groups(sub: String) async throws -> [String] {
        try await database.run("SELECT group_name FROM user_groups WHERE sub = ? ORDER BY group_name", [.text(sub)]).compactMap {
            $0["group_name"].text
        }
    }

    /// Puts `sub` in `group` (or takes them out); tokens issued from now on say so.
    func setMembership(sub: String, group: String, member: Bool) async throws {
        if member {
            try await database.run("INSERT OR IGNORE INTO user_groups (sub, group_name) VALUES (?, ?)", [.text(sub), .text(group)])
        } else {
            try await database.run("DELETE FROM user_groups WHERE sub = ? AND group_name = ?", [.text(sub), .text(group)])
        }
    }

    // MARK: Attributes

    func attributes(sub: String) async throws -> [AuthUserAttribute] {
        let rows = try await database.run("SELECT name, value FROM attributes WHERE sub = ? ORDER BY name", [.text(sub)])
        return [AuthUserAttribute(.sub, value: sub)]
            + rows.map { AuthUserAttribute(AuthUserAttributeKey(rawValue: $0["name"].text ?? ""), value: $0["value"].text ?? "") }
    }

    func setAttributes(sub: String, _ attributes: [AuthUserAttribute]) async throws {
        if attributes.contains(where: { $0.key == .sub }) {
            throw AuthError.validation("userAttributes", "The sub attribute cannot be changed.", "Leave `sub` out of the update.")
        }
        try await database.transaction { connection in
            for attribute in attributes {
                try connection.run(
                    "INSERT OR REPLACE INTO attributes VALUES (?, ?, ?)", [.text(sub), .text(attribute.key.rawValue), .text(attribute.value)])
            }
        }
    }

    // MARK: Codes

    /// Sends a `purpose` code to the user's email, else their phone number, else their username.
    func sendCode(to user: PoolUser, purpose: CodePurpose) async throws -> AuthCodeDeliveryDetails {
        let attributes = try await attributes(sub: user.sub)
        let email = attributes.first { $0.key == .email }?.value
        let phone = attributes.first { $0.key == .phoneNumber }?.value
        try await issueCode(to: user, purpose: purpose, destination: email ?? phone ?? user.username)
        let destination: DeliveryDestination = email.map { .email(Self.mask($0)) } ?? phone.map { .sms(Self.mask($0)) } ?? .unknown(nil)
        return AuthCodeDeliveryDetails(destination: destination, attributeKey: email != nil ? .email : phone != nil ? .phoneNumber : nil)
    }

    /// Sends a `purpose` code to the user's attribute `key` (`.email` or `.phoneNumber`).
    /// - Throws: `AuthError.validation` "'name' has no key to `what`" when the user has no such attribute.
    func sendCode(to user: PoolUser, purpose: CodePurpose, via key: AuthUserAttributeKey, what: String = "send a code to") async throws
        -> AuthCodeDeliveryDetails
    {
        guard let value = try await attributes(sub: user.sub).first(where: { $0.key == key })?.value, !value.isEmpty else {
            throw AuthError.validation(
                "userAttributeKey", "'\(user.username)' has no \(key.rawValue) to \(what).", "Set the attribute first with update(userAttribute:).")
        }
        try await issueCode(to: user, purpose: purpose, destination: value)
        let destination: DeliveryDestination = key == .email ? .email(Self.mask(value)) : .sms(Self.mask(value))
        return AuthCodeDeliveryDetails(destination: destination, attributeKey: key)
    }

    /// Makes a new six-digit `purpose` code for the user (replacing the previous one; stored only
    /// as an HMAC) and hands it to the delivery, or to the outbox.
    /// - Throws: ``AuthError/service(_:_:_:)`` ("Attempt limit exceeded") past
    ///   `codeRequestLimit` codes in the window.
    private func issueCode(to user: PoolUser, purpose: CodePurpose, destination: String) async throws {
        try await recordCodeRequest(subject: user.sub)
        let digits = try Digest.randomBytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
        let code = String(format: "%06llu", digits)
        try await database.run(
            "INSERT OR REPLACE INTO codes VALUES (?, ?, ?, ?, 0)",
            [
                .text(user.sub), .text(purpose.rawValue), .blob(mac("\(user.sub):\(purpose.rawValue):\(code)")),
                .real(Date().timeIntervalSince1970 + configuration.codeLifetime),
            ])
        let message = CodeMessage(username: user.username, destination: destination, purpose: purpose, code: code, createdAt: Date())
        if let delivery {
            try await delivery.deliver(message)
        } else {
            try await database.run(
                "INSERT INTO outbox (username, destination, purpose, code, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(message.username), .text(destination), .text(purpose.rawValue), .text(code), .real(message.createdAt.timeIntervalSince1970)])
        }
    }

    /// Counts one code sent to `subject` (a user's `sub`, or a name nobody has), refusing it when
    /// `codeRequestLimit` were sent in the last `codeRequestWindow`. One transaction: parallel
    /// requests take turns.
    /// - Throws: ``AuthError/service(_:_:_:)`` with Cognito's "Attempt limit exceeded" wording.
    func recordCodeRequest(subject: String) async throws {
        let now = Date().timeIntervalSince1970
        let window = configuration.codeRequestWindow
        let limit = Int64(configuration.codeRequestLimit)
        let oldest = try await database.transaction { connection -> Double? in
            try connection.run("DELETE FROM code_issues WHERE subject = ? AND issued_at <= ?", [.text(subject), .real(now - window)])
            let rows = try connection.run("SELECT issued_at FROM code_issues WHERE subject = ? ORDER BY issued_at", [.text(subject)])
            if Int64(rows.count) >= limit { return rows.first?["issued_at"].real ?? now }
            try connection.run("INSERT INTO code_issues (subject, issued_at) VALUES (?, ?)", [.text(subject), .real(now)])
            return nil
        }
        if let oldest {
            let wait = max(1, (oldest + window - now).rounded(.up))
            let minutes = wait >= 60 ? "\(Int64(min(wait, 1e9) / 60)) minutes" : "\(Int64(min(wait, 1e9))) seconds"
            throw AuthError.service(
                "Attempt limit exceeded: \(limit) codes were sent for this user in the last \(Int64(min(window, 1e9))) seconds.",
                "Use the last code sent, or ask for a new one in about \(minutes).")
        }
    }

    /// Checks and consumes a code: single use, expiring, limited attempts. A wrong code also
    /// counts toward the account's lockout, as a wrong password does (unless
    /// `countsTowardLockout` is false: the sign-in counts its own), and no code is checked while
    /// the account is locked.
    func consumeCode(sub: String, purpose: CodePurpose, code: String, countsTowardLockout: Bool = true) async throws {
        if countsTowardLockout { try await requireNotLocked(sub: sub) }
        guard let row = try await database.run("SELECT * FROM codes WHERE sub = ? AND purpose = ?", [.text(sub), .text(purpose.rawValue)]).first,
            let stored = row["code_mac"].blob
        else {
            throw Self.noPendingCode
        }
        if (row["expires_at"].real ?? 0) < Date().timeIntervalSince1970 {
            try await database.run("DELETE FROM codes WHERE sub = ? AND purpose = ?", [.text(sub), .text(purpose.rawValue)])
            throw Self.expiredCode
        }
        guard Digest.constantTimeEquals(mac("\(sub):\(purpose.rawValue):\(code)"), stored) else {
            if countsTowardLockout { try await countFailedCode(sub: sub) }
            let attempts = (row["attempts"].integer ?? 0) + 1
            if attempts >= Int64(configuration.codeMaxAttempts) {
                try await database.run("DELETE FROM codes WHERE sub = ? AND purpose = ?", [.text(sub), .text(purpose.rawValue)])
                throw Self.voidedCode
            }
            try await database.run(
                "UPDATE codes SET attempts = ? WHERE sub = ? AND purpose = ?", [.integer(attempts), .text(sub), .text(purpose.rawValue)])
            throw wrongCode(attempts: attempts)
        }
        try await database.run("DELETE FROM codes WHERE sub = ? AND purpose = ?", [.text(sub), .text(purpose.rawValue)])
    }

    static let noPendingCode = AuthError.validation(
        "confirmationCode", "There is no pending code (it was already used or never sent).", "Request a new code.")
    static let expiredCode = AuthError.validation("confirmationCode", "The code has expired.", "Request a new code.")
    static let voidedCode = AuthError.validation(
        "confirmationCode", "The code is wrong, and too many wrong codes were tried; it is no longer valid.", "Request a new code.")

    func wrongCode(attempts: Int64) -> AuthError {
        AuthError.validation(
            "confirmationCode", "The code is wrong.",
            "Check the code and try again (\(Int64(configuration.codeMaxAttempts) - attempts) attempts left).")
    }

    func outbox(username typed: String? = nil) async throws -> [CodeMessage] {
        let rows: [SQLiteRow]
        if let typed {
            let name = try await user(named: typed)?.username ?? UsernameProfile.display(typed)
            rows = try await database.run("SELECT * FROM outbox WHERE username = ? ORDER BY id", [.text(name)])
        } else {
            rows = try await database.run("SELECT * FROM outbox ORDER BY id")
        }
        return rows.map {
            CodeMessage(
                username: $0["username"].text ?? "", destination: $0["destination"].text ?? "",
                purpose: CodePurpose(rawValue: $0["purpose"].text ?? "") ?? .signUp, code: $0["code"].text ?? "",
                createdAt: Date(timeIntervalSince1970: $0["created_at"].real ?? 0))
        }
    }

    /// A destination as Cognito shows it: `a***@e***.com` for an email (the first letter of the
    /// name and of the domain, and the top-level domain), `+*******1234` for anything else.
    static func mask(_ destination: String) -> String {
        guard let at = destination.firstIndex(of: "@") else {
            return String(repeating: "*", count: max(0, destination.count - 4)) + destination.suffix(4)
        }
        let domain = destination[destination.index(after: at)...]
        let topLevel = domain.lastIndex(of: ".").map { String(domain[$0...]) } ?? ""
        return "\(destination.first.map(String.init) ?? "")***@\(domain.first.map(String.init) ?? "")***\(topLevel)"
    }

    // MARK: Tokens

    /// Issues ID, access and refresh tokens. A refresh token made by rotation keeps the expiry of
    /// the one it replaces (`refreshExpiry`): using a session does not make it last longer than
    /// the refresh-token lifetime from sign-in.
    /// `deviceKey` (the tracked device of the sign-in) goes into the access token's `device_key`
    /// claim and before the refresh token's random part.
    /// `origin` is the session's id (the tokens' `origin_jti`, as Cognito names it): a new one
    /// for a sign-in, the rotated token's for a refresh, so a sign-out can end every access token
    /// of the session.
    func issueTokens(for user: PoolUser, refreshExpiry: Date? = nil, deviceKey: String? = nil, origin: String? = nil) async throws -> IssuedTokens {
        let now = Date()
        let origin = origin ?? UUID().uuidString.lowercased()
        let accessExpiry = now.addingTimeInterval(configuration.accessTokenLifetime)
        let attributes = try await attributes(sub: user.sub)
        let memberships = try await groups(sub: user.sub)
        var idClaims: [String: JSONValue] = [
            "iss": .string(configuration.issuer), "sub": .string(user.sub), "aud": .string(configuration.clientId),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)), "exp": .number(accessExpiry.timeIntervalSince1970.rounded(.down)),
            "jti": .string(UUID().uuidString.lowercased()), "origin_jti": .string(origin), "token_use": "id",
            "cognito:username": .string(user.username),
        ]
        for attribute in attributes where attribute.key != .sub { idClaims[attribute.key.rawValue] = .string(attribute.value) }
        var accessClaims: [String: JSONValue] = [
            "iss": .string(configuration.issuer), "sub": .string(user.sub), "client_id": .string(configuration.clientId),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)), "exp": .number(accessExpiry.timeIntervalSince1970.rounded(.down)),
            "jti": .string(UUID().uuidString.lowercased()), "origin_jti": .string(origin), "token_use": "access", "username": .string(user.username),
            "ver": .number(Double(user.tokenVersion)), "scope": "aws.cognito.signin.user.admin",
        ]
        accessClaims["device_key"] = deviceKey.map(JSONValue.string)
        if !memberships.isEmpty {
            // Cognito puts the groups in both tokens.
            accessClaims["cognito:groups"] = .array(memberships.map(JSONValue.string))
            idClaims["cognito:groups"] = .array(memberships.map(JSONValue.string))
        }
        let random = Base64URL.encode(try Digest.randomBytes(32))
        let refreshToken = deviceKey.map { "\($0).\(random)" } ?? random
        let refreshExpiry = refreshExpiry ?? now.addingTimeInterval(configuration.refreshTokenLifetime)
        let tokenMac = mac(refreshToken)
        try await database.transaction { connection in
            // A revoked or expired token can never be exchanged again (its row or no row, the
            // answer is the same), so it goes: the table holds live sessions only.
            try connection.run("DELETE FROM refresh_tokens WHERE revoked = 1 OR expires_at <= ?", [.real(now.timeIntervalSince1970)])
            try connection.run("DELETE FROM revoked_sessions WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
            try connection.run(
                "INSERT INTO refresh_tokens (token_mac, sub, expires_at, revoked, token_version, origin_jti) VALUES (?, ?, ?, 0, ?, ?)",
                [.blob(tokenMac), .text(user.sub), .real(refreshExpiry.timeIntervalSince1970), .integer(user.tokenVersion), .text(origin)])
        }
        return IssuedTokens(
            idToken: try JSONWebToken.sign(claims: .object(idClaims), key: signingKey, keyId: keyId),
            accessToken: try JSONWebToken.sign(claims: .object(accessClaims), key: signingKey, keyId: keyId),
            refreshToken: refreshToken, accessExpiresAt: Date(timeIntervalSince1970: accessExpiry.timeIntervalSince1970.rounded(.down)),
            refreshExpiresAt: refreshExpiry)
    }

    /// What the rotation transaction found.
    private enum Rotation: Sendable {
        case rotated(sub: String, expiry: Double, version: Int64, origin: String?)
        case otherUser
        case dead
    }

    /// Exchanges a refresh token for new tokens; the old refresh token is revoked (rotation).
    /// With `owner` (the `sub` of the session the token came with), a token of another user is
    /// refused before anything is revoked: the other user's session goes on.
    /// - Throws: ``AuthError/sessionExpired(_:_:_:)`` when the token is unknown, revoked, expired,
    ///   or its user is gone; ``AuthError/notAuthorized(_:_:_:)`` when it is not `owner`'s.
    func refresh(_ refreshToken: String, owner: String? = nil) async throws -> (PoolUser, IssuedTokens) {
        let expired = AuthError.sessionExpired("The session has expired or was revoked.", "Sign in again.")
        let key = mac(refreshToken)
        let outcome = try await database.transaction { connection -> Rotation in
            guard
                let row = try connection.run(
                    "SELECT r.revoked, r.expires_at, r.sub, r.origin_jti, r.token_version AS issued, u.token_version AS current FROM refresh_tokens r JOIN users u ON u.sub = r.sub WHERE r.token_mac = ?",
                    [.blob(key)]
                ).first,
                row["revoked"].integer == 0, let expiry = row["expires_at"].real, expiry > Date().timeIntervalSince1970,
                let sub = row["sub"].text, let version = row["current"].integer, row["issued"].integer == version
            else { return .dead }
            if let owner, !owner.isEmpty, owner != sub { return .otherUser }
            try connection.run("UPDATE refresh_tokens SET revoked = 1 WHERE token_mac = ?", [.blob(key)])
            return .rotated(sub: sub, expiry: expiry, version: version, origin: row["origin_jti"].text)
        }
        let sub: String
        let expiry: Double
        let version: Int64
        let origin: String?
        switch outcome {
        case .dead: throw expired
        case .otherUser:
            throw AuthError.notAuthorized(
                "The refresh token is refused: it belongs to another user than the session's access token.",
                "Sign in again; a request must carry one user's tokens.")
        case .rotated(let rotatedSub, let rotatedExpiry, let rotatedVersion, let rotatedOrigin):
            (sub, expiry, version, origin) = (rotatedSub, rotatedExpiry, rotatedVersion, rotatedOrigin)
        }
        guard let current = try await user(sub: sub), current.confirmed else { throw expired }
        // The new tokens carry the version the rotation saw, so a global sign-out that ran since
        // makes them invalid too.
        let user = PoolUser(sub: current.sub, username: current.username, confirmed: current.confirmed, tokenVersion: version)
        return (
            user,
            try await issueTokens(
                for: user, refreshExpiry: Date(timeIntervalSince1970: expiry), deviceKey: Self.deviceKey(ofRefreshToken: refreshToken), origin: origin
            )
        )
    }

    /// Revokes a refresh token and ends its session: the access and ID tokens issued with it
    /// (before or after a rotation) are refused from now on, not only when they expire.
    func revoke(refreshToken: String) async throws {
        let key = mac(refreshToken)
        // Every access token of the session has expired by then (a lifetime from now, and a
        // minute for clocks).
        let until = Date().timeIntervalSince1970 + configuration.accessTokenLifetime + 60
        try await database.transaction { connection in
            let origin = try connection.run("SELECT origin_jti FROM refresh_tokens WHERE token_mac = ?", [.blob(key)]).first?["origin_jti"].text
            try connection.run("UPDATE refresh_tokens SET revoked = 1 WHERE token_mac = ?", [.blob(key)])
            if let origin {
                try connection.run("INSERT OR REPLACE INTO revoked_sessions (origin_jti, expires_at) VALUES (?, ?)", [.text(origin), .real(until)])
            }
        }
        revocations.bump()
    }

    /// The user `sub` if it exists and the session `origin` (a token's `origin_jti`; `nil` for
    /// tokens issued before sessions had ids) was not signed out: one query.
    private func liveUser(sub: String, origin: String?) async throws -> (PoolUser, revoked: Bool)? {
        guard
            let row = try await database.run(
                "SELECT sub, username, confirmed, token_version, EXISTS (SELECT 1 FROM revoked_sessions WHERE origin_jti = ?) AS revoked FROM users WHERE sub = ?",
                [origin.map(SQLiteValue.text) ?? .null, .text(sub)]
            ).first
        else { return nil }
        return (Self.poolUser(row), row["revoked"].integer == 1)
    }

    /// Global sign-out: revokes every refresh token of the user and invalidates its access tokens.
    func revokeAll(sub: String) async throws {
        try await database.transaction { connection in
            try connection.run("UPDATE refresh_tokens SET revoked = 1 WHERE sub = ?", [.text(sub)])
            try connection.run("UPDATE users SET token_version = token_version + 1 WHERE sub = ?", [.text(sub)])
        }
        revocations.bump()
    }

    /// The user an access token stands for, if it is valid now (signature, expiry, client,
    /// not revoked by a global sign-out, user still there).
    func validate(accessToken: String) async throws -> PoolUser {
        let token: JSONWebToken
        do {
            token = try JSONWebToken.verify(accessToken, key: signingKey, keyId: keyId)
        } catch .expired {
            throw AuthError.sessionExpired("The access token has expired.", "Refresh the session (fetchAuthSession) or sign in again.")
        } catch .badSignature {
            // The session's own stored token: signed by an earlier key, or in the high-S form
            // an earlier version wrote. A refresh gets a token of today's key and form.
            throw AuthError.sessionExpired(
                "The access token's signature is not accepted any more.", "Refresh the session (fetchAuthSession) or sign in again.")
        } catch {
            throw AuthError.notAuthorized("The access token is not valid: \(error).", "Sign in again.")
        }
        guard token.string("token_use") == "access", token.string("client_id") == configuration.clientId,
            let sub = token.string("sub"), let (user, revoked) = try await liveUser(sub: sub, origin: token.string("origin_jti")), !revoked,
            let version = token.claims["ver"]?.doubleValue.flatMap({ Int64(exactly: $0) }), version == user.tokenVersion
        else {
            throw AuthError.sessionExpired("The session was revoked (signed out, signed out everywhere, or the user was deleted).", "Sign in again.")
        }
        return user
    }

    /// Checks the tokens a request brought (a server context's): the access token's signature,
    /// issuer, use, client and token version, and the ID token's (the same `sub`) when sent.
    /// Returns the user, the access token's claims and expiry, the ID token's expiry, and whether
    /// the access token has expired (everything else checked: the caller may then refresh).
    /// - Throws: `AuthError.notAuthorized(_:_:_:)` saying which check failed.
    func verifyRequest(accessToken: String, idToken: String?) async throws -> VerifiedPoolRequest {
        let (access, expired) = try checkSigned(accessToken, what: "access token")
        guard access.string("token_use") == "access" else {
            throw refused("access token", "its token_use is '\(PrintableText(access.string("token_use") ?? ""))', not 'access'")
        }
        guard access.string("client_id") == configuration.clientId else {
            throw refused(
                "access token",
                "it was issued to the app client '\(PrintableText(access.string("client_id") ?? ""))', not '\(configuration.clientId)'")
        }
        guard let sub = access.string("sub"), let (user, revoked) = try await liveUser(sub: sub, origin: access.string("origin_jti")) else {
            throw refused("access token", "its user does not exist")
        }
        guard !revoked else { throw refused("access token", "its session was signed out") }
        guard let version = access.claims["ver"]?.doubleValue.flatMap({ Int64(exactly: $0) }), version == user.tokenVersion else {
            throw refused("access token", "it was revoked (signed out everywhere, or the password was reset)")
        }
        var idExpiresAt: Date?
        if let idToken {
            let (id, idExpired) = try checkSigned(idToken, what: "ID token")
            guard id.string("token_use") == "id", id.string("aud") == configuration.clientId, id.string("sub") == sub else {
                throw refused("ID token", "it is not an ID token of the same user and app client")
            }
            if idExpired && !expired { throw refused("ID token", "it has expired") }
            idExpiresAt = id.expiresAt
        }
        return VerifiedPoolRequest(
            user: user, accessClaims: access.claims, expiresAt: access.expiresAt ?? Date(), idExpiresAt: idExpiresAt, expired: expired)
    }

    /// What ``verifyRequest(accessToken:idToken:)`` found.
    struct VerifiedPoolRequest {
        let user: PoolUser
        let accessClaims: JSONValue
        let expiresAt: Date
        let idExpiresAt: Date?
        let expired: Bool
    }

    /// `token` if this pool signed it (ES256, its key, its issuer); whether it has expired.
    private func checkSigned(_ token: String, what: String) throws -> (JSONWebToken, Bool) {
        guard token.utf8.count <= JSONWebToken.maximumLength else { throw refused(what, "it is over \(JSONWebToken.maximumLength) bytes") }
        var expired = false
        let verified: JSONWebToken
        do {
            verified = try JSONWebToken.verify(token, key: signingKey, keyId: keyId)
        } catch .expired {
            // verify checks the signature before the expiry: an expired token is genuine.
            expired = true
            do {
                verified = try JSONWebToken(parsing: token)
            } catch {
                throw refused(what, "\(error)")
            }
        } catch {
            throw refused(what, "\(error)")
        }
        guard verified.string("iss") == configuration.issuer else {
            throw refused(what, "its issuer '\(PrintableText(verified.string("iss") ?? ""))' is not this pool's ('\(configuration.issuer)')")
        }
        return (verified, expired)
    }

    private func refused(_ what: String, _ reason: String) -> AuthError {
        AuthError.notAuthorized("The \(what) is refused: \(reason).", "Sign in again.")
    }
}
