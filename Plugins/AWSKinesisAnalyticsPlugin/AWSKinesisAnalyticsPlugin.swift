import AWSPluginsCore
import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
import AmplifyEventLoop
import Foundation

/// The Analytics plugin for AWS (key `awsKinesisAnalyticsPlugin`): events go into the durable
/// queue and flushes deliver them to Kinesis Data Streams (`PutRecords`) or Kinesis Data Firehose
/// (`PutRecordBatch`), signed with SigV4 with keys from the credentials provider chain. See
/// ``KinesisConfiguration`` for the block. (Amazon Pinpoint, amplify-swift's analytics
/// backend, reached end of support on 2026-10-30; a file that names `awsPinpointAnalyticsPlugin`
/// is refused with the block to write instead.)
public final class AWSKinesisAnalyticsPlugin: AnalyticsEngineProviding {
    /// The plugin's key in the configuration file.
    public static let pluginKey: PluginKey = "awsKinesisAnalyticsPlugin"

    /// `"awsKinesisAnalyticsPlugin"`.
    public var key: PluginKey { Self.pluginKey }
    private let engineSlot = Locked<AnalyticsEngine?>(nil)
    private let httpSlot = Locked<HTTPClient?>(nil)
    private let configurationSlot = Locked<KinesisConfiguration?>(nil)
    private let loop: EventLoop?
    private let hub: (any HubCategoryBehavior)?
    private let credentials: (any AWSCredentialsProvider)?

    /// A plugin on `loop` (the Amplify loop by default) signing with `credentials` (the default
    /// chain: environment, then `~/.aws` profiles, cached).
    public init(loop: EventLoop? = nil, credentials: (any AWSCredentialsProvider)? = nil, hub: (any HubCategoryBehavior)? = nil) {
        self.loop = loop
        self.credentials = credentials
        self.hub = hub
    }

    /// The engine; `nil` before `configure`.
    public var engine: AnalyticsEngine? { engineSlot.value }

    /// `kinesis:clicks` or `firehose:orders`.
    public var targetDescription: String {
        configurationSlot.value.map { "\($0.target.rawValue):\($0.streamName)" } ?? "(not configured)"
    }

    /// Reads the block, opens the queue, and starts the auto-flush timer.
    /// - Throws: `ConfigurationValueError` for a bad key, `AWSPluginsError` for a bad
    ///   endpoint, `AnalyticsError` when the queue's folder cannot be used.
    public func configure(using configuration: Any?) throws {
        let settings = try KinesisConfiguration(json: configuration as? JSONValue)
        let loop = try loop ?? Amplify.eventLoop()
        let service = settings.target == .kinesis ? ("kinesis", "Kinesis") : ("firehose", "Firehose")
        let endpoint = try AWSEndpoint.resolve(service: service.0, serviceId: service.1, region: settings.region, configured: settings.endpoint)
        let http = try HTTPClient(loop: loop)
        let client = AWSJSONClient(
            http: http, endpoint: endpoint, region: settings.region, signingName: service.0,
            credentials: credentials ?? AuthPluginCredentialsProvider.defaultChain(), options: settings.http)
        let engine = try AnalyticsEngine(
            queue: settings.queue.openQueue(), sender: KinesisSender(client: client, configuration: settings),
            batchSize: settings.queue.batchSize,
            autoFlushInterval: settings.queue.autoFlushEventsInterval > 0 ? .seconds(settings.queue.autoFlushEventsInterval) : nil, loop: loop,
            pluginKey: key,
            dispatch: AnalyticsEngine.dispatcher(hub))
        engineSlot.withLock { $0 = engine }
        httpSlot.withLock { $0 = http }
        configurationSlot.withLock { $0 = settings }
    }

    /// Stores what was recorded, stops the timer, closes the queue (unsent events stay for the
    /// next run) and the HTTP client.
    public func reset() async {
        let engine = engineSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        await engine?.close()
        let http = httpSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        await http?.shutdown()
    }
}
