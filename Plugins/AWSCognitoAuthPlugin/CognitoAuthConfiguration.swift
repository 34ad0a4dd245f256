import AWSPluginsCore
import Amplify
import Foundation

/// The `awsCognitoAuthPlugin` block exactly as the Amplify CLI writes it (and as Amplify
/// translates the Gen 2 `auth` section of `amplify_outputs.json` into), plus three optional
/// server-side keys:
///
/// ```json
/// "awsCognitoAuthPlugin": {
///   "CognitoUserPool": {"Default": {"PoolId": "us-east-1_AbCdEfGhI", "AppClientId": "…",
///                                   "AppClientSecret": "…", "Region": "us-east-1",
///                                   "Endpoint": "http://127.0.0.1:5000"}},
///   "CredentialsProvider": {"CognitoIdentity": {"Default": {"PoolId": "us-east-1:…", "Region": "us-east-1"}}},
///   "Auth": {"Default": {"authenticationFlowType": "USER_SRP_AUTH",
///            "OAuth": {"WebDomain": "myapp.auth.us-east-1.amazoncognito.com", "AppClientId": "…",
///                      "SignInRedirectURI": "http://127.0.0.1:3000/callback",
///                      "SignOutRedirectURI": "http://127.0.0.1:3000/signout", "Scopes": ["openid", "email"]}}},
///   "credentialStore": ".amplify/credentials.sqlite",
///   "refreshLeadSeconds": 300,
///   "tokenIssuer": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI"
/// }
/// ```
/// `Endpoint` (or `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER` / `AWS_ENDPOINT_URL`) points the
/// plugin at a stand-in; `tokenIssuer` is the `iss` tokens must carry (default: AWS's issuer of
/// the pool, which the local stand-in also writes). Relative paths resolve against the
/// configuration file's folder. An `http` object sets the time limits and retries of every
/// Cognito call (`AWSClientOptions`; the JSON services' defaults: connect within 10 s, at least
/// 1 byte a second over 30 s, 30 s per attempt, 3 attempts), e.g.
/// `"http": {"connectTimeoutSeconds": 5, "attemptTimeoutSeconds": 10}`.
public struct CognitoAuthConfiguration: Sendable, Equatable {
    /// How `signIn` authenticates.
    public enum AuthenticationFlow: String, Sendable, Equatable, CaseIterable {
        /// Secure Remote Password: the password never leaves the process (the default).
        case userSRP = "USER_SRP_AUTH"
        /// The password goes to Cognito over TLS.
        case userPassword = "USER_PASSWORD_AUTH"
        /// Challenges of the pool's Lambda triggers, answered with `confirmSignIn`.
        case custom = "CUSTOM_AUTH"

        /// The same flow as amplify-swift's `AuthFlowType`.
        public var flowType: AuthFlowType {
            switch self {
            case .userSRP: .userSRP
            case .userPassword: .userPassword
            case .custom: .customWithoutSRP
            }
        }
    }

    /// The hosted UI (OAuth 2.0) settings.
    public struct OAuth: Sendable, Equatable {
        /// The Cognito domain, `myapp.auth.us-east-1.amazoncognito.com` (or a full URL for a stand-in).
        public var webDomain: String
        /// The app client of the hosted UI (usually the pool's).
        public var appClientId: String
        /// Where the hosted UI sends the browser back (a loopback URL for servers).
        public var signInRedirectURI: String
        /// Where the hosted UI goes after signing out.
        public var signOutRedirectURI: String?
        /// The scopes to ask for.
        public var scopes: [String]
    }

