/// What is left to do after updating an attribute.
public enum AuthUpdateAttributeStep: Sendable, Equatable {
    /// Confirm the new value with the code that was sent.
    case confirmAttributeWithCode(AuthCodeDeliveryDetails, AdditionalInfo?)
    /// Nothing.
    case done
}

/// The outcome of updating one attribute.
public struct AuthUpdateAttributeResult: Sendable, Equatable {
    /// Whether the new value is in effect.
    public let isUpdated: Bool
    /// What to do next.
    public let nextStep: AuthUpdateAttributeStep

    /// A result.
    public init(isUpdated: Bool, nextStep: AuthUpdateAttributeStep) {
        self.isUpdated = isUpdated
        self.nextStep = nextStep
    }
}
