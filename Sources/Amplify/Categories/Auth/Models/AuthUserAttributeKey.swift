/// The name of a user attribute.
public enum AuthUserAttributeKey: Sendable, Hashable, Codable {
    /// The OpenID Connect standard attributes.
    case address, birthDate, email, emailVerified, familyName, gender, givenName, locale, middleName, name, nickname
    case phoneNumber, phoneNumberVerified, picture, preferredUsername, profile, sub, updatedAt, website, zoneInfo
    /// An attribute of the pool's own (`custom:` prefix added on the wire).
    case custom(String)
    /// An attribute this package has no case for.
    case unknown(String)

    private static let standard: [(AuthUserAttributeKey, String)] = [
        (.address, "address"), (.birthDate, "birthdate"), (.email, "email"), (.emailVerified, "email_verified"),
        (.familyName, "family_name"), (.gender, "gender"), (.givenName, "given_name"), (.locale, "locale"),
        (.middleName, "middle_name"), (.name, "name"), (.nickname, "nickname"), (.phoneNumber, "phone_number"),
        (.phoneNumberVerified, "phone_number_verified"), (.picture, "picture"),
        (.preferredUsername, "preferred_username"), (.profile, "profile"), (.sub, "sub"), (.updatedAt, "updated_at"),
        (.website, "website"), (.zoneInfo, "zoneinfo"),
    ]

    /// The attribute named `rawValue` on the wire (`"email"`, `"custom:plan"`, ...).
    public init(rawValue: String) {
        if let match = Self.standard.first(where: { $0.1 == rawValue }) {
            self = match.0
        } else if rawValue.hasPrefix("custom:") {
            self = .custom(String(rawValue.dropFirst("custom:".count)))
        } else {
            self = .unknown(rawValue)
        }
    }

    /// The attribute's name on the wire (OpenID Connect standard claims; `custom:` for custom).
    public var rawValue: String {
        switch self {
        case .custom(let name): return "custom:\(name)"
        case .unknown(let name): return name
        default: return Self.standard.first { $0.0 == self }?.1 ?? "\(self)"
        }
    }

    /// Decodes from the wire name.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