    /// Whether the block has a user pool. Without one (an identity pool only, for guest AWS
    /// credentials) the user pool fields below are empty and every user pool call fails with
    /// `AuthError.configuration(_:_:_:)`; `fetchAuthSession` still gives the identity id
    /// and AWS credentials.
    public var hasUserPool: Bool
    /// The user pool id, `us-east-1_AbCdEfGhI` (empty without a user pool).
    public var userPoolId: String
    /// The app client id (empty without a user pool).
    public var appClientId: String
    /// The app client's secret, when it has one (then every call carries `SECRET_HASH`).
    public var appClientSecret: String?
    /// The user pool's region (the identity pool's without a user pool).
    public var region: String
    /// What the block says that cannot work as written (a user pool id whose region is not the
    /// block's `Region`: calls go to `Region`, where the pool is not), by its key in the block.
    /// Nothing is changed; the plugin reports each as a configuration finding.
    public var warnings: [ConfigurationWarning] = []
    /// The Cognito Identity Provider endpoint (override or AWS's).
    public var userPoolEndpoint: URL
    /// The identity pool id, when the app has one.
    public var identityPoolId: String?
    /// The identity pool's region.
    public var identityPoolRegion: String
    /// The Cognito Identity endpoint (override or AWS's).
    public var identityEndpoint: URL
    /// The sign-in flow.
    public var authenticationFlow: AuthenticationFlow = .userSRP
    /// The hosted UI, when configured.
    public var oauth: OAuth?
    /// The shared credential store's file.
    public var credentialStorePath: String
    /// How long before the access token expires the timer refreshes it.
    public var refreshLead: TimeInterval = 300
    /// Time limits and retries of every Cognito call (the block's `http` object).
    public var http: AWSClientOptions = .jsonDefaults
    /// The `iss` the pool's tokens carry.
    public var tokenIssuer: String
    /// Where the pool's signing keys are published.
    public var jwksURL: URL
    /// The pool's groups by name, with their precedence when the file gives one (Gen 2 `auth.groups`).
    public var userPoolGroups: [String: Int?] = [:]
    /// The MFA methods the pool offers (`SMS`, `TOTP`, `EMAIL`; Gen 2 `auth.mfa_methods`).
    public var mfaMethods: [String] = []
    /// The passwordless settings (Gen 2 `auth.passwordless`: `email_otp_enabled`,
    /// `sms_otp_enabled`, `web_authn`, `preferred_challenge`), as the file has them.
    public var passwordless: JSONValue?
    /// The hosted UI's identity providers (`GOOGLE`, `FACEBOOK`, `SIGN_IN_WITH_APPLE`, `LOGIN_WITH_AMAZON`, or a SAML/OIDC name).
    public var identityProviders: [String] = []
    /// Whether guests get identity pool credentials (Gen 2 `unauthenticated_identities_enabled`,
    /// JS `allowGuestAccess`); `nil` when the file does not say.
    public var allowsGuestAccess: Bool?

    /// Whether `block` names a user pool or an identity pool. The Amplify CLI writes an
    /// `awsCognitoAuthPlugin` block for projects without Cognito too (an API-key-only project
    /// gets `UserAgent`, `Version`, an empty `IdentityManager` and `AppSync`), which names neither.
    public static func namesResources(_ block: JSONValue) -> Bool {
        func holdsSomething(_ value: JSONValue?) -> Bool {
            guard let value, !value.isNull else { return false }
            return value.asObject.map { !$0.isEmpty } ?? true
        }
        return holdsSomething(block.value(at: "CognitoUserPool.Default"))
            || holdsSomething(block.value(at: "CredentialsProvider.CognitoIdentity.Default"))
    }

