import Amplify
import AmplifyCrypto
import Foundation

/// Answers about names nobody has, given as they would be for a user who exists (Cognito's
/// `PreventUserExistenceErrors`): a code "sent" to a simulated destination, counted against the
/// same per-window limit; a wrong code for it counting down, voided after `codeMaxAttempts`, and
/// locking the name after `maxFailedAttempts`, with the same messages; sign-in failures locking
/// the name as they would lock an account. What the caller sees is the same either way, so no
/// call tells which users exist.
extension LocalUserPool {
    /// The subject the code and lock tables use for a name nobody has: stable per name (as
    /// compared), and never a user's `sub`.
    func phantomSubject(_ typed: String) -> String {
        "nobody:" + mac("nobody:" + UsernameProfile.key(typed)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// "Sends" a `purpose` code for a name nobody has: counted against the code limit, remembered
    /// as pending, and reported as sent to a simulated destination (the name's own masked form
    /// when it is an email address, as a real user's email is shown).
    /// - Throws: ``AuthError/service(_:_:_:)`` past the code limit, as for a user.
    func phantomCode(for typed: String, purpose: CodePurpose) async throws -> AuthCodeDeliveryDetails {
        let subject = phantomSubject(typed)
        try await recordCodeRequest(subject: subject)
        try await database.run(
            "INSERT OR REPLACE INTO phantom_codes (subject, purpose, expires_at, attempts) VALUES (?, ?, ?, 0)",
            [.text(subject), .text(purpose.rawValue), .real(Date().timeIntervalSince1970 + configuration.codeLifetime)])
        return AuthCodeDeliveryDetails(destination: .email(phantomDestination(typed)), attributeKey: .email)
    }

    /// Checks a code for a name nobody has: no code is right, and every answer is the one a user
    /// would get (no pending code, expired, wrong with the attempts left, voided, locked).
    /// - Throws: always; ``AuthError/validation(_:_:_:_:)`` or the lockout's ``AuthError/notAuthorized(_:_:_:)``.
    func consumePhantomCode(for typed: String, purpose: CodePurpose) async throws {
        let subject = phantomSubject(typed)
        try await requirePhantomNotLocked(subject)
        guard
            let row = try await database.run(
                "SELECT expires_at, attempts FROM phantom_codes WHERE subject = ? AND purpose = ?", [.text(subject), .text(purpose.rawValue)]
            ).first
        else { throw Self.noPendingCode }
        if (row["expires_at"].real ?? 0) < Date().timeIntervalSince1970 {
            try await deletePhantomCode(subject, purpose)
            throw Self.expiredCode
        }
        try await countPhantomFailure(subject)
        let attempts = (row["attempts"].integer ?? 0) + 1
        if attempts >= Int64(configuration.codeMaxAttempts) {
            try await deletePhantomCode(subject, purpose)
            throw Self.voidedCode
        }
        try await database.run(
            "UPDATE phantom_codes SET attempts = ? WHERE subject = ? AND purpose = ?", [.integer(attempts), .text(subject), .text(purpose.rawValue)])
        throw wrongCode(attempts: attempts)
    }

    /// A failed sign-in of a name nobody has: counted toward the name's lock, as an account's.
    /// - Throws: the lockout's ``AuthError/notAuthorized(_:_:_:)`` while the name is locked.
    func failPhantomSignIn(_ typed: String) async throws {
        let subject = phantomSubject(typed)
        try await requirePhantomNotLocked(subject)
        try await countPhantomFailure(subject)
    }

    private func requirePhantomNotLocked(_ subject: String) async throws {
        let lockedUntil =
            try await database.run("SELECT locked_until FROM phantom_locks WHERE subject = ?", [.text(subject)]).first?["locked_until"].real ?? 0
        let now = Date().timeIntervalSince1970
        if lockedUntil > now { throw Self.lockedError(remaining: lockedUntil - now) }
    }

    /// The account's failure count, kept for the name (`countFailureSQL` on the name's row).
    private func countPhantomFailure(_ subject: String) async throws {
        let limit = Int64(configuration.maxFailedAttempts)
        let lockEnd = Date().timeIntervalSince1970 + configuration.lockoutDuration
        try await database.transaction { connection in
            try connection.run("INSERT OR IGNORE INTO phantom_locks (subject) VALUES (?)", [.text(subject)])
            try connection.run(
                Self.countFailureSQL.replacingOccurrences(of: "UPDATE users", with: "UPDATE phantom_locks")
                    .replacingOccurrences(of: "WHERE sub = ?3", with: "WHERE subject = ?3"), [.integer(limit), .real(lockEnd), .text(subject)])
        }
    }

    private func deletePhantomCode(_ subject: String, _ purpose: CodePurpose) async throws {
        try await database.run("DELETE FROM phantom_codes WHERE subject = ? AND purpose = ?", [.text(subject), .text(purpose.rawValue)])
    }

    /// A simulated destination: the name itself, masked, when it is an email address; otherwise
    /// the name's first letter at a domain letter picked by the pool's secret (stable per name).
    private func phantomDestination(_ typed: String) -> String {
        let display = UsernameProfile.display(typed)
        if display.contains("@") { return Self.mask(display) }
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let pick = Int(mac("destination:" + UsernameProfile.key(typed))[0]) % letters.count
        return "\(display.first.map { String($0).lowercased() } ?? "u")***@\(letters[pick])***.com"
    }
}
