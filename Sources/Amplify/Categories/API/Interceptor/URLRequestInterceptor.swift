import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Changes a request before it is sent (amplify-swift's protocol): add or change headers, or the
/// URL. Added per API with `Amplify.API.add(interceptor:for:)`; interceptors run in the order
/// they were added, before the request is signed (so a header they add is signed too).
///
/// Differs from amplify-swift in one way Swift 6 requires: it refines `Sendable`.
public protocol URLRequestInterceptor: Sendable {
    /// The request to send instead of `request`.
    /// - Throws: any error; the call then fails with it (wrapped in an ``APIError``).
    func intercept(_ request: URLRequest) async throws -> URLRequest
}
