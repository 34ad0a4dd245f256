import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyRedis
import CoreMetrics
import Foundation

/// The instances of one server behind a load balancer, sharing their held sessions in Redis:
/// make one per process and open each `AuthSessionStore` with it
/// (`AuthSessionStore(plugin:fleet:)`). Then every instance holds every user's session, exactly
/// one refreshes each (a lease per session, fenced), a session ended on one instance ends on all
/// (its tokens refused and every verified-token cache entry of it verified again), and the Auth
/// lifecycle events of held and request sessions are dispatched once, by the instance that saw
/// them, and relayed to the others with a `RemoteHubEvent` context.
///
/// See `Docs/Fleet.md`. Safe from any task.
public final class AuthFleet: Sendable {
    /// Where the fleet's Redis is and how it keeps the sessions.
    public struct Configuration: Sendable {
        /// Redis's host (default `127.0.0.1`).
        public var host: String
        /// Redis's port (default 6379).
        public var port: Int
        /// The ACL user (Redis 6), sent with ``password``.
        public var username: String?
        /// Sent with AUTH first on every connection, when set.
        public var password: String?
        /// The 32-byte AES-256-GCM key every instance seals the sessions' tokens with.
        public var encryptionKey: [UInt8]
        /// The prefix of the fleet's keys and channels (default `amplify:fleet`).
        public var prefix: String
        /// This instance's name in leases and notices (default: host name, process id and a random part).
        public var instance: String
        /// How long a refresh lease lasts without renewal (default 30 s): an instance that stops
        /// loses its leases after this long, and another refreshes its sessions.
        public var leaseDuration: Duration
        /// Whether Auth lifecycle events are relayed between instances (default `true`). Turn it
        /// off when a Hub bridge already carries the `auth` channel's lifecycle events.
        public var relayAuthEvents: Bool

        /// A configuration in code.
        /// - Throws: ``AuthFleetError`` when the key is not 32 bytes, the port is out of range,
        ///   or the lease is under a second.
        public init(
            host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil, encryptionKey: [UInt8],
            prefix: String = "amplify:fleet", instance: String? = nil, leaseDuration: Duration = .seconds(30), relayAuthEvents: Bool = true
        ) throws {
            guard encryptionKey.count == AESGCM.keyLength else {
                throw AuthFleetError(
                    "The fleet's encryption key is \(encryptionKey.count) bytes; AES-256-GCM needs 32. Make one with `openssl rand -base64 32`.")
            }
            guard (1...65535).contains(port) else { throw AuthFleetError("The fleet's Redis port \(port) is not between 1 and 65535.") }
            guard leaseDuration >= .seconds(1) else {
                throw AuthFleetError("The fleet's lease of \(leaseDuration) is too short: it must outlast a refresh (at least 1 second).")
            }
            guard !prefix.isEmpty else { throw AuthFleetError("The fleet's key prefix is empty.") }
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.encryptionKey = encryptionKey
            self.prefix = prefix
            self.instance = instance ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UUID().uuidString.prefix(8))"
            self.leaseDuration = leaseDuration
            self.relayAuthEvents = relayAuthEvents
        }

