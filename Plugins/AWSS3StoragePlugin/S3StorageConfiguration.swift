import Amplify

/// The `storage.plugins.awsS3StoragePlugin` block as the Amplify CLI writes it
/// (`{"bucket": "myapp-storage-dev", "region": "us-east-1", "defaultAccessLevel": "guest"}`;
/// the Gen 2 `storage` section is translated into it), plus optional keys of this package:
/// `endpoint` (an S3 stand-in; `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` also work),
/// `multipartThresholdBytes` (16 MiB: larger uploads go in parts), `partSizeBytes` (8 MiB, at
/// least 5 MiB) and `concurrentParts` (4).
public struct S3StorageConfiguration: Sendable, Equatable {
    /// The bucket.
    public var bucket: String
    /// Its region.
    public var region: String
    /// The CLI's default access level (kept for the summary; paths are given in full).
    public var defaultAccessLevel: String
    /// An endpoint override.
    public var endpoint: String?
    /// Uploads larger than this go in parts.
    public var multipartThresholdBytes: Int
    /// The size of each part but the last.
    public var partSizeBytes: Int
    /// Parts uploaded at once.
    public var concurrentParts: Int

    /// Reads the block.
    /// - Throws: `ConfigurationValueError` naming the key that is missing or wrong.
    public init(json: JSONValue?) throws(ConfigurationValueError) {
        guard let json, json.asObject != nil else {
            throw ConfigurationValueError(keyPath: "bucket", expected: "a non-empty string", found: nil)
        }
        bucket = try json.requiredString("bucket")
        region = try json.requiredString("region")
        defaultAccessLevel = try json.optionalString("defaultAccessLevel") ?? "guest"
        endpoint = try json.optionalString("endpoint")
        multipartThresholdBytes = try json.optionalInt("multipartThresholdBytes") ?? 16 << 20
        partSizeBytes = try json.optionalInt("partSizeBytes") ?? 8 << 20
        concurrentParts = try json.optionalInt("concurrentParts") ?? 4
        guard partSizeBytes >= 5 << 20 else {
            throw ConfigurationValueError(keyPath: "partSizeBytes", expected: "at least 5242880 (S3's smallest part)", found: .number(Double(partSizeBytes)))
        }
        guard multipartThresholdBytes >= partSizeBytes else {
            throw ConfigurationValueError(keyPath: "multipartThresholdBytes", expected: "at least partSizeBytes", found: .number(Double(multipartThresholdBytes)))
        }
        guard (1...32).contains(concurrentParts) else {
            throw ConfigurationValueError(keyPath: "concurrentParts", expected: "1 to 32", found: .number(Double(concurrentParts)))
        }
    }
}
