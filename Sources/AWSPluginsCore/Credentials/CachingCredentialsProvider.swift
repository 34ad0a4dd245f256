import Foundation

/// Keeps another provider's temporary credentials until shortly before they expire, and asks
/// for new ones once, however many callers need them at that moment.
public actor CachingCredentialsProvider: AWSCredentialsProvider {
    private let base: any AWSCredentialsProvider
    private let refreshMargin: TimeInterval
    private var cached: AWSCredentials?
    private var fetching: Task<AWSCredentials, any Error>?

    /// Caches `base`'s credentials, renewing them `refreshMargin` seconds before they expire.
    public init(_ base: any AWSCredentialsProvider, refreshMargin: TimeInterval = 300) {
        self.base = base
        self.refreshMargin = refreshMargin
    }

    /// Cached credentials, or fresh ones when they are (nearly) expired.
    /// - Throws: what the underlying provider throws.
    public func credentials() async throws -> AWSCredentials {
        if let cached, cached.expiration.map({ $0.timeIntervalSinceNow > refreshMargin }) ?? true { return cached }
        if let fetching { return try await fetching.value }
        let task = Task { [base] in try await base.credentials() }
        fetching = task
        defer { fetching = nil }
        let fresh = try await task.value
        cached = fresh
        return fresh
    }
}
