import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// Held sessions shared by the instances of a fleet, in Redis: each session's tokens encrypted at
/// rest (AES-256-GCM under a key the application provides, bound to the tenant and user, so a
/// Redis dump holds no usable token and a record moved to another user does not open), and a
/// lease per session so that exactly one instance refreshes it.
///
/// A lease is `SET lease NX PX` with a fencing token from one counter (`INCR`), taken and checked
/// in one script each: ``acquireLease(for:duration:)`` (one round trip), ``renew(_:duration:)``,
/// ``write(_:under:)`` (the refreshed tokens, written only while the lease is still the writer's:
/// a stale instance whose lease expired and was taken is refused) and ``release(_:)``. A refresh
/// is therefore three round trips: acquire, write, release.
///
/// Keys, under `prefix` (default `amplify:fleet`): `<prefix>:session:<tenant>:<user>` (the sealed
/// record), `<prefix>:lease:<tenant>:<user>`, `<prefix>:fence`. Safe from any task.
package final class FleetSessionRecords: Sendable {
    /// A lease: who holds it and the fencing token it was granted with.
    package struct Lease: Sendable, Equatable {
        package let username: String
        package let fence: Int
        /// `<instance>:<fence>`, the lease key's value.
        let value: String
    }

    private let client: RedisClient
    private let key: [UInt8]
    private let prefix: String
    private let tenant: String
    /// This instance's id, in its leases.
    package let instance: String

    /// Records of `tenant`'s sessions on `client`, sealed with `key` (32 bytes).
    /// - Throws: `CryptoError` when the key is not 32 bytes.
    package init(client: RedisClient, key: [UInt8], tenant: String, prefix: String = "amplify:fleet", instance: String = UUID().uuidString) throws {
        guard key.count == AESGCM.keyLength else {
            throw CryptoError("fleet session records", "the encryption key is \(key.count) bytes; AES-256 needs \(AESGCM.keyLength)")
        }
        self.client = client
        self.key = key
        self.tenant = tenant
        self.prefix = prefix
        self.instance = instance
    }

    private func sessionKey(_ username: String) -> String { "\(prefix):session:\(tenant):\(username)" }
    private func leaseKey(_ username: String) -> String { "\(prefix):lease:\(tenant):\(username)" }
    private var fenceKey: String { "\(prefix):fence" }
    private func associatedData(_ username: String) -> [UInt8] { Array("\(tenant)\u{0}\(username)".utf8) }

    // MARK: Records

    /// Saves `session` (a sign-in: no lease needed, the record is new).
    /// - Throws: `RedisClientError`, `CryptoError`, or ``FleetRecordError`` for an error reply.
    package func save(_ session: StoredSession) async throws {
        let reply = try await client.command([Array("SET".utf8), Array(sessionKey(session.username).utf8), try seal(session)])
        guard reply == .status("OK") else { throw FleetRecordError(reply, "SET \(sessionKey(session.username))") }
    }

    /// The session saved for `username`, or `nil`.
    /// - Throws: `RedisClientError`, ``FleetRecordError`` for an error reply or a record that does
    ///   not open (another key, another user's record, changed bytes).
    package func load(_ username: String) async throws -> StoredSession? {
        let reply = try await client.command(["GET", sessionKey(username)])
        switch reply {
        case .null: return nil
        case .string(let text): return try open(text, username: username)
        default: throw FleetRecordError(reply, "GET \(sessionKey(username))")
        }
    }

    /// Forgets `username`'s session and its lease (a sign-out, a deletion, a refused refresh).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func remove(_ username: String) async throws {
        let reply = try await client.command(["DEL", sessionKey(username), leaseKey(username)])
        guard case .integer = reply else { throw FleetRecordError(reply, "DEL \(sessionKey(username))") }
    }

    // MARK: Leases

    private static let acquireScript = """
        local fence = redis.call('INCR', KEYS[2])
        if redis.call('SET', KEYS[1], ARGV[1] .. ':' .. fence, 'NX', 'PX', ARGV[2]) then return fence end
        return false
        """

    private static let renewScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return 0
        """

    private static let writeScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[2], ARGV[2]) return 1 end
        return 0
        """

    private static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// Takes the lease on `username`'s session for `duration`, unless another instance holds it.
    /// - Returns: the lease, or `nil` when it is held.
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func acquireLease(for username: String, duration: Duration) async throws -> Lease? {
        let reply = try await client.command(["EVAL", Self.acquireScript, "2", leaseKey(username), fenceKey, instance, milliseconds(duration)])
        switch reply {
        case .integer(let fence): return Lease(username: username, fence: fence, value: "\(instance):\(fence)")
        case .null: return nil
        default: throw FleetRecordError(reply, "taking the lease on \(username)")
        }
    }

    /// Extends `lease` by `duration` from now.
    /// - Returns: `false` when the lease is no longer this one (it expired, and maybe another
    ///   instance took it).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func renew(_ lease: Lease, duration: Duration) async throws -> Bool {
        let reply = try await client.command(["EVAL", Self.renewScript, "1", leaseKey(lease.username), lease.value, milliseconds(duration)])
        guard case .integer(let done) = reply else { throw FleetRecordError(reply, "renewing the lease on \(lease.username)") }
        return done == 1
    }

    /// Writes `session` (refreshed tokens) only while `lease` is still the lease on it.
    /// - Returns: `false` when the lease was lost: the write is refused (fencing), the record
    ///   keeps what the lease's new holder wrote.
    /// - Throws: `RedisClientError`, `CryptoError`, or ``FleetRecordError`` for an error reply.
    package func write(_ session: StoredSession, under lease: Lease) async throws -> Bool {
        let reply = try await client.command([
            Array("EVAL".utf8), Array(Self.writeScript.utf8), Array("2".utf8), Array(leaseKey(lease.username).utf8),
            Array(sessionKey(session.username).utf8), Array(lease.value.utf8), try seal(session),
        ])
        guard case .integer(let done) = reply else { throw FleetRecordError(reply, "writing \(session.username)'s refreshed session") }
        return done == 1
    }

    /// Gives `lease` up (only if it is still this one).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func release(_ lease: Lease) async throws {
        let reply = try await client.command(["EVAL", Self.releaseScript, "1", leaseKey(lease.username), lease.value])
        guard case .integer = reply else { throw FleetRecordError(reply, "releasing the lease on \(lease.username)") }
    }

    private func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(max(1, seconds.multipliedReportingOverflow(by: 1000).partialValue + attoseconds / 1_000_000_000_000_000))
    }

    // MARK: Sealing

    /// The session as base64 of `nonce ‖ AES-GCM(JSON) ‖ tag`, bound to the tenant and user.
    private func seal(_ session: StoredSession) throws -> [UInt8] {
        var members: [String: JSONValue] = [
            "username": .string(session.username), "userId": .string(session.userId), "idToken": .string(session.idToken),
            "accessToken": .string(session.accessToken), "refreshToken": .string(session.refreshToken),
            "accessTokenExpiresAt": .number(session.accessTokenExpiresAt.timeIntervalSince1970),
        ]
        if let end = session.refreshTokenExpiresAt { members["refreshTokenExpiresAt"] = .number(end.timeIntervalSince1970) }
        let sealed = try AESGCM.seal(try JSONValue.object(members).jsonBytes(), key: key, associatedData: associatedData(session.username))
        return Array(Base64URL.encode(sealed).utf8)
    }

    private func open(_ text: String, username: String) throws -> StoredSession {
        do {
            guard let sealed = Base64URL.decode(text) else { throw CryptoError("fleet session record", "it is not base64url") }
            let json = try JSONValue(parsing: try AESGCM.open(sealed, key: key, associatedData: associatedData(username)))
            guard let name = json["username"]?.stringValue, name == username, let userId = json["userId"]?.stringValue,
                let idToken = json["idToken"]?.stringValue, let accessToken = json["accessToken"]?.stringValue,
                let refreshToken = json["refreshToken"]?.stringValue, let expires = json["accessTokenExpiresAt"]?.doubleValue
            else { throw CryptoError("fleet session record", "it opened but is not a session") }
            return StoredSession(
                username: name, userId: userId, idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
                accessTokenExpiresAt: Date(timeIntervalSince1970: expires),
                refreshTokenExpiresAt: json["refreshTokenExpiresAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
        } catch {
            throw FleetRecordError(
                message:
                    "The session record of '\(username)' in Redis does not open (\(error)): another encryption key, another user's record, or changed bytes."
            )
        }
    }
}

/// Redis answered a fleet command with something other than its reply, or a record did not open.
package struct FleetRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package var description: String { message }

    package init(message: String) {
        self.message = message
    }

    init(_ reply: RedisReply, _ what: String) {
        message = "Redis answered \(what) with \(reply.errorMessage.map { "the error \($0)" } ?? "\(reply)")."
    }
}