        /// A configuration from a Redis URL (`redis://[[user]:password@]host[:port]`) and the key
        /// in base64 (as `openssl rand -base64 32` prints it).
        /// - Throws: ``AuthFleetError`` for a URL or key that does not parse, `rediss://` (TLS
        ///   needs hiredis 1.0 with SSL, which this build does not link), or as the initializer.
        public init(url: String, encryptionKeyBase64: String, instance: String? = nil, leaseDuration: Duration = .seconds(30)) throws {
            guard let parsed = URLComponents(string: url), let scheme = parsed.scheme else {
                throw AuthFleetError("The fleet's Redis URL '\(PrintableText(url, limit: 80))' does not parse; write redis://host:port.")
            }
            guard scheme == "redis" else {
                throw AuthFleetError(
                    scheme == "rediss"
                        ? "The fleet's Redis URL asks for TLS (rediss://): this build's hiredis (0.14) has no TLS. Reach Redis over a private network or a TLS tunnel (stunnel) on 127.0.0.1."
                        : "The fleet's Redis URL has the scheme '\(PrintableText(scheme, limit: 20))'; write redis://host:port.")
            }
            guard let key = Data(base64Encoded: encryptionKeyBase64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw AuthFleetError("The fleet's encryption key is not base64; make one with `openssl rand -base64 32`.")
            }
            let password = parsed.password?.removingPercentEncoding
            let user = parsed.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
            try self.init(
                host: parsed.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: parsed.port ?? 6379,
                username: password == nil ? nil : user, password: password, encryptionKey: Array(key), instance: instance,
                leaseDuration: leaseDuration)
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let loop: EventLoop
    let client: RedisClient
    let hub: @Sendable () -> any HubCategoryBehavior
    let metrics: (any MetricsFactory)?

    /// A fleet member on `eventLoop` (default: Amplify's), relaying events through `hub` (default
    /// `Amplify.Hub`, looked up at each use), counting in `metrics` (default: the bootstrapped
    /// factory). Nothing connects before a store opens.
    /// - Throws: `EventLoopError` when Amplify's loop cannot start.
    public init(
        configuration: Configuration, eventLoop: EventLoop? = nil, hub: (any HubCategoryBehavior)? = nil, metrics: (any MetricsFactory)? = nil
    ) throws {
        self.configuration = configuration
        let loop = try eventLoop ?? Amplify.eventLoop()
        self.loop = loop
        client = RedisClient(host: configuration.host, port: configuration.port, loop: loop, credentials: configuration.credentials)
        if let hub {
            self.hub = { hub }
        } else {
            self.hub = { Amplify.Hub.plugin }
        }
        self.metrics = metrics
    }

    /// Commands sent on the stores' shared connection so far (one Redis round trip each; the
    /// notice connections' publishes are not among them).
    package var roundTrips: Int { client.commandsSent }

    /// Closes the connection the fleet's stores share (after the stores' `shutdown()`).
    public func close() async {
        await client.close()
    }

    /// The sharing of `plugin`'s sessions with the other instances (`renewingLeases` off: the
    /// leases it takes run out during a refresh, as a paused process's do; for tests).
    func sharing(for plugin: any AuthServerContextPlugin, renewingLeases: Bool = true) throws -> FleetSessionSharing {
        let tenant = try plugin.contextTenant().id
        let records = try FleetSessionRecords(
            client: client, key: configuration.encryptionKey, tenant: tenant, prefix: configuration.prefix, instance: configuration.instance)
        let notices = FleetNotices(
            host: configuration.host, port: configuration.port, loop: loop, channel: "\(configuration.prefix):notices:\(tenant)",
            credentials: configuration.credentials)
        return FleetSessionSharing(
            records: records, notices: notices, plugin: plugin, hub: hub, tenant: tenant, leaseDuration: configuration.leaseDuration,
            relayEvents: configuration.relayAuthEvents, renewingLeases: renewingLeases, metrics: metrics)
    }
}

extension AuthFleet.Configuration {
    var credentials: RedisCredentials? { password.map { RedisCredentials(username: username, password: $0) } }
}

extension AuthSessionStore {
    /// A store of `plugin`'s sessions shared with the other instances of `fleet` instead of a
    /// credential store file; `open()` loads the fleet's sessions and follows the others.
    /// - Throws: `AuthError.configuration(_:_:_:)` before the plugin is configured.
    public init(plugin: any AuthServerContextPlugin, fleet: AuthFleet, settings: Settings = Settings()) throws {
        try self.init(plugin: plugin, fleet: fleet, settings: settings, clock: { Date() })
    }

    /// ``init(plugin:fleet:settings:)`` timing refreshes by `clock` (a skewed one, in tests and
    /// the demo).
    package init(plugin: any AuthServerContextPlugin, fleet: AuthFleet, settings: Settings, clock: @escaping @Sendable () -> Date) throws {
        let loop = fleet.loop
        try self.init(
            plugin: plugin, credentialStorePath: nil, sharing: try fleet.sharing(for: plugin), settings: settings, eventLoop: { loop }, clock: clock)
    }
}

/// A fleet setting that cannot work, with what to change.
public struct AuthFleetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public let message: String
    /// The message.
    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
