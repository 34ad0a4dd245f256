import Foundation

/// A device the user pool tracks for a user (one per signed-in client), as amplify-swift's.
public protocol AuthDevice: Sendable {
    /// The device key (`us-east-1_1a2b…` on Cognito).
    var id: String { get }
    /// The device's name (its `device_name` attribute).
    var name: String { get }
}

/// Options for `fetchDevices(options:)`.
public enum AuthFetchDevicesRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// Options for `rememberDevice(options:)`.
public enum AuthRememberDeviceRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// Options for `forgetDevice(_:options:)`.
public enum AuthForgetDeviceRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}
