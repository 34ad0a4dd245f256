import Amplify
import ServiceLifecycle

/// Amplify as a swift-service-lifecycle `Service`: configured when the service is made, running
/// until the group shuts down gracefully, then shut down in order: transfers under way finish
/// (or are cancelled, per ``ShutdownPolicy``), Analytics flushes (what was recorded reaches its
/// target, or stays stored for the next run), the Hub delivers what was dispatched, and
/// `Amplify.reset()` closes every plugin and the event loop.
///
/// ```swift
/// Amplify.registerBuiltInPlugins()
/// let amplify = try AmplifyService()                 // Amplify.configure() from the file
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: amplify), .init(service: server)],   // the server stops first
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order, each after the one behind it has
/// returned: list `AmplifyService` before the services that use Amplify, so they stop first.
/// When the service's task is cancelled instead (the group's hard stop), it still shuts Amplify
/// down, with the transfers cancelled.
public struct AmplifyService: Service {
    /// What happens to work in flight at shutdown.
    public struct ShutdownPolicy: Sendable, Equatable {
        /// What happens to uploads and downloads under way.
        public enum Transfers: Sendable, Equatable {
            /// They may finish within this time; those still running then are cancelled.
            case finish(within: Duration)
            /// They are cancelled at once (their temporary files are removed).
            case cancel
        }

        /// What happens to transfers under way; default: they may finish within 30 s.
        public var transfers: Transfers
        /// How long the Analytics flush may take (a target that cannot be reached in time keeps
        /// its events stored for the next run); default 30 s.
        public var analyticsFlushTimeout: Duration

        /// A policy.
        public init(transfers: Transfers = .finish(within: .seconds(30)), analyticsFlushTimeout: Duration = .seconds(30)) {
            self.transfers = transfers
            self.analyticsFlushTimeout = analyticsFlushTimeout
        }
    }

    /// What happened at shutdown.
    public struct ShutdownReport: Sendable, Equatable {
        /// Transfers that were under way when the shutdown began.
        public var transfersInProgress = 0
        /// Transfers cancelled (all still under way with ``ShutdownPolicy/Transfers/cancel``;
        /// those past the time limit with ``ShutdownPolicy/Transfers/finish(within:)``).
        public var transfersCancelled = 0
        /// Whether the Analytics flush ended within its time limit.
        public var analyticsFlushed = true
    }

    /// The policy this service shuts down with.
    public let shutdownPolicy: ShutdownPolicy
    private let reports: @Sendable (ShutdownReport) -> Void

    /// Configures Amplify now, with `configuration` or, when it is `nil`, from the file
    /// `Amplify.configure()` finds (`$AMPLIFY_CONFIG`, then the working directory); the service
    /// shuts it down with `shutdownPolicy`. `onShutdown` receives what the shutdown did, once
    /// it is over.
    /// - Throws: what `Amplify.configure` throws (`ConfigurationError`, `PluginError`).
    public init(
        configuration: AmplifyConfiguration? = nil, shutdownPolicy: ShutdownPolicy = ShutdownPolicy(),
        onShutdown: @escaping @Sendable (ShutdownReport) -> Void = { _ in }
    ) throws {
        if let configuration { try Amplify.configure(configuration) } else { try Amplify.configure() }
        self.shutdownPolicy = shutdownPolicy
        reports = onShutdown
    }

    /// A service for Amplify as the caller configured it (`Amplify.configure` was called, or is
    /// called before the group runs); the service only shuts it down, with `shutdownPolicy`.
    public static func configured(
        shutdownPolicy: ShutdownPolicy = ShutdownPolicy(), onShutdown: @escaping @Sendable (ShutdownReport) -> Void = { _ in }
    ) -> AmplifyService {
        AmplifyService(shutdownPolicy: shutdownPolicy, reports: onShutdown)
    }

    private init(shutdownPolicy: ShutdownPolicy, reports: @escaping @Sendable (ShutdownReport) -> Void) {
        self.shutdownPolicy = shutdownPolicy
        self.reports = reports
    }

    /// Waits for the group's graceful shutdown (or the task's cancellation), then shuts Amplify
    /// down as the type's documentation says, and returns.
    public func run() async throws {
        let cancelled: Bool
        do {
            try await gracefulShutdown()
            cancelled = false
        } catch {
            cancelled = true
        }
        let policy = cancelled ? ShutdownPolicy(transfers: .cancel, analyticsFlushTimeout: shutdownPolicy.analyticsFlushTimeout) : shutdownPolicy
        // In a task of its own, so a cancelled service still sleeps and waits as it shuts down.
        let report = await Task { await Self.shutDown(policy) }.value
        reports(report)
    }

    /// Shuts Amplify down with `policy`: transfers, Analytics, the Hub, then `Amplify.reset()`.
    /// What ``run()`` does after the graceful shutdown; callable on its own.
    @discardableResult
    public static func shutDown(_ policy: ShutdownPolicy) async -> ShutdownReport {
        let log = Amplify.Logging.logger(forCategory: "Amplify")
        var report = ShutdownReport()
        report.transfersInProgress = Amplify.Storage.transfersInProgress
        log.log(
            level: .info, "Shutting down: \(report.transfersInProgress) transfer(s) under way",
            metadata: [LogMetadataKey.operation: "shutdown"])
        // Transfers first: what their completion records is flushed next.
        switch policy.transfers {
        case .finish(let limit):
            if !(await Amplify.Storage.waitForTransfers(timeout: limit)) {
                report.transfersCancelled = Amplify.Storage.transfersInProgress
                await Amplify.Storage.cancelTransfers()
            }
        case .cancel:
            report.transfersCancelled = report.transfersInProgress
            await Amplify.Storage.cancelTransfers()
        }
        report.analyticsFlushed = await finishes(within: policy.analyticsFlushTimeout) { await Amplify.Analytics.flushAndWait() }
        if !report.analyticsFlushed {
            log.log(
                level: .warn, "The Analytics flush did not end within \(policy.analyticsFlushTimeout); unsent events stay stored for the next run",
                metadata: [LogMetadataKey.operation: "shutdown"])
        }
        await Amplify.Hub.flush()
        await Amplify.reset()
        return report
    }

    /// Runs `work` in a task of its own; returns `true` when it ends within `limit`, `false`
    /// when the limit passes first (the work goes on, unawaited).
    private static func finishes(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let (outcomes, outcome) = AsyncStream<Bool>.makeStream()
        Task {
            await work()
            outcome.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            outcome.yield(false)
        }
        var first = outcomes.makeAsyncIterator()
        let ended = await first.next() ?? false
        timer.cancel()
        outcome.finish()
        return ended
    }
}
