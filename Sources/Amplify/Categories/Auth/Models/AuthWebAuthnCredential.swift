import Foundation

/// A WebAuthn credential (passkey) registered for the user, as amplify-swift's.
public protocol AuthWebAuthnCredential: Sendable {
    /// The credential's id.
    var credentialId: String { get }
    /// When it was registered.
    var createdAt: Date { get }
    /// The relying party it belongs to (the app's domain).
    var relyingPartyId: String { get }
    /// The name the user gave it.
    var friendlyName: String? { get }
}

/// A page of ``AuthWebAuthnCredential``s.
public struct AuthListWebAuthnCredentialsResult: Sendable {
    /// The credentials of this page.
    public var credentials: [any AuthWebAuthnCredential]
    /// Where the next page starts (`nil`: this was the last one), for the next call's options.
    public let nextToken: String?

    /// A page.
    public init(credentials: [any AuthWebAuthnCredential], nextToken: String?) {
        self.credentials = credentials
        self.nextToken = nextToken
    }
}

/// Options for `listWebAuthnCredentials(options:)`.
public enum AuthListWebAuthnCredentialsRequest {
    /// The page to read.
    public struct Options: Sendable {
        /// How many credentials a page holds, 1 to 20.
        public let pageSize: UInt
        /// Where the page starts (a previous result's `nextToken`).
        public let nextToken: String?
        /// Plugin options.
        public let pluginOptions: (any Sendable)?

        /// Options (20 a page from the first, by default).
        public init(pageSize: UInt = 20, nextToken: String? = nil, pluginOptions: (any Sendable)? = nil) {
            self.pageSize = pageSize
            self.nextToken = nextToken
            self.pluginOptions = pluginOptions
        }
    }
}

/// Options for `deleteWebAuthnCredential(credentialId:options:)`.
public enum AuthDeleteWebAuthnCredentialRequest {
    /// Plugin options.
    public typealias Options = AuthPluginOptions
}
