import AmplifySQLite
import Foundation

/// The secret of a device the user pool tracks, which a later sign-in proves with
/// `DEVICE_SRP_AUTH` (amplify-swift keeps it in the keychain).
public struct DeviceSecret: Sendable, Equatable {
    /// The device key.
    public let deviceKey: String
    /// The device group key.
    public let deviceGroupKey: String
    /// The device's random password, whose SRP verifier the pool keeps.
    public let devicePassword: String

    /// A secret from its parts.
    public init(deviceKey: String, deviceGroupKey: String, devicePassword: String) {
        self.deviceKey = deviceKey
        self.deviceGroupKey = deviceGroupKey
        self.devicePassword = devicePassword
    }
}

/// Device secrets, one per plugin and username, in the same 0600 file as the sessions. The table
/// is made on first use, so stores of every version gain it without a migration.
extension CredentialStore {
    private func ensureDeviceTable() async throws {
        try await database.run(
            """
            CREATE TABLE IF NOT EXISTS device_secrets (
                plugin_key TEXT NOT NULL, username TEXT NOT NULL, device_key TEXT NOT NULL, device_group_key TEXT NOT NULL,
                device_password TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (plugin_key, username))
            """)
    }

    /// Keeps `secret` for `username`, replacing an earlier one. - Throws: `SQLiteError`.
    public func saveDeviceSecret(_ secret: DeviceSecret, username: String, pluginKey: String) async throws {
        try await ensureDeviceTable()
        try await database.run(
            "INSERT OR REPLACE INTO device_secrets VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(pluginKey), .text(username), .text(secret.deviceKey), .text(secret.deviceGroupKey), .text(secret.devicePassword),
                .real(Date().timeIntervalSince1970),
            ])
    }

    /// The secret kept for `username`, if any. - Throws: `SQLiteError`.
    public func deviceSecret(username: String, pluginKey: String) async throws -> DeviceSecret? {
        try await ensureDeviceTable()
        guard
            let row = try await database.run(
                "SELECT * FROM device_secrets WHERE plugin_key = ? AND username = ?", [.text(pluginKey), .text(username)]
            ).first,
            let key = row["device_key"].text, let group = row["device_group_key"].text, let password = row["device_password"].text
        else { return nil }
        return DeviceSecret(deviceKey: key, deviceGroupKey: group, devicePassword: password)
    }

    /// Forgets every secret of the device `deviceKey`. - Throws: `SQLiteError`.
    public func clearDeviceSecret(deviceKey: String, pluginKey: String) async throws {
        try await ensureDeviceTable()
        try await database.run("DELETE FROM device_secrets WHERE plugin_key = ? AND device_key = ?", [.text(pluginKey), .text(deviceKey)])
    }
}