    /// Reads the block.
    /// - Throws: `ConfigurationValueError` naming the missing or wrong key, or
    ///   `AWSPluginsError` (`InvalidEndpoint`) for an endpoint that is not an http(s) URL.
    public init(json: JSONValue?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let block = json, block.asObject != nil else {
            throw ConfigurationValueError(
                keyPath: "awsCognitoAuthPlugin", expected: "an object with CognitoUserPool.Default or CredentialsProvider.CognitoIdentity.Default",
                found: json)
        }
        let identity = Self.present(block.value(at: "CredentialsProvider.CognitoIdentity.Default"))
        identityPoolId = try identity?.optionalString("PoolId").flatMap { $0.isEmpty ? nil : $0 }
        // A block with only an identity pool (guest credentials) is what the CLI writes for apps
        // without sign-in; a user pool block, once present, must be whole.
        let poolBlock = Self.present(block.value(at: "CognitoUserPool.Default"))
        hasUserPool = poolBlock != nil || identityPoolId == nil
        let pool = hasUserPool ? try block.requiredObject("CognitoUserPool.Default") : JSONValue.object([:])
        if hasUserPool {
            userPoolId = try block.requiredString("CognitoUserPool.Default.PoolId")
            guard let underscore = userPoolId.firstIndex(of: "_"), underscore != userPoolId.startIndex,
                userPoolId.index(after: underscore) != userPoolId.endIndex
            else {
                throw ConfigurationValueError(
                    keyPath: "CognitoUserPool.Default.PoolId", expected: "a pool id such as us-east-1_AbCdEfGhI", found: .string(userPoolId))
            }
            appClientId = try block.requiredString("CognitoUserPool.Default.AppClientId")
            let poolRegion = String(userPoolId[..<underscore])
            region = try pool.optionalString("Region").flatMap { $0.isEmpty ? nil : $0 } ?? poolRegion
            if region != poolRegion {
                warnings.append(
                    ConfigurationWarning(
                        path: "CognitoUserPool.Default.Region",
                        message:
                            "the region is \(region), but the user pool \(userPoolId) is in \(poolRegion); calls go to \(region), where Cognito will not find the pool.",
                        suggestion: "Set the region to \(poolRegion), or check the pool id."))
            }
        } else {
            userPoolId = ""
            appClientId = ""
            region =
                try identity?.optionalString("Region").flatMap { $0.isEmpty ? nil : $0 }
                ?? identityPoolId.flatMap { $0.split(separator: ":").first.map(String.init) } ?? "us-east-1"
        }
        appClientSecret = try pool.optionalString("AppClientSecret").flatMap { $0.isEmpty ? nil : $0 }
        let poolEndpoint = try pool.optionalString("Endpoint").flatMap { $0.isEmpty ? nil : $0 }
        userPoolEndpoint = try AWSEndpoint.resolve(
            service: "cognito-idp", serviceId: "Cognito Identity Provider", region: region,
            configured: poolEndpoint, environment: environment)

        identityPoolRegion =
            try identity?.optionalString("Region").flatMap { $0.isEmpty ? nil : $0 }
            ?? identityPoolId.flatMap { $0.split(separator: ":").first.map(String.init) } ?? region
        identityEndpoint = try AWSEndpoint.resolve(
            service: "cognito-identity", serviceId: "Cognito Identity", region: identityPoolRegion,
            configured: try identity?.optionalString("Endpoint").flatMap { $0.isEmpty ? nil : $0 }, environment: environment)

        if let flow = try block.optionalString("Auth.Default.authenticationFlowType"), !flow.isEmpty {
            guard let parsed = AuthenticationFlow(rawValue: flow) else {
                throw ConfigurationValueError(
                    keyPath: "Auth.Default.authenticationFlowType",
                    expected: AuthenticationFlow.allCases.map(\.rawValue).joined(separator: ", "), found: .string(flow))
            }
            authenticationFlow = parsed
        }
        oauth = hasUserPool ? try Self.oauth(block, appClientId: appClientId) : nil

        credentialStorePath = Amplify.resolvePath(try block.optionalString("credentialStore") ?? ".amplify/credentials.sqlite")
        if let lead = try block.optionalDouble("refreshLeadSeconds") {
            guard lead >= 0, lead <= 86_400 else {
                throw ConfigurationValueError(keyPath: "refreshLeadSeconds", expected: "a number of seconds from 0 to 86400", found: .number(lead))
            }
            refreshLead = lead
        }
        http = try AWSClientOptions(json: block, defaults: .jsonDefaults)
        tokenIssuer = try block.optionalString("tokenIssuer") ?? "https://cognito-idp.\(region).amazonaws.com/\(userPoolId)"
        // Keys come from the endpoint in use: AWS's issuer URL, or the stand-in's path for the pool.
        let keysBase =
            poolEndpoint != nil || environment.keys.contains(where: { $0.hasPrefix("AWS_ENDPOINT_URL") })
            ? userPoolEndpoint.appendingPathComponent(userPoolId).absoluteString
            : tokenIssuer
        guard let keys = URL(string: keysBase + "/.well-known/jwks.json") else {
            throw ConfigurationValueError(keyPath: "tokenIssuer", expected: "a URL", found: .string(tokenIssuer))
        }
        jwksURL = keys
        try readGen2Extras(block.value(at: "AmplifyOutputs"))
        if allowsGuestAccess == nil,
            let guest = block.value(at: "AmplifyJS.allowGuestAccess") ?? block.value(at: "AmplifyJS.allowUnauthenticatedIdentities")
        {
            allowsGuestAccess = guest.booleanValue ?? guest.stringValue.map { $0.lowercased() == "true" }
        }
    }

