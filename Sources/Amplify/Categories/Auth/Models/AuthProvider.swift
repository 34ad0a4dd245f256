/// An identity provider whose token can be exchanged for identity-pool credentials
/// (`federateToIdentityPool(withProviderToken:for:)`), as amplify-swift's.
public enum AuthProvider: Sendable, Equatable {
    /// Login with Amazon.
    case amazon
    /// Sign in with Apple.
    case apple
    /// Facebook.
    case facebook
    /// Google.
    case google
    /// Twitter.
    case twitter
    /// An OpenID Connect provider, by the name the identity pool knows it by (its issuer host).
    case oidc(String)
    /// A SAML provider, by its ARN.
    case saml(String)
    /// A developer provider, by its name.
    case custom(String)
}

/// Options for `federateToIdentityPool(withProviderToken:for:options:)`.
public enum AuthFederateToIdentityPoolRequest {
    /// An identity id the backend already made for the user (developer-authenticated identities).
    public struct Options: Sendable {
        /// The identity id to use instead of asking the pool for one (`GetId`).
        public let developerProvidedIdentityID: String?
        /// Options.
        public init(developerProvidedIdentityID: String? = nil) {
            self.developerProvidedIdentityID = developerProvidedIdentityID
        }
    }
}

/// Options for `clearFederationToIdentityPool(options:)`.
public enum AuthClearFederationToIdentityPoolRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}

/// The Hub event names of federation (amplify-swift's strings).
extension HubPayload.EventName.Auth {
    /// `federateToIdentityPool(withProviderToken:for:)`.
    public static let federateToIdentityPoolAPI = "Auth.federatedToIdentityPool"
    /// `clearFederationToIdentityPool()`.
    public static let clearedFederationToIdentityPoolAPI = "Auth.federationToIdentityPoolCleared"
}
