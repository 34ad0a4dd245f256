import Amplify
import Foundation

/// Temporary AWS credentials from a Cognito identity pool: `GetId` once, then
/// `GetCredentialsForIdentity`, as a guest or, with `logins`, as the signed-in user (the user
/// pool's ID token under `cognito-idp.<region>.amazonaws.com/<poolId>`). Both calls are public
/// (unsigned). Credentials are reused until five minutes before they expire, as long as the logins
/// are the same (a sign-in or sign-out fetches new ones).
public actor CognitoIdentityCredentialsProvider: AWSCredentialsProvider {
    private let client: AWSJSONClient
    private let identityPoolId: String
    private let logins: @Sendable () async throws -> [String: String]
    private var identityId: String?
    private var identityLogins: [String: String] = [:]
    private var cached: AWSCredentials?
    private var presetIdentityId: String?

    /// A provider for `identityPoolId` calling Cognito Identity through `client`.
    /// - Parameters:
    ///   - client: the Cognito Identity JSON client (its endpoint and region).
    ///   - identityPoolId: the identity pool, `us-east-1:…`.
    ///   - logins: the identity providers' tokens to present (none for a guest); asked on every
    ///     refresh, so a refreshed ID token is used.
    ///   - identityId: an identity id the backend already has (a developer-provided one): used
    ///     as it is, without `GetId`, for as long as the logins stay the same.
    public init(
        client: AWSJSONClient, identityPoolId: String, identityId: String? = nil,
        logins: @escaping @Sendable () async throws -> [String: String] = { [:] }
    ) {
        self.client = client
        self.identityPoolId = identityPoolId
        self.logins = logins
        presetIdentityId = identityId
    }

    /// The identity id, once one was obtained.
    public var currentIdentityId: String? { identityId }

    /// New temporary credentials for the pool's identity.
    /// - Throws: ``AWSPluginsError`` with the service's code (`NotAuthorizedException` for a
    ///   pool without guest access, `ResourceNotFoundException` for a wrong pool id), or a
    ///   transport error.
    public func credentials() async throws -> AWSCredentials {
        let tokens = try await logins()
        if let cached, tokens == identityLogins, let expiry = cached.expiration, expiry.timeIntervalSinceNow > 300 {
            return cached
        }
        if identityId == nil, let preset = presetIdentityId {
            identityId = preset
            identityLogins = tokens
            presetIdentityId = nil
        }
        if identityId == nil || tokens != identityLogins {
            var body: [String: JSONValue] = ["IdentityPoolId": .string(identityPoolId)]
            if !tokens.isEmpty { body["Logins"] = .object(tokens.mapValues(JSONValue.string)) }
            let answer = try await client.call("AWSCognitoIdentityService.GetId", .object(body), signed: false)
            guard let id = answer["IdentityId"]?.stringValue else {
                throw AWSPluginsError(
                    code: "InvalidResponse", "GetId answered without an IdentityId.", "Check the identity pool id and the endpoint.")
            }
            identityId = id
            identityLogins = tokens
        }
        var body: [String: JSONValue] = ["IdentityId": .string(identityId ?? "")]
        if !tokens.isEmpty { body["Logins"] = .object(tokens.mapValues(JSONValue.string)) }
        let answer = try await client.call("AWSCognitoIdentityService.GetCredentialsForIdentity", .object(body), signed: false)
        guard let keys = answer["Credentials"], let accessKey = keys["AccessKeyId"]?.stringValue,
            let secret = keys["SecretKey"]?.stringValue
        else {
            throw AWSPluginsError(
                code: "InvalidResponse", "GetCredentialsForIdentity answered without credentials.", "Check the identity pool's roles.")
        }
        let fresh = AWSCredentials(
            accessKeyId: accessKey, secretAccessKey: secret, sessionToken: keys["SessionToken"]?.stringValue,
            expiration: keys["Expiration"]?.doubleValue.map { Date(timeIntervalSince1970: $0) })
        cached = fresh
        return fresh
    }
}
