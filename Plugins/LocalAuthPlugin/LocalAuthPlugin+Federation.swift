import Amplify

/// amplify-swift's federation calls (methods of its Cognito plugin): the local pool has no identity
/// pool, so they say so.
extension LocalAuthPlugin {
    /// The local pool has no identity pool to federate to.
    /// - Throws: `AuthError.configuration`, always.
    public func federateToIdentityPool(
        withProviderToken token: String, for provider: AuthProvider, options: AuthFederateToIdentityPoolRequest.Options? = nil
    ) async throws -> Never {
        throw Self.noIdentityPool
    }

    /// The local pool has no identity pool to federate to.
    /// - Throws: `AuthError.configuration`, always.
    public func clearFederationToIdentityPool(options: AuthClearFederationToIdentityPoolRequest.Options? = nil) async throws -> Never {
        throw Self.noIdentityPool
    }

    private static var noIdentityPool: AuthError {
        AuthError.configuration(
            "The local auth plugin has no identity pool, so it cannot federate to one (federateToIdentityPool is a Cognito identity pool call).",
            "Use awsCognitoAuthPlugin with CredentialsProvider.CognitoIdentity.Default.PoolId to federate.")
    }
}
