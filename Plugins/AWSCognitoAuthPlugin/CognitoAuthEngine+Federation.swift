import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import Foundation

/// What `federateToIdentityPool` returns, as amplify-swift's.
public struct FederateToIdentityPoolResult: Sendable, Equatable {
    /// The identity's temporary AWS credentials.
    public let credentials: AWSCredentials
    /// The identity pool's identity id for the federated user.
    public let identityId: String
}

/// A federation in effect: the identity-pool provider presenting the provider's token.
struct CognitoFederation: Sendable {
    let provider: CognitoIdentityCredentialsProvider
}

extension AuthProvider {
    /// The `Logins` key the identity pool knows the provider by.
    var identityPoolProviderName: String {
        switch self {
        case .amazon: "www.amazon.com"
        case .apple: "appleid.apple.com"
        case .facebook: "graph.facebook.com"
        case .google: "accounts.google.com"
        case .twitter: "api.twitter.com"
        case .oidc(let name), .saml(let name), .custom(let name): name
        }
    }
}

/// Federation to the identity pool: a provider's token (Google, Apple, an OIDC issuer, …)
/// exchanged for identity-pool credentials with `GetId` and `GetCredentialsForIdentity` and its
/// `Logins`, with no user pool user. It is the process-wide session's (kept in memory, not in the
/// credential store), refused while a user is signed in and inside a server context.
extension CognitoAuthEngine {
    /// Federates with `token` of `provider`: the identity's id and credentials, which the other
    /// AWS plugins then use, and `fetchAuthSession` reports (signed in, no user pool tokens).
    /// - Throws: `AuthError.configuration` without an identity pool, `AuthError.invalidState` when
    ///   a user is signed in or inside a server context,
    ///   `AuthError.notAuthorized` when the pool refuses the token.
    func federate(token: String, provider: AuthProvider, identityId: String?) async throws -> FederateToIdentityPoolResult {
        try await prepare()
        guard let makeIdentity else {
            throw AuthError.configuration(
                "No identity pool is configured, so there is nothing to federate to.",
                "Add CredentialsProvider.CognitoIdentity.Default.PoolId to the configuration file.")
        }
        if (try? AuthServerContext.current(for: tenant)) != nil {
            throw AuthError.invalidState(
                "federateToIdentityPool acts on the process-wide session, not a server context's.", "Call it outside AuthServerContext.run.")
        }
        if let session = await keeper.current {
            throw AuthError.invalidState("'\(session.username)' is signed in to the user pool.", "Sign out before federating to the identity pool.")
        }
        guard !token.isEmpty else {
            throw AuthError.validation("withProviderToken", "The provider's token is empty.", "Pass the token the provider issued.")
        }
        let logins = [provider.identityPoolProviderName: token]
        let made = makeIdentity(identityId) { logins }
        let credentials: AWSCredentials
        do {
            credentials = try await made.credentials()
        } catch {
            throw AuthError.cognito(error, operation: "GetCredentialsForIdentity")
        }
        guard let id = await made.currentIdentityId else {
            throw AuthError.service("The identity pool gave no identity id.", "Check the identity pool id and the endpoint.")
        }
        // A sign-in may have completed while the pool was asked (this actor is re-entered).
        if let session = await keeper.current {
            throw AuthError.invalidState("'\(session.username)' signed in while federating.", "Sign out before federating to the identity pool.")
        }
        federation = CognitoFederation(provider: made)
        return FederateToIdentityPoolResult(credentials: credentials, identityId: id)
    }

    /// Ends the federation: the identity pool's guest (or nothing) again.
    /// - Throws: `AuthError.invalidState` when no federation is in effect.
    func clearFederation() throws {
        guard federation != nil else {
            throw AuthError.invalidState(
                "The session is not federated to the identity pool.", "Call federateToIdentityPool(withProviderToken:for:) first.")
        }
        federation = nil
    }

    /// - Throws: `AuthError.invalidState` while a federation is in effect (outside a server context).
    func requireNotFederated() throws {
        guard federation != nil, (try? AuthServerContext.current(for: tenant)) == nil else { return }
        throw AuthError.invalidState(
            "The session is federated to the identity pool, so no user pool user can sign in.", "Call clearFederationToIdentityPool() first.")
    }

    /// The session `fetchAuthSession` reports while federated (outside a server context):
    /// signed in, the identity's id and credentials, no user pool tokens (as amplify-swift's).
    func federatedSession(identityId: Result<String, AuthError>, credentials: Result<AWSCredentials, AuthError>) -> AWSAuthCognitoSession? {
        guard federation != nil, (try? AuthServerContext.current(for: tenant)) == nil else { return nil }
        let noUserPool = AuthError.invalidState(
            "Users Federated to Identity Pool do not have User Pool access.", "To access User Pool data, you must use a Sign In method.")
        return AWSAuthCognitoSession(
            isSignedIn: true, userSubResult: .failure(noUserPool), userPoolTokensResult: .failure(noUserPool),
            identityIdResult: identityId, awsCredentialsResult: credentials)
    }
}
