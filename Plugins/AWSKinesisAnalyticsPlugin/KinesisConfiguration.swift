import AWSPluginsCore
import Amplify
import AmplifyAnalyticsCore

/// The `analytics.plugins.awsKinesisAnalyticsPlugin` block:
///
/// ```json
/// {"target": "kinesis", "streamName": "clicks", "region": "us-east-1",
///  "partitionKey": "userId", "endpoint": "http://127.0.0.1:5000", "autoFlushEventsInterval": 60}
/// ```
///
/// `target` is `kinesis` (Kinesis Data Streams, PutRecords) or `firehose` (Kinesis Data
/// Firehose, PutRecordBatch). `partitionKey` (Kinesis only) is `userId` (the identified user,
/// falling back to the event name), `eventName`, or `random`. `endpoint` overrides the service
/// endpoint (as do `AWS_ENDPOINT_URL_KINESIS` / `AWS_ENDPOINT_URL_FIREHOSE` / `AWS_ENDPOINT_URL`).
/// The queue settings of `AnalyticsQueueSettings` apply too (`batchSize` at most 500). An `http`
/// object sets the time limits and retries of every call (`AWSClientOptions`; the JSON
/// services' defaults: connect within 10 s, at least 1 byte a second over 30 s, 30 s per attempt,
/// 3 attempts), e.g. `"http": {"attemptTimeoutSeconds": 10, "maxAttempts": 5}`.
public struct KinesisConfiguration: Sendable, Equatable {
    /// The delivery service.
    public enum Target: String, Sendable {
        /// Kinesis Data Streams.
        case kinesis
        /// Kinesis Data Firehose.
        case firehose
    }

    /// How Kinesis records are spread over shards.
    public enum PartitionKey: String, Sendable {
        /// The identified user (else the event name): one user's events stay in order.
        case userId
        /// The event's name.
        case eventName
        /// A random key: even spread, no order across records.
        case random
    }

    /// The service.
    public var target: Target
    /// The stream (Kinesis) or delivery stream (Firehose).
    public var streamName: String
    /// The region.
    public var region: String
    /// Kinesis partition key policy.
    public var partitionKey: PartitionKey
    /// An endpoint override.
    public var endpoint: String?
    /// Queue and flush settings.
    public var queue: AnalyticsQueueSettings
    /// Time limits and retries of every call (the block's `http` object).
    public var http: AWSClientOptions

    /// Reads the block.
    /// - Throws: `ConfigurationValueError` naming the key that is missing or wrong.
    public init(json: JSONValue?) throws(ConfigurationValueError) {
        guard let json, json.asObject != nil else {
            throw ConfigurationValueError(keyPath: "streamName", expected: "a non-empty string", found: nil)
        }
        let targetName = try json.optionalString("target") ?? "kinesis"
        guard let target = Target(rawValue: targetName) else {
            throw ConfigurationValueError(keyPath: "target", expected: "\"kinesis\" or \"firehose\"", found: .string(targetName))
        }
        self.target = target
        streamName = try json.requiredString("streamName")
        region = try json.optionalString("region") ?? "us-east-1"
        let keyName = try json.optionalString("partitionKey") ?? "userId"
        guard let partitionKey = PartitionKey(rawValue: keyName) else {
            throw ConfigurationValueError(keyPath: "partitionKey", expected: "\"userId\", \"eventName\" or \"random\"", found: .string(keyName))
        }
        self.partitionKey = partitionKey
        endpoint = try json.optionalString("endpoint")
        queue = try AnalyticsQueueSettings(json: json, defaultBatchSize: 500)
        guard queue.batchSize <= 500 else {
            throw ConfigurationValueError(
                keyPath: "batchSize", expected: "a whole number from 1 to 500 (the services' limit per call)", found: json["batchSize"])
        }
        http = try AWSClientOptions(json: json, defaults: .jsonDefaults)
    }
}
