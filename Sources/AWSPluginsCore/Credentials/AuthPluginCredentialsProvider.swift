import Amplify

/// An Auth plugin that hands out AWS credentials from an identity pool (the Cognito plugin):
/// the AWS plugins (S3, Kinesis) ask it before the environment and profile.
public protocol AWSAuthCredentialsSource: AuthCategoryPlugin {
    /// The identity pool's credentials provider (authenticated when a user is signed in, guest
    /// otherwise).
    /// - Throws: `AuthError.configuration` when the plugin has no identity pool.
    func awsCredentialsProvider() async throws -> any AWSCredentialsProvider

    /// The identity id the credentials belong to (`protected/{identityId}/` paths).
    /// - Throws: `AuthError` when it cannot be obtained.
    func identityId() async throws -> String
}

/// Credentials from whichever configured Auth plugin is an ``AWSAuthCredentialsSource`` with an
/// identity pool, asked on every call (so a sign-in switches from guest to user credentials).
public struct AuthPluginCredentialsProvider: AWSCredentialsProvider {
    private let plugins: @Sendable () -> [any AuthCategoryPlugin]

    /// A provider reading `Amplify.Auth`'s plugins (or those `plugins` returns); inside a server
    /// context, only the context's plugin (its pool's identity for the context's user).
    public init(plugins: @escaping @Sendable () -> [any AuthCategoryPlugin] = { AuthPluginCredentialsProvider.currentPlugins }) {
        self.plugins = plugins
    }

    /// The identity pool's credentials.
    /// - Throws: ``AWSPluginsError`` (`CredentialsNotFound`) when no Auth plugin has an identity
    ///   pool, or what the identity pool answered.
    public func credentials() async throws -> AWSCredentials {
        let (credentials, reasons) = try await Self.firstIdentityPool(in: plugins()) { try await $0.awsCredentialsProvider().credentials() }
        if let credentials { return credentials }
        throw AWSPluginsError(
            code: "CredentialsNotFound", "No Auth plugin has an identity pool. \(reasons.joined(separator: " "))",
            "Configure CredentialsProvider.CognitoIdentity.Default in the awsCognitoAuthPlugin block.")
    }

    /// What the AWS plugins sign with by default: the Auth plugin's identity pool, then the
    /// environment, then the `AWS_PROFILE` (or default) profile (those two cached until expiry).
    public static func defaultChain() -> CredentialsProviderChain {
        CredentialsProviderChain([AuthPluginCredentialsProvider(), CachingCredentialsProvider(CredentialsProviderChain.default())])
    }

    /// The identity id `.fromIdentityID` storage paths are built from: the identity pool's, when an
    /// Auth plugin has one, otherwise the signed-in user's id (inside a server context, the
    /// context's plugin and user).
    /// - Throws: what the Auth plugin throws (`AuthError.signedOut` when nobody is signed in).
    public static func identityId() async throws -> String {
        let (identityId, _) = try await firstIdentityPool(in: currentPlugins) { try await $0.identityId() }
        if let identityId { return identityId }
        return try await Amplify.Auth.getCurrentUser().userId
    }

    /// The Auth plugins to ask: the server context's when the current task runs in one, every
    /// added one otherwise.
    public static var currentPlugins: [any AuthCategoryPlugin] {
        if let context = AuthCategory.serverContext { return [context.plugin] }
        return Amplify.Auth.addedPlugins
    }

    /// What `ask` answers for the first of `plugins` that is a credentials source with an identity
    /// pool; a source without one (`AuthError.configuration`) is skipped and its reason kept.
    /// - Throws: any other error of `ask`.
    private static func firstIdentityPool<T>(
        in plugins: [any AuthCategoryPlugin], _ ask: (any AWSAuthCredentialsSource) async throws -> T
    ) async throws -> (T?, [String]) {
        var reasons: [String] = []
        for source in plugins.compactMap({ $0 as? any AWSAuthCredentialsSource }) {
            do {
                return (try await ask(source), reasons)
            } catch let error as AuthError {
                guard case .configuration = error else { throw error }
                reasons.append(error.errorDescription)
            }
        }
        return (nil, reasons)
    }
}
