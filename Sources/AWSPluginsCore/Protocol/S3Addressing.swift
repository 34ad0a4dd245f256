import Foundation

/// Where an S3 bucket's objects are addressed: virtual-hosted style
/// (`https://bucket.s3.region.amazonaws.com/key`) against AWS, path style
/// (`http://127.0.0.1:5000/bucket/key`) when an endpoint override is set or the bucket name has a
/// dot (which a TLS wildcard certificate does not cover).
public struct S3Addressing: Sendable, Equatable {
    /// The bucket.
    public let bucket: String
    /// What ``AWSRESTClient/endpoint`` must be.
    public let endpoint: URL
    /// Whether object paths start with `/bucket`.
    public let pathStyle: Bool

    /// The addressing of `bucket` in `region`, through `override` (from the configuration or
    /// `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`) when there is one.
    ///
    /// - Throws: ``AWSPluginsError`` (`InvalidEndpoint`) for an override that is not an http(s)
    ///   URL, or (`InvalidBucketName`) for a bucket name S3 would refuse.
    public init(
        bucket: String, region: String, configuredEndpoint: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard (3...63).contains(bucket.count), bucket.allSatisfy(allowed.contains),
            bucket.first != "." && bucket.first != "-", bucket.last != "." && bucket.last != "-"
        else {
            throw AWSPluginsError(
                code: "InvalidBucketName", "'\(bucket)' is not a valid S3 bucket name.",
                "Bucket names have 3 to 63 lowercase letters, digits, dots and hyphens, and start and end with a letter or digit.")
        }
        self.bucket = bucket
        let standard = try AWSEndpoint.resolve(
            service: "s3", serviceId: "S3", region: region, configured: configuredEndpoint, environment: environment)
        let overridden = standard.host != "s3.\(region).amazonaws.com"
        if overridden || bucket.contains(".") {
            endpoint = standard
            pathStyle = true
        } else {
            guard let virtual = URL(string: "https://\(bucket).s3.\(region).amazonaws.com") else {
                throw AWSPluginsError(
                    code: "InvalidEndpoint", "The region '\(region)' makes no valid host name.", "Check the region in the configuration.")
            }
            endpoint = virtual
            pathStyle = false
        }
    }

    /// The wire path of the object `key` (each segment percent-encoded, slashes kept).
    public func objectPath(_ key: String) -> String {
        (pathStyle ? "/\(bucket)/" : "/") + URIEncoding.encode(key, keepingSlashes: true)
    }

    /// The wire path of the bucket itself (for ListObjectsV2).
    public var bucketPath: String {
        pathStyle ? "/\(bucket)" : "/"
    }
}
