import AWSPluginsCore
import Amplify
import Foundation

/// Where the plugin gets what each auth mode needs: AWS credentials, the signed-in user's user
/// pool token, and the application's OIDC and Lambda token providers.
struct APIAuthSources: Sendable {
    let credentials: any AWSCredentialsProvider
    /// The user pool access token; `true` forces a refresh.
    let userPoolToken: @Sendable (_ forceRefresh: Bool) async throws -> String
    let factory: APIAuthProviderFactory

    /// The token of the user signed in to `auth` (`Amplify.Auth` by default: the Cognito plugin's
    /// session), refreshed when its argument is `true`. The closure throws `APIError.pluginError`
    /// with the Auth error, or `APIError.operationError` when the session has no user pool tokens.
    static func userPoolToken(from auth: @escaping @Sendable () -> any AuthCategoryBehavior = { Amplify.Auth })
        -> @Sendable (Bool) async throws -> String
    {
        { forceRefresh in try await userPoolToken(of: auth(), forceRefresh: forceRefresh) }
    }

    private static func userPoolToken(of auth: any AuthCategoryBehavior, forceRefresh: Bool) async throws -> String {
        let session: any AuthSession
        do {
            session = try await auth.fetchAuthSession(options: forceRefresh ? .forceRefresh() : nil)
        } catch let error as any AmplifyError {
            throw APIError.pluginError(error)
        }
        guard let tokens = session as? any AuthUserPoolTokensSession else {
            throw APIError.operationError(
                "AMAZON_COGNITO_USER_POOLS needs a user pool token, and the Auth plugin's session (\(type(of: session))) has none.",
                "Add and configure the AWSCognitoAuthPlugin, or choose another authMode for the request.")
        }
        switch tokens.userPoolAccessToken {
        case .success(let token): return token
        case .failure(let error): throw APIError.pluginError(error)
        }
    }
}

/// What one request (or one real-time connection) is authorized with, fetched once and then
/// applied synchronously: to an HTTP request, to the real-time handshake, to each `start`.
struct PreparedAuthorization: Sendable {
    enum Material: Sendable {
        case none
        case apiKey(String)
        case token(String)
        case iam(AWSCredentials, region: String)
    }

    let mode: AWSAuthorizationType
    let material: Material
    /// `appsync` or `execute-api`.
    let service: String