    /// `nil` for an absent or `null` value (hand-edited files leave `"Default": null`).
    private static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, !value.isNull else { return nil }
        return value
    }

    /// Groups, MFA methods, passwordless and OAuth providers from a Gen 2 `auth` section.
    private mutating func readGen2Extras(_ outputs: JSONValue?) throws {
        guard let outputs, outputs.asObject != nil else { return }
        for (index, entry) in (outputs["groups"]?.asArray ?? []).enumerated() {
            for (name, settings) in entry.asObject ?? [:] {
                guard settings.asObject != nil || settings.isNull else {
                    throw ConfigurationValueError(
                        keyPath: "AmplifyOutputs.groups.\(index).\(name)", expected: "an object such as {\"precedence\": 0}", found: settings)
                }
                userPoolGroups.updateValue(try settings.optionalInt("precedence"), forKey: name)
            }
        }
        mfaMethods = (outputs["mfa_methods"]?.asArray ?? []).compactMap(\.stringValue)
        passwordless = Self.present(outputs["passwordless"])
        identityProviders = (outputs.value(at: "oauth.identity_providers")?.asArray ?? []).compactMap(\.stringValue)
        allowsGuestAccess = try outputs.optionalBool("unauthenticated_identities_enabled")
    }

    private static func oauth(_ block: JSONValue, appClientId: String) throws -> OAuth? {
        if let cli = block.value(at: "Auth.Default.OAuth"), cli.asObject != nil {
            return OAuth(
                webDomain: try cli.requiredString("WebDomain"), appClientId: try cli.optionalString("AppClientId") ?? appClientId,
                signInRedirectURI: try firstURI(cli, "SignInRedirectURI"), signOutRedirectURI: try? firstURI(cli, "SignOutRedirectURI"),
                scopes: try strings(cli, "Scopes") ?? ["openid"])
        }
        if let gen2 = block.value(at: "AmplifyOutputs.oauth"), gen2.asObject != nil {
            return OAuth(
                webDomain: try gen2.requiredString("domain"), appClientId: appClientId,
                signInRedirectURI: try firstURI(gen2, "redirect_sign_in_uri"), signOutRedirectURI: try? firstURI(gen2, "redirect_sign_out_uri"),
                scopes: try strings(gen2, "scopes") ?? ["openid"])
        }
        return nil
    }

    /// The first of a URI list the CLI writes comma-separated and Gen 2 as an array; a loopback
    /// one is preferred (a server receives the redirect itself).
    private static func firstURI(_ block: JSONValue, _ key: String) throws -> String {
        let candidates: [String]
        if let list = try strings(block, key) {
            candidates = list
        } else {
            candidates = try block.requiredString(key).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let loopback = candidates.first { $0.hasPrefix("http://127.0.0.1") || $0.hasPrefix("http://localhost") || $0.hasPrefix("http://[::1]") }
        guard let chosen = loopback ?? candidates.first, !chosen.isEmpty else {
            throw ConfigurationValueError(keyPath: key, expected: "a redirect URI", found: block[key])
        }
        return chosen
    }

    private static func strings(_ block: JSONValue, _ key: String) throws -> [String]? {
        guard let value = block[key] else { return nil }
        guard case .array(let items) = value else { return nil }
        return try items.map { item in
            guard let text = item.stringValue else { throw ConfigurationValueError(keyPath: key, expected: "an array of strings", found: value) }
            return text
        }
    }
}
