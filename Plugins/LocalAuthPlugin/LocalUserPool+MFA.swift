import Amplify
import AmplifyCrypto
import AmplifySQLite
import Foundation

/// Attribute verification codes, TOTP secrets and MFA preferences. The `mfa` table is made on
/// first use (`CREATE TABLE IF NOT EXISTS`), outside the numbered schema steps, so pools of every
/// version gain it without a migration.
extension LocalUserPool {
    /// Makes the `mfa` table if the pool has none.
    private func ensureMFATable() async throws {
        try await database.run(
            """
            CREATE TABLE IF NOT EXISTS mfa (
                sub TEXT PRIMARY KEY REFERENCES users(sub) ON DELETE CASCADE, totp_secret BLOB, totp_pending BLOB,
                totp_last_counter INTEGER NOT NULL DEFAULT -1, enabled TEXT NOT NULL DEFAULT '', preferred TEXT)
            """)
    }

    /// The purpose of a verification code for `key` (email or phone number).
    /// - Throws: `AuthError.validation` for any other attribute.
    static func verificationPurpose(_ key: AuthUserAttributeKey) throws -> CodePurpose {
        switch key {
        case .email: return .verifyEmail
        case .phoneNumber: return .verifyPhoneNumber
        default:
            throw AuthError.validation(
                "userAttributeKey", "Only email and phone_number can be verified; '\(key.rawValue)' cannot.", "Verify .email or .phoneNumber.")
        }
    }

    /// Sends a code for verifying attribute `key` to the attribute's own value.
    /// - Throws: `AuthError.validation` when the user has no such attribute.
    func sendVerificationCode(to user: PoolUser, attribute key: AuthUserAttributeKey) async throws -> AuthCodeDeliveryDetails {
        try await sendCode(to: user, purpose: try Self.verificationPurpose(key), via: key, what: "verify")
    }

    /// Checks the code and marks the attribute verified (`email_verified` / `phone_number_verified`).
    /// - Throws: `AuthError.validation` for a wrong, used or expired code.
    func confirmAttribute(sub: String, attribute key: AuthUserAttributeKey, code: String) async throws {
        try await consumeCode(sub: sub, purpose: try Self.verificationPurpose(key), code: code)
        try await setAttributes(sub: sub, [AuthUserAttribute(AuthUserAttributeKey(rawValue: "\(key.rawValue)_verified"), value: "true")])
    }

    // MARK: TOTP

    /// Makes a new pending TOTP secret for the user (replacing a pending one; a verified one
    /// stays until the new one is verified).
    func beginTOTPSetup(sub: String) async throws -> [UInt8] {
        try await ensureMFATable()
        let secret = try TOTP.makeSecret()
        try await database.run("INSERT OR IGNORE INTO mfa (sub) VALUES (?)", [.text(sub)])
        try await database.run("UPDATE mfa SET totp_pending = ? WHERE sub = ?", [.blob(secret), .text(sub)])
        return secret
    }

    /// Checks `code` against the pending secret (one step of drift either way) and makes it the
    /// user's TOTP secret.
    /// - Throws: `AuthError.invalidState` with no set-up under way, `AuthError.validation` for a
    ///   wrong code.
    func verifyTOTPSetup(sub: String, code: String) async throws {
        try await ensureMFATable()
        guard let pending = try await database.run("SELECT totp_pending FROM mfa WHERE sub = ?", [.text(sub)]).first?["totp_pending"].blob else {
            throw AuthError.invalidState("No TOTP set-up is under way.", "Call setUpTOTP() first.")
        }
        guard let counter = TOTP(secret: pending).matchingCounter(code) else {
            throw AuthError.validation("code", "The TOTP code is wrong.", "Enter the code the authenticator app shows now.")
        }
        try await database.run(
            "UPDATE mfa SET totp_secret = ?, totp_pending = NULL, totp_last_counter = ? WHERE sub = ?",
            [.blob(pending), .integer(Int64(clamping: counter)), .text(sub)])
    }

