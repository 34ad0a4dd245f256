import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifySQLite
import Foundation

/// Device tracking: every sign-in tracks a device (this machine, by host name) whose key the
/// session's access tokens carry as `device_key` and whose refresh token starts with it
/// (`<device key>.<random>`: the token is accepted only when its HMAC matches a stored one, so the
/// key cannot be forged), so a refresh keeps the device. A device signed in process-wide also gets
/// a secret its machine keeps (the pool keeps its HMAC): once remembered, the secret spares that
/// user's MFA on the machine's next sign-ins, as Cognito's `DEVICE_SRP_AUTH` does. The `devices` table is made on first use
/// (`CREATE TABLE IF NOT EXISTS`), as the `mfa` one, so pools of every version gain it without a
/// migration.
extension LocalUserPool {
    /// The most devices kept per user that are not remembered (the least recently used go first).
    static let untrackedDeviceLimit = 20

    private func ensureDeviceTable() async throws {
        try await database.run(
            """
            CREATE TABLE IF NOT EXISTS devices (
                device_key TEXT PRIMARY KEY, sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE, name TEXT NOT NULL,
                remembered INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL, last_authenticated_at REAL NOT NULL,
                last_modified_at REAL NOT NULL, secret_mac BLOB)
            """)
    }

    /// Gives the device `key` a new secret (kept by the machine that signed in, in its credential
    /// store; the pool keeps its HMAC) and returns it.
    func issueDeviceSecret(sub: String, key: String) async throws -> String {
        try await ensureDeviceTable()
        let secret = Base64URL.encode(try Digest.randomBytes(32))
        try await database.run(
            "UPDATE devices SET secret_mac = ? WHERE sub = ? AND device_key = ?",
            [.blob(mac("device:\(key):\(secret)")), .text(sub), .text(key)])
        return secret
    }

    /// Whether `secret` proves the user's device `key` and the device is remembered; if so its
    /// last sign-in becomes now.
    func rememberedDevice(sub: String, key: String, secret: String) async throws -> Bool {
        try await ensureDeviceTable()
        guard
            let row = try await database.run(
                "SELECT remembered, secret_mac FROM devices WHERE sub = ? AND device_key = ?", [.text(sub), .text(key)]
            ).first,
            row["remembered"].integer == 1, let stored = row["secret_mac"].blob,
            Digest.constantTimeEquals(mac("device:\(key):\(secret)"), stored)
        else { return false }
        try await database.run(
            "UPDATE devices SET last_authenticated_at = ? WHERE device_key = ?", [.real(Date().timeIntervalSince1970), .text(key)])
        return true
    }

    /// Tracks a new device for the user's sign-in and returns its key; the user's devices that are
    /// not remembered beyond ``untrackedDeviceLimit`` are dropped, least recently used first.
    func trackDevice(sub: String, name: String) async throws -> String {
        try await ensureDeviceTable()
        let key = "local_" + UUID().uuidString.lowercased()
        let now = Date().timeIntervalSince1970
        try await database.transaction { connection in
            try connection.run(
                "INSERT INTO devices (device_key, sub, name, created_at, last_authenticated_at, last_modified_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(key), .text(sub), .text(name), .real(now), .real(now), .real(now)])
            try connection.run(
                """
                DELETE FROM devices WHERE sub = ?1 AND remembered = 0 AND device_key NOT IN (
                    SELECT device_key FROM devices WHERE sub = ?1 AND remembered = 0 ORDER BY last_authenticated_at DESC LIMIT ?2)
                """, [.text(sub), .integer(Int64(Self.untrackedDeviceLimit))])
        }
        return key
    }

    /// The user's devices, most recently used first.
    func devices(sub: String) async throws -> [LocalAuthDevice] {
        try await ensureDeviceTable()
        return try await database.run("SELECT * FROM devices WHERE sub = ? ORDER BY last_authenticated_at DESC, device_key", [.text(sub)]).map {
            row in
            let name = row["name"].text ?? ""
            let remembered = row["remembered"].integer == 1
            return LocalAuthDevice(
                id: row["device_key"].text ?? "", name: name,
                attributes: [
                    "device_name": name, "device_status": "valid", "dev:device_remembered_status": remembered ? "remembered" : "not_remembered",
                ],
                createdDate: row["created_at"].real.map(Date.init(timeIntervalSince1970:)),
                lastAuthenticatedDate: row["last_authenticated_at"].real.map(Date.init(timeIntervalSince1970:)),
                lastModifiedDate: row["last_modified_at"].real.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Stops tracking the user's device `key`.
    /// - Throws: `AuthError.validation` when the user has no such device.
    func forgetDevice(sub: String, key: String) async throws {
        try await ensureDeviceTable()
        let removed = try await database.transaction { connection in
            try connection.run("DELETE FROM devices WHERE sub = ? AND device_key = ?", [.text(sub), .text(key)])
            return connection.changes
        }
        guard removed > 0 else { throw Self.noDevice(key) }
    }

    /// Marks the user's device `key` remembered.
    /// - Throws: `AuthError.validation` when the user has no such device (it was forgotten).
    func rememberDevice(sub: String, key: String) async throws {
        try await ensureDeviceTable()
        let changed = try await database.transaction { connection in
            try connection.run(
                "UPDATE devices SET remembered = 1, last_modified_at = ? WHERE sub = ? AND device_key = ?",
                [.real(Date().timeIntervalSince1970), .text(sub), .text(key)])
            return connection.changes
        }
        guard changed > 0 else { throw Self.noDevice(key) }
    }

    /// The device key a refresh token carries (`<key>.<random>`), if it carries one.
    static func deviceKey(ofRefreshToken token: String) -> String? {
        guard let dot = token.firstIndex(of: "."), token.hasPrefix("local_") else { return nil }
        return String(token[..<dot])
    }

    /// The `device_key` claim of a (verified) access token, if it has one.
    static func deviceKey(ofAccessToken token: String) -> String? {
        (try? JSONWebToken(parsing: token))?.string("device_key")
    }

    private static func noDevice(_ key: String) -> AuthError {
        AuthError.validation(
            "device", "The user has no device '\(key)' (it was forgotten, or belongs to someone else).", "Call fetchDevices() for the user's devices."
        )
    }
}
