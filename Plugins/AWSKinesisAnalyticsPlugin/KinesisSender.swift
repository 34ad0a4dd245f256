import AWSPluginsCore
import Amplify
import AmplifyAnalyticsCore
import Foundation

/// Delivers batches with Kinesis `PutRecords` or Firehose `PutRecordBatch` (JSON 1.1, SigV4,
/// retried by ``AWSJSONClient``). Each record's data is the event as one JSON line (so Firehose's
/// S3 objects are JSON lines) carrying the record's queue `id`: delivery to a stream is at least
/// once (a batch accepted by the service but not yet deleted from the queue when the process dies
/// is sent again), so consumers drop repeats by `id`. A record the service fails in the answer (`ErrorCode`) is refused
/// and tried again at a later flush; a call that fails as a whole is not sent (tried again later
/// without counting an attempt), unless the service refused the request itself (a 4xx that is
/// neither throttling nor about credentials or the stream), which counts against every record.
struct KinesisSender: AnalyticsEventSender {
    let client: AWSJSONClient
    let configuration: KinesisConfiguration

    /// Codes that say "not now" or "not you" rather than "not this request".
    private static let notSentCodes: Set<String> = [
        "ResourceNotFoundException", "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
        "ExpiredTokenException", "KMSThrottlingException", "SignatureDoesNotMatch", "CredentialsNotFound",
    ]

    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] {
        var records: [JSONValue] = []
        for queued in batch {
            var entry: [String: JSONValue] = ["Data": .string(Data(queued.jsonLine()).base64EncodedString())]
            if configuration.target == .kinesis { entry["PartitionKey"] = .string(partitionKey(queued.record)) }
            records.append(.object(entry))
        }
        let (operation, body, resultsKey): (String, JSONValue, String) =
            switch configuration.target {
            case .kinesis: ("Kinesis_20131202.PutRecords", ["StreamName": .string(configuration.streamName), "Records": .array(records)], "Records")
            case .firehose:
                (
                    "Firehose_20150804.PutRecordBatch", ["DeliveryStreamName": .string(configuration.streamName), "Records": .array(records)],
                    "RequestResponses"
                )
            }
        do {
            let answer = try await client.call(operation, body)
            return Self.outcomes(answer[resultsKey]?.asArray ?? [], count: batch.count)
        } catch let error as AWSPluginsError {
            let reason = "\(operation) failed: \(error.errorDescription)"
            let requestRefused =
                (error.httpStatus.map { (400..<500).contains($0) } ?? false)
                && !RetryPolicy.throttlingCodes.contains(error.code) && !Self.notSentCodes.contains(error.code) && error.httpStatus != 429
            return batch.map { _ in requestRefused ? .rejected(reason) : .notSent(reason) }
        } catch {
            return batch.map { _ in .notSent("\(operation) failed: \(error)") }
        }
    }

    /// One outcome per record from the answer's per-record results (`Records` of PutRecords,
    /// `RequestResponses` of PutRecordBatch): an entry with `ErrorCode` is refused.
    static func outcomes(_ results: [JSONValue], count: Int) -> [RecordOutcome] {
        (0..<count).map { index in
            guard index < results.count else { return .rejected("the answer had no result for this record") }
            if let code = results[index]["ErrorCode"]?.stringValue {
                return .rejected("\(code): \(results[index]["ErrorMessage"]?.stringValue ?? "")")
            }
            return .accepted
        }
    }

    private func partitionKey(_ record: AnalyticsRecord) -> String {
        switch configuration.partitionKey {
        case .userId: record.userId ?? record.name
        case .eventName: record.name
        case .random: UUID().uuidString
        }
    }
}
