/// Where a confirmation code went.
public enum DeliveryDestination: Sendable, Hashable {
    /// An email address (masked by most services).
    case email(String?)
    /// A phone number.
    case phone(String?)
    /// A phone number, by text message.
    case sms(String?)
    /// Something else.
    case unknown(String?)
}

/// How a confirmation code was delivered.
public struct AuthCodeDeliveryDetails: Sendable, Hashable {
    /// Where it went.
    public let destination: DeliveryDestination
    /// The attribute the destination came from (email, phone number), if known.
    public let attributeKey: AuthUserAttributeKey?

    /// Describes a delivery to `destination`.
    public init(destination: DeliveryDestination, attributeKey: AuthUserAttributeKey? = nil) {
        self.destination = destination
        self.attributeKey = attributeKey
    }
}

/// Extra information a service returns with a step, by name.
public typealias AdditionalInfo = [String: String]
/// A user's identifier.
public typealias UserId = String