    /// Checks a TOTP code against the user's verified secret; a code is accepted once.
    /// - Throws: `AuthError.validation` for a wrong or reused code, `AuthError.invalidState` without a secret.
    func checkTOTP(sub: String, code: String) async throws {
        try await ensureMFATable()
        guard let row = try await database.run("SELECT totp_secret, totp_last_counter FROM mfa WHERE sub = ?", [.text(sub)]).first,
            let secret = row["totp_secret"].blob
        else {
            throw AuthError.invalidState("TOTP is not set up for this user.", "Call setUpTOTP() and verifyTOTPSetup(code:) first.")
        }
        guard let counter = TOTP(secret: secret).matchingCounter(code), Int64(clamping: counter) > (row["totp_last_counter"].integer ?? -1) else {
            throw AuthError.validation("code", "The TOTP code is wrong or was already used.", "Enter the code the authenticator app shows now.")
        }
        try await database.run("UPDATE mfa SET totp_last_counter = ? WHERE sub = ?", [.integer(Int64(clamping: counter)), .text(sub)])
    }

    // MARK: Preferences

    /// The methods the user has on, and the preferred one.
    func mfaPreference(sub: String) async throws -> UserMFAPreference {
        try await ensureMFATable()
        let row = try await database.run("SELECT enabled, preferred FROM mfa WHERE sub = ?", [.text(sub)]).first
        let enabled = Set((row?["enabled"].text ?? "").split(separator: ",").compactMap { MFAType(rawValue: String($0)) })
        return UserMFAPreference(enabled: enabled.isEmpty ? nil : enabled, preferred: row?["preferred"].text.flatMap(MFAType.init(rawValue:)))
    }

    /// Applies the changes (`nil`: unchanged). TOTP needs a verified secret, SMS a phone number,
    /// email an email address; at most one method can be preferred.
    /// - Throws: `AuthError.invalidState` naming what a method needs, `AuthError.validation`
    ///   when two are preferred.
    func updateMFAPreference(sub: String, _ changes: [MFAType: MFAPreference]) async throws {
        try await ensureMFATable()
        let preferredCount = changes.values.filter { $0 == .preferred }.count
        guard preferredCount <= 1 else {
            throw AuthError.validation(
                "preference", "Only one MFA method can be preferred.", "Mark one method .preferred, the others .enabled or .notPreferred.")
        }
        let current = try await mfaPreference(sub: sub)
        var enabled = current.enabled ?? []
        var preferred = current.preferred
        let attributes = try await attributes(sub: sub)
        for (type, preference) in changes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if preference != .disabled {
                switch type {
                case .totp:
                    let secret = try await database.run("SELECT totp_secret FROM mfa WHERE sub = ?", [.text(sub)]).first?["totp_secret"].blob
                    guard secret != nil else {
                        throw AuthError.invalidState(
                            "TOTP cannot be turned on before it is set up.", "Call setUpTOTP() and verifyTOTPSetup(code:) first.")
                    }
                case .sms:
                    guard attributes.contains(where: { $0.key == .phoneNumber }) else {
                        throw AuthError.invalidState("SMS MFA needs a phone_number attribute.", "Set the user's phone number first.")
                    }
                case .email:
                    guard attributes.contains(where: { $0.key == .email }) else {
                        throw AuthError.invalidState("Email MFA needs an email attribute.", "Set the user's email first.")
                    }
                }
            }
            switch preference {
            case .disabled:
                enabled.remove(type)
                if preferred == type { preferred = nil }
            case .enabled:
                enabled.insert(type)
            case .preferred:
                enabled.insert(type)
                preferred = type
            case .notPreferred:
                enabled.insert(type)
                if preferred == type { preferred = nil }
            }
        }
        try await database.run("INSERT OR IGNORE INTO mfa (sub) VALUES (?)", [.text(sub)])
        try await database.run(
            "UPDATE mfa SET enabled = ?, preferred = ? WHERE sub = ?",
            [
                .text(enabled.map(\.rawValue).sorted().joined(separator: ",")), preferred.map { .text($0.rawValue) } ?? .null, .text(sub),
            ])
    }
}
