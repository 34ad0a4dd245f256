import Foundation

/// Where an AWS service is reached: an override from the configuration file, then
/// `AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`, then the service's public endpoint.
public enum AWSEndpoint {
    /// The endpoint of `service` (its endpoint prefix, e.g. `cognito-idp`, `s3`) in `region`.
    ///
    /// - Parameters:
    ///   - service: the service's endpoint prefix (`cognito-idp`, `s3`, `kinesis`).
    ///   - serviceId: the SDK service id used in the environment variable (`Cognito Identity
    ///     Provider` becomes `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`).
    ///   - region: the region of the public endpoint.
    ///   - configured: an endpoint from the configuration file (`CognitoUserPool.Default.Endpoint`).
    ///   - environment: where `AWS_ENDPOINT_URL*` are read (the process environment by default).
    /// - Throws: ``AWSPluginsError`` (`InvalidEndpoint`) for an override that is not an http(s) URL.
    public static func resolve(
        service: String, serviceId: String, region: String, configured: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        let variable = "AWS_ENDPOINT_URL_" + serviceId.uppercased().replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        for candidate in [configured, environment[variable], environment["AWS_ENDPOINT_URL"]] {
            guard let candidate, !candidate.isEmpty else { continue }
            guard let url = URL(string: candidate), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw AWSPluginsError(
                    code: "InvalidEndpoint", "The endpoint '\(candidate)' for \(service) is not an http(s) URL.",
                    "Write a URL such as https://cognito-idp.us-east-1.amazonaws.com or http://127.0.0.1:5000.")
            }
            return url
        }
        guard let url = URL(string: "https://\(service).\(region).amazonaws.com") else {
            throw AWSPluginsError(
                code: "InvalidEndpoint", "The region '\(region)' makes no valid host name.", "Check the region in the configuration.")
        }
        return url
    }
}
