import Amplify
import Foundation

/// A device Cognito tracks for the user (ListDevices), as amplify-swift's.
public struct AWSAuthDevice: AuthDevice, Equatable {
    /// The device key.
    public let id: String
    /// The `device_name` attribute (empty when the device has none).
    public let name: String
    /// The device's attributes (`device_name`, `device_status`, `dev:device_remembered_status`, …).
    public let attributes: [String: String]?
    /// When the device was first tracked.
    public let createdDate: Date?
    /// When the device last signed in.
    public let lastAuthenticatedDate: Date?
    /// When the device was last changed.
    public let lastModifiedDate: Date?

    /// A device with these fields.
    public init(id: String, name: String, attributes: [String: String]?, createdDate: Date?, lastAuthenticatedDate: Date?, lastModifiedDate: Date?) {
        self.id = id
        self.name = name
        self.attributes = attributes
        self.createdDate = createdDate
        self.lastAuthenticatedDate = lastAuthenticatedDate
        self.lastModifiedDate = lastModifiedDate
    }
}
