import AWSPluginsCore
import Amplify
import AmplifyAnalyticsCore
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@testable import AWSKinesisAnalyticsPlugin

@Suite("Kinesis and Firehose analytics plugin")
struct KinesisAnalyticsTests {
    private let keys = StaticCredentialsProvider(AWSCredentials(accessKeyId: "testing", secretAccessKey: "testing"))

    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("kinesis-analytics-\(UUID().uuidString)").path
    }

    private func names(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)))?["name"]?.stringValue
        }
    }

    /// A plugin on its own loop pointed at `moto`, recording `events` durably and flushing.
    private func recordAndFlush(_ moto: MotoServer, loop: EventLoop, block: JSONValue, events: [String]) async throws -> (
        AWSKinesisAnalyticsPlugin, FlushSummary
    ) {
        let plugin = AWSKinesisAnalyticsPlugin(loop: loop, credentials: keys, hub: DefaultHubPlugin(loop: loop))
        var settings = block.asObject ?? [:]
        settings["endpoint"] = .string(moto.endpoint.absoluteString)
        settings["directory"] = .string(folder())
        settings["autoFlushEventsInterval"] = 0
        try plugin.configure(using: JSONValue.object(settings))
        let engine = try #require(plugin.engine)
        plugin.identifyUser(userId: "user-7", userProfile: nil)
        for name in events { try await engine.recordDurably(BasicAnalyticsEvent(name: name, properties: ["n": 1])) }
        return (plugin, await engine.flush())
    }

    @Test("Kinesis: a flush puts every record on the stream, in order, as JSON lines with the user as partition key")
    func kinesisStream() async throws {
        try await MotoServer.with { moto in
            try moto.seed(["kinesisStreams": ["clicks"]])
            let loop = try EventLoop(name: "kinesis-test")
            let (plugin, summary) = try await recordAndFlush(
                moto, loop: loop, block: ["target": "kinesis", "streamName": "clicks"], events: ["a", "b", "c"])
            #expect(summary.sent == 3 && summary.waiting == 0 && summary.notSentReason == nil)
            #expect(plugin.targetDescription == "kinesis:clicks")

            let http = try HTTPClient(loop: loop)
            let kinesis = AWSJSONClient(http: http, endpoint: moto.endpoint, region: moto.region, signingName: "kinesis", credentials: keys)
            let shards = try await kinesis.call("Kinesis_20131202.ListShards", ["StreamName": "clicks"])
            let shard = try #require(shards["Shards"]?[0]?["ShardId"]?.stringValue)
            let iterator = try await kinesis.call(
                "Kinesis_20131202.GetShardIterator",
                [
                    "StreamName": "clicks", "ShardId": .string(shard), "ShardIteratorType": "TRIM_HORIZON",
                ])["ShardIterator"]?.stringValue
            let records =
                try await kinesis.call("Kinesis_20131202.GetRecords", ["ShardIterator": .string(try #require(iterator))])["Records"]?.asArray ?? []
            let data = records.compactMap { $0["Data"]?.stringValue.flatMap { Data(base64Encoded: $0) } }
            #expect(data.flatMap(names) == ["a", "b", "c"])
            #expect(records.compactMap { $0["PartitionKey"]?.stringValue } == ["user-7", "user-7", "user-7"])
            await plugin.reset()
            await http.shutdown()
            try loop.shutdown()
        }
    }

    @Test("Firehose: a flush writes every record into the delivery stream's S3 bucket; reading it back gives exactly what was recorded")
    func firehoseToS3() async throws {
        try await MotoServer.with { moto in
            try moto.seed(["firehoseStreams": [["name": "orders", "bucket": "orders-archive"]]])
            let loop = try EventLoop(name: "firehose-test")
            let events = (1...12).map { "order-\($0)" }
            let (plugin, summary) = try await recordAndFlush(
                moto, loop: loop, block: ["target": "firehose", "streamName": "orders", "batchSize": 5], events: events)
            #expect(summary.sent == 12 && summary.waiting == 0)

            let http = try HTTPClient(loop: loop)
            let bucket = try S3Addressing(bucket: "orders-archive", region: moto.region, configuredEndpoint: moto.endpoint.absoluteString)
            let s3 = AWSRESTClient(http: http, endpoint: bucket.endpoint, region: moto.region, credentials: keys)
            let listing = try await s3.sendForXML(AWSRESTRequest(method: "GET", path: bucket.bucketPath, query: [("list-type", "2")]))
            let objects = listing.children(named: "Contents").compactMap { $0.text(of: "Key") }
            #expect(objects.count == 3)
            var arrived: [String] = []
            for key in objects.sorted() {
                arrived += names(Data(try await s3.send(AWSRESTRequest(method: "GET", path: bucket.objectPath(key))).body))
            }
            #expect(arrived.sorted() == events.sorted())
            await plugin.reset()
            await http.shutdown()
            try loop.shutdown()
        }
    }

    @Test("a stream that does not exist leaves the events queued (not sent, no attempt counted) with the service's reason")
    func missingStream() async throws {
        try await MotoServer.with { moto in
            let loop = try EventLoop(name: "kinesis-missing")
            let (plugin, summary) = try await recordAndFlush(
                moto, loop: loop, block: ["target": "kinesis", "streamName": "nowhere"], events: ["lost?"])
            #expect(summary.sent == 0 && summary.waiting == 1 && summary.setAsideTotal == 0)
            #expect(summary.notSentReason?.contains("ResourceNotFoundException") == true)
            await plugin.reset()
            try loop.shutdown()
        }
    }

    @Test("per-record failures in an answer are refused (retried later); the others are accepted")
    func perRecordOutcomes() {
        let results: [JSONValue] = [
            ["SequenceNumber": "1", "ShardId": "shardId-0"],
            ["ErrorCode": "ProvisionedThroughputExceededException", "ErrorMessage": "Rate exceeded for shard"],
            ["RecordId": "abc"],
        ]
        #expect(
            KinesisSender.outcomes(results, count: 3) == [
                .accepted, .rejected("ProvisionedThroughputExceededException: Rate exceeded for shard"), .accepted,
            ])
        #expect(KinesisSender.outcomes([], count: 1) == [.rejected("the answer had no result for this record")])
    }

    @Test(
        "a bad block names the key",
        arguments: [
            (["target": "kinesis"] as JSONValue, "streamName"), (["streamName": "s", "target": "pinpoint"] as JSONValue, "target"),
            (["streamName": "s", "partitionKey": "shard"] as JSONValue, "partitionKey"),
            (["streamName": "s", "batchSize": 501] as JSONValue, "batchSize"),
        ] as [(JSONValue, String)])
    func badBlock(_ block: JSONValue, _ key: String) {
        #expect {
            try AWSKinesisAnalyticsPlugin().configure(using: block)
        } throws: { ($0 as? ConfigurationValueError)?.keyPath == key }
    }
}
