/// A user attribute and its value.
public struct AuthUserAttribute: Sendable, Hashable, Codable {
    /// The attribute's name.
    public let key: AuthUserAttributeKey
    /// Its value.
    public let value: String

    /// `AuthUserAttribute(.email, value: "a@example.com")`.
    public init(_ key: AuthUserAttributeKey, value: String) {
        self.key = key
        self.value = value
    }
}
