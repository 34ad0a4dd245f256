import AWSCognitoAuthPlugin
import Amplify
import Foundation

/// How a server authenticates requests from the iOS app's users: each request carries the user's
/// access token (`Authorization: Bearer …`); the gate verifies it against the user pool named in
/// the configuration file the Amplify CLI wrote, and either admits the request with the user's
/// `sub` and username or refuses it with the reason.
actor TokenGate {
    /// What the gate decided for one request.
    enum Decision: Equatable, CustomStringConvertible {
        case allow(subject: String, username: String)
        case deny(reason: String)

        /// One line: the token's claims come from outside, so they are escaped (a username with
        /// a line break must not print as a second decision).
        var description: String {
            switch self {
            case .allow(let subject, let username): "allow \(PrintableText(username)) (sub \(PrintableText(subject)))"
            case .deny(let reason): "deny: \(PrintableText(reason))"
            }
        }
    }

    private let verifier: CognitoTokenVerifier

    /// A gate for the pool of the configured Cognito plugin.
    /// - Throws: `AuthError.configuration` when Amplify has no Cognito plugin.
    init() throws {
        guard let plugin = try Amplify.Auth.getPlugin(for: AWSCognitoAuthPlugin.pluginKey) as? AWSCognitoAuthPlugin else {
            throw AuthError.configuration("No Cognito plugin is configured.", "Configure auth.plugins.awsCognitoAuthPlugin.")
        }
        verifier = try plugin.tokenVerifier()
    }

    /// The decision for a request's `Authorization` header.
    func decide(authorization header: String?) async -> Decision {
        guard let header, header.hasPrefix("Bearer ") else { return .deny(reason: "no bearer token") }
        do {
            let token = try await verifier.verify(String(header.dropFirst("Bearer ".count)), as: .access)
            return .allow(subject: token.subject, username: token.username ?? "?")
        } catch let error as CognitoTokenError {
            return .deny(reason: error.description)
        } catch {
            return .deny(reason: "\(error)")
        }
    }
}
