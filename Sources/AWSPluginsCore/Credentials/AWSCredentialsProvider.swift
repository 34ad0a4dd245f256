import Foundation

/// Something that supplies AWS credentials: static keys, the environment, a profile, or an
/// identity pool. Providers are asked from any task.
public protocol AWSCredentialsProvider: Sendable {
    /// Credentials to sign with now.
    /// - Throws: ``AWSPluginsError`` saying why there are none.
    func credentials() async throws -> AWSCredentials
}

/// Keys given in code.
public struct StaticCredentialsProvider: AWSCredentialsProvider {
    let value: AWSCredentials

    /// Always `credentials`.
    public init(_ credentials: AWSCredentials) {
        value = credentials
    }

    /// The keys.
    public func credentials() async throws -> AWSCredentials { value }
}

/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and (optionally) `AWS_SESSION_TOKEN`.
public struct EnvironmentCredentialsProvider: AWSCredentialsProvider {
    let environment: [String: String]

    /// Reads `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The keys from the environment.
    /// - Throws: ``AWSPluginsError`` (`CredentialsNotFound`) when either key is missing.
    public func credentials() async throws -> AWSCredentials {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw AWSPluginsError(
                code: "CredentialsNotFound", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set.",
                "Export both (and AWS_SESSION_TOKEN for temporary keys).")
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token)
    }
}

/// Asks each provider in turn and returns the first credentials one gives.
public struct CredentialsProviderChain: AWSCredentialsProvider {
    let providers: [any AWSCredentialsProvider]

    /// A chain of `providers`, asked in order.
    public init(_ providers: [any AWSCredentialsProvider]) {
        self.providers = providers
    }

    /// What server code expects: the environment, then the `AWS_PROFILE` (or default) profile of
    /// `~/.aws/credentials` and `~/.aws/config`.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> CredentialsProviderChain {
        CredentialsProviderChain([
            EnvironmentCredentialsProvider(environment: environment),
            ProfileCredentialsProvider(environment: environment),
        ])
    }

    /// The first provider's credentials.
    /// - Throws: ``AWSPluginsError`` listing why each provider had none.
    public func credentials() async throws -> AWSCredentials {
        var reasons: [String] = []
        for provider in providers {
            do {
                return try await provider.credentials()
            } catch let error as AWSPluginsError {
                reasons.append(error.errorDescription)
            } catch {
                reasons.append("\(error)")
            }
        }
        throw AWSPluginsError(
            code: "CredentialsNotFound", "No AWS credentials were found: \(reasons.joined(separator: " "))",
            "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or configure an identity pool.")
    }
}
