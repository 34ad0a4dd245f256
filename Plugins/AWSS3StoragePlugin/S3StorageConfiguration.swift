import AWSPluginsCore
import Amplify
import AmplifyStorageCore

/// The `storage.plugins.awsS3StoragePlugin` block as the Amplify CLI writes it
/// (`{"bucket": "myapp-storage-dev", "region": "us-east-1", "defaultAccessLevel": "guest"}`;
/// the Gen 2 `storage` section is translated into it), plus optional keys of this package:
/// `endpoint` (an S3 stand-in; `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` also work),
/// `multipartThresholdBytes` (16 MiB: larger uploads go in parts), `partSizeBytes` (8 MiB, at
/// least 5 MiB), `concurrentParts` (4) and `http`, the time limits and retries of every S3 call
/// (`AWSClientOptions`; S3's defaults: connect within 10 s, at least 1 byte a second over 30 s,
/// 15 minutes per attempt, 3 attempts):
///
/// ```json
/// "http": {"connectTimeoutSeconds": 10, "lowSpeedLimitBytesPerSecond": 1, "lowSpeedTimeSeconds": 30,
///          "attemptTimeoutSeconds": 900, "maxAttempts": 3}
/// ```
///
/// Ranges (``Limits``), checked when the block is read: `partSizeBytes` 5 MiB to 5 GiB (S3's
/// part sizes), `multipartThresholdBytes` from `partSizeBytes` to 5 TiB (S3's largest object),
/// `concurrentParts` 1 to 32.
public struct S3StorageConfiguration: Sendable, Equatable {
    /// The accepted range of each numeric setting.
    public enum Limits {
        /// `partSizeBytes`: S3's smallest part (5 MiB) to its largest (5 GiB).
        public static let partSizeBytes: ClosedRange<Int> = (5 << 20)...(5 << 30)
        /// `multipartThresholdBytes` (and at least `partSizeBytes`): up to S3's largest object, 5 TiB.
        public static let multipartThresholdBytes: ClosedRange<Int> = (5 << 20)...(5 << 40)
        /// `concurrentParts`.
        public static let concurrentParts: ClosedRange<Int> = 1...32
    }

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
    /// Time limits and retries of every call (the block's `http` object).
    public var http: AWSClientOptions
    /// The named buckets (`buckets`, from a Gen 2 file's `storage.buckets`) and their access rules.
    public var buckets: StorageBucketTable

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
        partSizeBytes = try json.boundedInt("partSizeBytes", in: Limits.partSizeBytes, unit: "bytes") ?? 8 << 20
        multipartThresholdBytes =
            try json.boundedInt(
                "multipartThresholdBytes",
                in: max(partSizeBytes, Limits.multipartThresholdBytes.lowerBound)...Limits.multipartThresholdBytes.upperBound,
                unit: "bytes") ?? max(16 << 20, partSizeBytes)
        concurrentParts = try json.boundedInt("concurrentParts", in: Limits.concurrentParts) ?? 4
        http = try AWSClientOptions(json: json, defaults: .s3Defaults)
        buckets = try StorageBucketTable(json: json)
    }
}
