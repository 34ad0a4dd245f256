/// amplify-swift's device calls: the devices the user pool tracks for the signed-in user. A
/// plugin that tracks devices conforms; `Amplify.Auth` forwards each call to its plugin when it
/// does and throws ``AuthError/configuration(_:_:_:)`` naming the plugin when it does not.
public protocol AuthCategoryDeviceBehavior: Sendable {
    /// The signed-in user's tracked devices.
    /// - Throws: ``AuthError/signedOut(_:_:_:)`` when nobody is signed in, or the plugin's error.
    func fetchDevices(options: AuthFetchDevicesRequest.Options?) async throws -> [any AuthDevice]
    /// Forgets `device` (`nil`: this session's own device); it is no longer tracked.
    /// - Throws: ``AuthError/invalidState(_:_:_:)`` when `device` is `nil` and the session has no
    ///   device, or the plugin's error.
    func forgetDevice(_ device: (any AuthDevice)?, options: AuthForgetDeviceRequest.Options?) async throws
    /// Marks this session's device remembered.
    /// - Throws: ``AuthError/invalidState(_:_:_:)`` when the session has no device, or the plugin's error.
    func rememberDevice(options: AuthRememberDeviceRequest.Options?) async throws
}

/// The Hub event names of the device calls (amplify-swift's strings).
extension HubPayload.EventName.Auth {
    /// `fetchDevices()`.
    public static let fetchDevicesAPI = "Auth.fetchDevicesAPI"
    /// `forgetDevice(_:)`.
    public static let forgetDeviceAPI = "Auth.forgetDeviceAPI"
    /// `rememberDevice()`.
    public static let rememberDeviceAPI = "Auth.rememberDeviceAPI"
}

/// The device calls on `Amplify.Auth`: each goes to the Auth plugin in effect (the server
/// context's, or the one configured) when it conforms to ``AuthCategoryDeviceBehavior``.
extension AuthCategory {
    private func devices() throws -> any AuthCategoryDeviceBehavior {
        let plugin = try getSelected()
        guard let devices = plugin as? any AuthCategoryDeviceBehavior else {
            throw AuthError.configuration(
                "The Auth plugin '\(plugin.key)' does not track devices (it is not an AuthCategoryDeviceBehavior).",
                "Use an Auth plugin that does, such as localAuthPlugin or awsCognitoAuthPlugin.")
        }
        return devices
    }

    /// The signed-in user's tracked devices. - Throws: ``AuthError``.
    public func fetchDevices(options: AuthFetchDevicesRequest.Options? = nil) async throws -> [any AuthDevice] {
        try await devices().fetchDevices(options: options)
    }

    /// Forgets `device` (`nil`: this session's own). - Throws: ``AuthError``.
    public func forgetDevice(_ device: (any AuthDevice)? = nil, options: AuthForgetDeviceRequest.Options? = nil) async throws {
        try await devices().forgetDevice(device, options: options)
    }

    /// Marks this session's device remembered. - Throws: ``AuthError``.
    public func rememberDevice(options: AuthRememberDeviceRequest.Options? = nil) async throws {
        try await devices().rememberDevice(options: options)
    }
}
