import Amplify

/// An engine whose user pool tracks devices: with it, the extension below gives its
/// ``AuthEngineBackedPlugin`` amplify-swift's device calls, each reported on the Hub under
/// amplify-swift's event name. Both Auth plugins of this package are so.
public protocol AuthDeviceEngine: AuthAccountEngine {
    /// The device type `fetchDevices` returns.
    associatedtype Device: AuthDevice
    /// The signed-in user's tracked devices. - Throws: `AuthError`.
    func fetchDevices() async throws -> [Device]
    /// Forgets the device with key `id` (`nil`: the session's own). - Throws: `AuthError`.
    func forgetDevice(id: String?) async throws
    /// Marks the session's device remembered. - Throws: `AuthError`.
    func rememberDevice() async throws
}

/// The default: each device call runs on the engine and is reported on the Hub's `.auth` channel.
extension AuthEngineBackedPlugin where Engine: AuthDeviceEngine {
    /// The signed-in user's tracked devices. - Throws: `AuthError`.
    public func fetchDevices(options: AuthFetchDevicesRequest.Options?) async throws -> [any AuthDevice] {
        try await authEvents.report(HubPayload.EventName.Auth.fetchDevicesAPI) {
            try await accountEngine().fetchDevices().map { $0 as any AuthDevice }
        }
    }

    /// Forgets `device` (`nil`: the session's own). - Throws: `AuthError`.
    public func forgetDevice(_ device: (any AuthDevice)?, options: AuthForgetDeviceRequest.Options?) async throws {
        let id = device?.id
        try await authEvents.report(HubPayload.EventName.Auth.forgetDeviceAPI) { try await accountEngine().forgetDevice(id: id) }
    }

    /// Marks the session's device remembered. - Throws: `AuthError`.
    public func rememberDevice(options: AuthRememberDeviceRequest.Options?) async throws {
        try await authEvents.report(HubPayload.EventName.Auth.rememberDeviceAPI) { try await accountEngine().rememberDevice() }
    }
}
