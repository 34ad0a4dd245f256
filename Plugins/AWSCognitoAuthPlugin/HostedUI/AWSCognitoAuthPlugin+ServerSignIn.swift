import Amplify
import AmplifyAuthCore
import Foundation

/// The hosted UI for server-owned sign-in (`AuthRoutes`): its endpoint from the `OAuth` block,
/// and the code exchange with the tokens verified against the pool's keys.
extension AWSCognitoAuthPlugin: HostedUIServerSignIn {
    /// The hosted UI of the `OAuth` block (`nil` without one). `SignInRedirectURI` and
    /// `SignOutRedirectURI` may list several URIs separated by commas, as the Amplify CLI writes them.
    /// - Throws: `AuthError.configuration(_:_:_:)` before `configure`.
    public func hostedUIEndpoint() throws -> HostedUIEndpoint? {
        guard let oauth = try engine().configuration.oauth else { return nil }
        func list(_ text: String?) -> [String] {
            (text ?? "").split(separator: ",").map { String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
        }
        return HostedUIEndpoint(
            base: HostedUISignIn.base(of: oauth.webDomain), clientId: oauth.appClientId, scopes: oauth.scopes,
            signInRedirectURIs: list(oauth.signInRedirectURI), signOutRedirectURIs: list(oauth.signOutRedirectURI))
    }

    /// Exchanges the code at `/oauth2/token` (PKCE verifier, the redirect URI it was issued for,
    /// the client secret when the app client has one), then verifies the tokens as a request's.
    /// - Throws: `AuthError.configuration(_:_:_:)` without an `OAuth` block, `.notAuthorized` when
    ///   the code is refused or the tokens do not verify, `.service` when the hosted UI is unreachable.
    public func exchangeAuthorizationCode(_ code: String, verifier: String, redirectURI: String) async throws -> VerifiedRequest {
        let (engine, http) = try configured()
        guard let oauth = engine.configuration.oauth else {
            throw AuthError.configuration("The hosted UI is not configured.", "Add Auth.Default.OAuth to the awsCognitoAuthPlugin block.")
        }
        let answer = try await HostedUISignIn.exchange(
            code: code, verifier: verifier, redirectURI: redirectURI, oauth: oauth, clientSecret: engine.configuration.appClientSecret, http: http)
        guard let access = answer["access_token"]?.stringValue, let id = answer["id_token"]?.stringValue else {
            throw AuthError.service("The token endpoint answered without tokens.", "Check that the app client allows the openid scope.")
        }
        return try await verifiedRequest(AuthRequestTokens(accessToken: access, idToken: id, refreshToken: answer["refresh_token"]?.stringValue))
    }
}
