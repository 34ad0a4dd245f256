import Amplify
import AmplifyAuthCore
import Foundation

/// amplify-swift's device calls on the local pool: each sign-in tracks this machine as a device
/// (named by its host name); the session's own device is the one its access token names.
extension LocalAuthEngine: AuthDeviceEngine {

    /// The signed-in user's devices, most recently used first.
    public func fetchDevices() async throws -> [LocalAuthDevice] {
        let (pool, user) = try await requireUser()
        return try await pool.devices(sub: user.sub)
    }

    /// Forgets the device `id` (`nil`: the session's own).
    public func forgetDevice(id: String?) async throws {
        let (pool, user) = try await requireUser()
        let key: String
        if let id { key = id } else { key = try await currentDeviceKey() }
        try await pool.forgetDevice(sub: user.sub, key: key)
        await keeper?.clearDeviceSecret(deviceKey: key)
    }

    /// Marks the session's own device remembered.
    public func rememberDevice() async throws {
        let (pool, user) = try await requireUser()
        try await pool.rememberDevice(sub: user.sub, key: try await currentDeviceKey())
    }

    /// The device the session's access token names.
    /// - Throws: `AuthError.invalidState` for a session from before device tracking.
    private func currentDeviceKey() async throws -> String {
        guard let session = await (try sessions())?.current, let key = LocalUserPool.deviceKey(ofAccessToken: session.accessToken) else {
            throw AuthError.invalidState("This session has no device: it began before the pool tracked devices.", "Sign out and sign in again.")
        }
        return key
    }
}
