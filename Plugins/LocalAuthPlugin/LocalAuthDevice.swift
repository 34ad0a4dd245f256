import Amplify
import Foundation

/// A device the local pool tracks: one per sign-in (the process or server that signed in), with
/// the fields of amplify-swift's `AWSAuthDevice`.
public struct LocalAuthDevice: AuthDevice, Equatable {
    /// The device key (`local_` and a UUID), also the `device_key` claim of its access tokens.
    public let id: String
    /// The device's name: the host name of the machine that signed in.
    public let name: String
    /// Cognito's device attributes: `device_name`, `device_status` (`valid`) and
    /// `dev:device_remembered_status` (`remembered` or `not_remembered`).
    public let attributes: [String: String]?
    /// When the device was first tracked.
    public let createdDate: Date?
    /// When the device last signed in.
    public let lastAuthenticatedDate: Date?
    /// When the device was last changed (remembered).
    public let lastModifiedDate: Date?

    /// Whether the device is remembered.
    public var isRemembered: Bool { attributes?["dev:device_remembered_status"] == "remembered" }
}