    /// Gets what `mode` needs for `endpoint`; a `token` given by the caller (an Events call's
    /// `authToken`) is used as it is for the modes that send a token.
    /// - Throws: `APIError` saying what is missing (no API key, nobody signed in, no token
    ///   provider, no credentials).
    static func prepare(
        mode: AWSAuthorizationType, endpoint: APIEndpointConfiguration, sources: APIAuthSources, token: String? = nil, forceRefresh: Bool = false
    ) async throws -> PreparedAuthorization {
        let service = endpoint.endpointType == .rest ? "execute-api" : "appsync"
        if let token, [.amazonCognitoUserPools, .openIDConnect, .function].contains(mode) {
            return PreparedAuthorization(mode: mode, material: .token(token), service: service)
        }
        switch mode {
        case .none:
            return PreparedAuthorization(mode: mode, material: .none, service: service)
        case .apiKey:
            guard let key = endpoint.apiKey else {
                throw APIError.invalidConfiguration(
                    "The request uses API_KEY, and the API '\(endpoint.name)' has no apiKey in the configuration.",
                    "Set `api.plugins.awsAPIPlugin.\(endpoint.name).apiKey`, or choose another authMode.")
            }
            return PreparedAuthorization(mode: mode, material: .apiKey(key), service: service)
        case .amazonCognitoUserPools:
            let token = try await sources.userPoolToken(forceRefresh)
            return PreparedAuthorization(mode: mode, material: .token(token), service: service)
        case .openIDConnect, .function:
            let provider: (any AmplifyAuthTokenProvider)? =
                mode == .openIDConnect ? sources.factory.oidcAuthProvider() : sources.factory.functionAuthProvider()
            guard let provider else {
                let argument = mode == .openIDConnect ? "oidc" : "function"
                throw APIError.invalidConfiguration(
                    "The request uses \(mode.rawValue), and the plugin has no token provider for it.",
                    "Create the plugin with AWSAPIPlugin(apiAuthProviderFactory: APIAuthProviderFactory(\(argument): yourProvider)).")
            }
            do {
                return PreparedAuthorization(mode: mode, material: .token(try await provider.getLatestAuthToken()), service: service)
            } catch {
                throw APIError.operationError(
                    "The \(mode.rawValue) token provider failed: \(error)", "Check the provider the application gave the plugin.", error)
            }
        case .awsIAM:
            guard let region = endpoint.region else {
                throw APIError.invalidConfiguration(
                    "The request uses AWS_IAM, and the API '\(endpoint.name)' has no region.",
                    "Set `api.plugins.awsAPIPlugin.\(endpoint.name).region`.")
            }
            do {
                return PreparedAuthorization(
                    mode: mode, material: .iam(try await sources.credentials.credentials(), region: region), service: service)
            } catch let error as any AmplifyError {
                throw APIError.operationError(
                    "AWS_IAM needs AWS credentials, and none could be had: \(error.errorDescription)", error.recoverySuggestion, error)
            } catch {
                throw APIError.operationError(
                    "AWS_IAM needs AWS credentials, and none could be had: \(error)",
                    "Configure an identity pool, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile.", error)
            }
        }
    }

    /// Whether the mode signs the whole request (IAM); the others add at most ``plainHeader``.
    var signs: Bool {
        if case .iam = material { return true }
        return false
    }

    /// The one header a mode that signs nothing adds (`x-api-key` or `Authorization`); `nil` for
    /// `NONE` and for IAM.
    var plainHeader: (name: String, value: String)? {
        switch material {
        case .apiKey(let key): return ("x-api-key", key)
        case .token(let token): return ("Authorization", token)
        case .none, .iam: return nil
        }
    }

    /// Adds the mode's headers to `request` (for IAM: signs it, `body` included).
    func authorize(_ request: inout SignableRequest, body: [UInt8], date: Date? = nil) {
        if case .iam(let credentials, let region) = material {
            SigV4Signer(credentials: credentials, region: region, service: service).sign(&request, payload: .bytes(body), date: date ?? Date())
        } else if let header = plainHeader {
            request.setHeader(header.name, header.value)
        }
    }

    /// The authorization object of the real-time protocol for a request to `path` of `host`
    /// (`/graphql/connect` with `{}` for the handshake, `/graphql` with the `start`'s `data`):
    /// `{host, x-api-key}`, `{host, Authorization}`, or the SigV4 headers of that POST.
    func realtimeHeaders(host: String, path: String, body: [UInt8]) -> [String: String] {
        var request = SignableRequest(
            method: "POST", path: path,
            headers: [
                ("accept", "application/json, text/javascript"), ("content-encoding", "amz-1.0"),
                ("content-type", "application/json; charset=UTF-8"), ("host", host),
            ])
        switch material {
        case .none:
            return ["host": host]
        case .apiKey(let key):
            return ["host": host, "x-api-key": key]
        case .token(let token):
            return ["host": host, "Authorization": token]
        case .iam:
            authorize(&request, body: body)
            return Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }
}

extension URL {
    /// `host` or `host:port` as a `Host` header carries it (the port only when it is not the
    /// scheme's default).
    var hostHeader: String {
        let host = host ?? ""
        guard let port else { return host }
        let scheme = scheme?.lowercased()
        if (scheme == "https" || scheme == "wss") && port == 443 || (scheme == "http" || scheme == "ws") && port == 80 { return host }
        return "\(host):\(port)"
    }
}
