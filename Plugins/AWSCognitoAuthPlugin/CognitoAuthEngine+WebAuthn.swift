import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import Foundation

/// A WebAuthn credential Cognito keeps for the user (ListWebAuthnCredentials).
public struct AWSWebAuthnCredential: AuthWebAuthnCredential, Equatable {
    /// The credential's id.
    public let credentialId: String
    /// When it was registered.
    public let createdAt: Date
    /// The relying party (the app's domain).
    public let relyingPartyId: String
    /// The name the user gave it.
    public let friendlyName: String?
    /// `platform` or `cross-platform`, when Cognito says.
    public let authenticatorAttachment: String?
    /// How the authenticator is reached (`usb`, `nfc`, `ble`, `internal`, `hybrid`).
    public let authenticatorTransports: [String]
}

/// WebAuthn credential management on Cognito: ListWebAuthnCredentials (`MaxResults`,
/// `NextToken`) and DeleteWebAuthnCredential with the access token.
extension CognitoAuthEngine: AuthWebAuthnEngine {
    /// One page of ListWebAuthnCredentials.
    public func listWebAuthnCredentials(pageSize: Int, nextToken: String?) async throws -> AuthListWebAuthnCredentialsResult {
        let service = service
        let answer = try await withAccessToken { token in
            var body: [String: JSONValue] = ["AccessToken": .string(token), "MaxResults": .number(Double(pageSize))]
            body["NextToken"] = nextToken.map(JSONValue.string)
            return try await service.call("ListWebAuthnCredentials", body)
        }
        let credentials = (answer["Credentials"]?.asArray ?? []).compactMap { item -> AWSWebAuthnCredential? in
            guard let id = item["CredentialId"]?.stringValue else { return nil }
            return AWSWebAuthnCredential(
                credentialId: id, createdAt: Date(timeIntervalSince1970: item["CreatedAt"]?.doubleValue ?? 0),
                relyingPartyId: item["RelyingPartyId"]?.stringValue ?? "", friendlyName: item["FriendlyCredentialName"]?.stringValue,
                authenticatorAttachment: item["AuthenticatorAttachment"]?.stringValue,
                authenticatorTransports: (item["AuthenticatorTransports"]?.asArray ?? []).compactMap(\.stringValue))
        }
        return AuthListWebAuthnCredentialsResult(credentials: credentials, nextToken: answer["NextToken"]?.stringValue)
    }

    /// DeleteWebAuthnCredential. Cognito's `ResourceNotFoundException` here means the credential:
    /// a service error saying so.
    public func deleteWebAuthnCredential(credentialId: String) async throws {
        let service = service
        do {
            _ = try await withAccessToken {
                try await service.call("DeleteWebAuthnCredential", ["AccessToken": .string($0), "CredentialId": .string(credentialId)])
            }
        } catch AuthError.configuration(let description, _, let underlying as AWSCognitoAuthError) where underlying == .resourceNotFound {
            throw AuthError.service(
                description, "The credential does not exist (any more): call listWebAuthnCredentials() for the user's.", underlying)
        }
    }
}
