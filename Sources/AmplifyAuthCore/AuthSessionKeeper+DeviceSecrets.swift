import Foundation

/// The keeper's store, for the device secrets of its plugin.
extension AuthSessionKeeper {
    /// Keeps `secret` for each of `usernames` (the canonical name and an alias typed in).
    /// - Throws: `SQLiteError`; nothing is kept before the store is open.
    public func saveDeviceSecret(_ secret: DeviceSecret, usernames: Set<String>) async throws {
        for username in usernames where !username.isEmpty {
            try await store?.saveDeviceSecret(secret, username: username, pluginKey: pluginKey)
        }
    }

    /// The secret kept for `username`, if any (none when the store cannot be read).
    public func deviceSecret(username: String) async -> DeviceSecret? {
        try? await store?.deviceSecret(username: username, pluginKey: pluginKey)
    }

    /// Forgets the device `deviceKey`'s secret (a forgotten device).
    public func clearDeviceSecret(deviceKey: String) async {
        try? await store?.clearDeviceSecret(deviceKey: deviceKey, pluginKey: pluginKey)
    }
}
