import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyRedis
import Foundation

/// Held sessions shared by the instances of a fleet, in Redis: each session's tokens encrypted at
/// rest (AES-256-GCM under a key the application provides, bound to the tenant and user, so a
/// Redis dump holds no usable token and a record moved to another user does not open), a version
/// per record, and a lease per session so that exactly one instance refreshes it.
///
/// A record is `<version>.<sealed>`; an ended session leaves the tombstone `ended` for
/// `tombstoneLifetime`, so that a record missing (Redis restarted without its data) is told apart
/// from a session that ended. A refresh is two round trips, each one script:
/// ``claim(_:knownVersion:leaseDuration:)`` (read the record and, unless another instance wrote a
/// newer version or holds the lease, take the lease with a fencing token from one counter) and
/// ``write(_:under:after:)`` (the new tokens, written only while the lease is still the writer's — a
/// stale instance whose lease expired and was taken is refused — and the lease given back).
///
/// Keys, under `prefix` (default `amplify:fleet`): `<prefix>:session:<tenant>:<user>`,
/// `<prefix>:lease:<tenant>:<user>`, `<prefix>:fence`. Safe from any task.
package final class FleetSessionRecords: Sendable {
    /// A lease: who holds it and the fencing token it was granted with.
    package struct Lease: Sendable, Equatable {
        package let username: String
        package let fence: Int
        /// `<instance>:<fence>`, the lease key's value.
        let value: String
    }

    /// A record read from Redis: the session and its version.
    package struct Record: Sendable, Equatable {
        package let session: StoredSession
        package let version: Int
    }

    /// What ``claim(_:knownVersion:leaseDuration:)`` found.
    package enum Claim: Sendable, Equatable {
        /// The lease is this instance's: refresh `record`'s tokens and ``write(_:under:after:)`` them.
        case acquired(Lease, Record)
        /// Another instance wrote a newer version: take it.
        case newer(Record)
        /// Another instance holds the lease (is refreshing now).
        case held
        /// The session ended (the tombstone).
        case ended
        /// There is no record (never saved, or Redis lost it).
        case missing
    }

    private let client: RedisClient
    private let key: [UInt8]
    private let prefix: String
    private let tenant: String
    private let tombstoneLifetime: Duration
    /// This instance's id, in its leases.
    package let instance: String

    /// Records of `tenant`'s sessions on `client`, sealed with `key` (32 bytes); an ended session's
    /// tombstone is kept for `tombstoneLifetime` (default 30 days, Cognito's default refresh-token
    /// lifetime).
    /// - Throws: `CryptoError` when the key is not 32 bytes.
    package init(
        client: RedisClient, key: [UInt8], tenant: String, prefix: String = "amplify:fleet", instance: String = UUID().uuidString,
        tombstoneLifetime: Duration = .seconds(30 * 24 * 3600)
    ) throws {
        guard key.count == AESGCM.keyLength else {
            throw CryptoError("fleet session records", "the encryption key is \(key.count) bytes; AES-256 needs \(AESGCM.keyLength)")
        }
        self.client = client
        self.key = key
        self.tenant = tenant
        self.prefix = prefix
        self.instance = instance
        self.tombstoneLifetime = tombstoneLifetime
    }

    private func sessionKey(_ username: String) -> String { "\(prefix):session:\(tenant):\(username)" }
    private func leaseKey(_ username: String) -> String { "\(prefix):lease:\(tenant):\(username)" }
    private var fenceKey: String { "\(prefix):fence" }
    private func associatedData(_ username: String) -> [UInt8] { Array("\(tenant)\u{0}\(username)".utf8) }

    // MARK: Records

    private static let saveScript = """
        local record = redis.call('GET', KEYS[1])
        local version = 0
        if record and record ~= 'ended' then version = tonumber(string.match(record, '^(%d+)%.')) or 0 end
        redis.call('SET', KEYS[1], (version + 1) .. '.' .. ARGV[1])
        return version + 1
        """

    /// Saves `session` (a sign-in), replacing an ended session's tombstone.
    /// - Returns: the record's version.
    /// - Throws: `RedisClientError`, `CryptoError`, or ``FleetRecordError`` for an error reply.
    @discardableResult
    package func save(_ session: StoredSession) async throws -> Int {
        let reply = try await client.command([
            Array("EVAL".utf8), Array(Self.saveScript.utf8), Array("1".utf8), Array(sessionKey(session.username).utf8), try seal(session),
        ])
        guard case .integer(let version) = reply else { throw FleetRecordError(reply, "SET \(sessionKey(session.username))") }
        return version
    }

    private static let restoreScript = """
        local record = redis.call('GET', KEYS[1])
        if record == 'ended' then return 0 end
        if record then
            local version = tonumber(string.match(record, '^(%d+)%.'))
            if version and version >= tonumber(ARGV[1]) then return 0 end
        end
        redis.call('SET', KEYS[1], ARGV[1] .. '.' .. ARGV[2])
        return 1
        """

    /// Saves `session` at `version` unless Redis holds that version or a newer one, or a
    /// tombstone (after Redis lost its data, instances save their copies again and the newest
    /// wins, whatever order they come in).
    /// - Returns: whether it was saved.
    /// - Throws: `RedisClientError`, `CryptoError`, or ``FleetRecordError`` for an error reply.
    @discardableResult
    package func restore(_ session: StoredSession, version: Int) async throws -> Bool {
        let reply = try await client.command([
            Array("EVAL".utf8), Array(Self.restoreScript.utf8), Array("1".utf8), Array(sessionKey(session.username).utf8),
            Array(String(max(1, version)).utf8), try seal(session),
        ])
        guard case .integer(let done) = reply else { throw FleetRecordError(reply, "restoring \(sessionKey(session.username))") }
        return done == 1
    }

    /// The session saved for `username` and its version, or `nil` (none, or it ended).
    /// - Throws: `RedisClientError`, ``FleetRecordError`` for an error reply or a record that does
    ///   not open (another key, another user's record, changed bytes).
    package func load(_ username: String) async throws -> Record? {
        let reply = try await client.command(["GET", sessionKey(username)])
        switch reply {
        case .null: return nil
        case .string("ended"): return nil
        case .string(let text): return try open(text, username: username)
        default: throw FleetRecordError(reply, "GET \(sessionKey(username))")
        }
    }

    /// Every session of the tenant (SCAN, then MGET in batches of `batch`), and the users whose
    /// session ended (tombstones); records that do not open are skipped and returned as the users
    /// they name.
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func loadAll(batch: Int = 500) async throws -> (records: [Record], ended: Set<String>, unreadable: [String]) {
        let pattern = Self.globEscaped("\(prefix):session:\(tenant):") + "*"
        let keyStart = "\(prefix):session:\(tenant):".utf8.count
        var cursor = "0"
        var keys: [String] = []
        repeat {
            let reply = try await client.command(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"])
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].text, let found = parts[1].elements else {
                throw FleetRecordError(reply, "SCAN \(pattern)")
            }
            cursor = next
            keys += found.compactMap(\.text)
        } while cursor != "0"
        var records: [Record] = []
        var ended: Set<String> = []
        var unreadable: [String] = []
        var index = 0
        while index < keys.count {
            let slice = Array(keys[index..<min(keys.count, index + max(1, batch))])
            index += slice.count
            let reply = try await client.command(["MGET"] + slice)
            guard let values = reply.elements, values.count == slice.count else { throw FleetRecordError(reply, "MGET") }
            for (key, value) in zip(slice, values) {
                guard case .string(let text) = value else { continue }
                let username = String(decoding: Array(key.utf8).dropFirst(keyStart), as: UTF8.self)
                if text == "ended" {
                    ended.insert(username)
                } else if let record = try? open(text, username: username) {
                    records.append(record)
                } else {
                    unreadable.append(username)
                }
            }
        }
        return (records, ended, unreadable)
    }

    private static let endScript = """
        redis.call('SET', KEYS[1], 'ended', 'PX', ARGV[1])
        return redis.call('DEL', KEYS[2])
        """

    /// Ends `username`'s session for the fleet (a sign-out, a deletion, a refused refresh): the
    /// record becomes a tombstone and the lease goes.
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func end(_ username: String) async throws {
        let reply = try await client.command([
            "EVAL", Self.endScript, "2", sessionKey(username), leaseKey(username), milliseconds(tombstoneLifetime),
        ])
        guard case .integer = reply else { throw FleetRecordError(reply, "ending \(sessionKey(username))") }
    }

    // MARK: Leases

    private static let claimScript = """
        local record = redis.call('GET', KEYS[2])
        if not record then return {'missing'} end
        if record == 'ended' then return {'ended'} end
        local version = tonumber(string.match(record, '^(%d+)%.'))
        if version and version > tonumber(ARGV[3]) then return {'newer', record} end
        if redis.call('EXISTS', KEYS[1]) == 1 then return {'held'} end
        local fence = redis.call('INCR', KEYS[3])
        redis.call('SET', KEYS[1], ARGV[1] .. ':' .. fence, 'PX', ARGV[2])
        return {'acquired', record, fence}
        """

    private static let renewScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
        return 0
        """

    private static let writeScript = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('DEL', KEYS[1])
        local record = redis.call('GET', KEYS[2])
        if record == 'ended' then return -1 end
        local version = tonumber(ARGV[3])
        if record then version = math.max(version, tonumber(string.match(record, '^(%d+)%.')) or 0) end
        redis.call('SET', KEYS[2], (version + 1) .. '.' .. ARGV[2])
        return version + 1
        """

    private static let releaseScript = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// One round trip: reads `username`'s record and, when its version is still `knownVersion`
    /// and nobody holds the lease, takes the lease for `leaseDuration` (Redis's clock).
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply or a record that
    ///   does not open.
    package func claim(_ username: String, knownVersion: Int, leaseDuration: Duration) async throws -> Claim {
        let reply = try await client.command([
            "EVAL", Self.claimScript, "3", leaseKey(username), sessionKey(username), fenceKey, instance, milliseconds(leaseDuration),
            String(knownVersion),
        ])
        guard let parts = reply.elements, let kind = parts.first?.text else { throw FleetRecordError(reply, "claiming \(username)'s session") }
        switch (kind, parts.count) {
        case ("missing", _): return .missing
        case ("ended", _): return .ended
        case ("held", _): return .held
        case ("newer", 2):
            guard let text = parts[1].text else { break }
            return .newer(try open(text, username: username))
        case ("acquired", 3):
            guard let text = parts[1].text, case .integer(let fence) = parts[2] else { break }
            return .acquired(Lease(username: username, fence: fence, value: "\(instance):\(fence)"), try open(text, username: username))
        default: break
        }
        throw FleetRecordError(reply, "claiming \(username)'s session")
    }

    /// Takes the lease on `username`'s session for `duration`, unless another instance holds it
    /// (whatever the record says).
    /// - Returns: the lease, or `nil` when it is held.
    /// - Throws: `RedisClientError`, or ``FleetRecordError`` for an error reply.
    package func acquireLease(for username: String, duration: Duration) async throws -> Lease? {
        switch try await claim(username, knownVersion: Int.max, leaseDuration: duration) {
        case .acquired(let lease, _): return lease
        case .held: return nil
        case .missing, .ended, .newer: throw FleetRecordError(message: "There is no session record of '\(username)' to lease.")
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

    /// What ``write(_:under:after:)`` did.
    package enum Write: Sendable, Equatable {
        /// Written as this version; the lease was given back.
        case written(version: Int)
        /// Refused: the lease is no longer the writer's (fencing); the record keeps what the
        /// lease's new holder wrote.
        case fenced
        /// Refused: the session ended meanwhile.
        case ended
    }

    /// Writes `session` (refreshed tokens) only while `lease` is still the lease on it, and gives
    /// the lease back, in one round trip. The new version is one above the record's and
    /// `after` (the version the tokens were refreshed from), whichever is higher.
    /// - Throws: `RedisClientError`, `CryptoError`, or ``FleetRecordError`` for an error reply.
    package func write(_ session: StoredSession, under lease: Lease, after: Int = 0) async throws -> Write {
        let reply = try await client.command([
            Array("EVAL".utf8), Array(Self.writeScript.utf8), Array("2".utf8), Array(leaseKey(lease.username).utf8),
            Array(sessionKey(session.username).utf8), Array(lease.value.utf8), try seal(session), Array(String(max(0, after)).utf8),
        ])
        guard case .integer(let done) = reply else { throw FleetRecordError(reply, "writing \(session.username)'s refreshed session") }
        return done > 0 ? .written(version: done) : done == 0 ? .fenced : .ended
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

    /// `text` with the glob's special characters escaped, for SCAN's MATCH.
    private static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
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

    private func open(_ text: String, username: String) throws -> Record {
        do {
            let parts = text.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]), let sealed = Base64URL.decode(String(parts[1])) else {
                throw CryptoError("fleet session record", "it is not <version>.<base64url>")
            }
            let json = try JSONValue(parsing: try AESGCM.open(sealed, key: key, associatedData: associatedData(username)))
            guard let name = json["username"]?.stringValue, name == username, let userId = json["userId"]?.stringValue,
                let idToken = json["idToken"]?.stringValue, let accessToken = json["accessToken"]?.stringValue,
                let refreshToken = json["refreshToken"]?.stringValue, let expires = json["accessTokenExpiresAt"]?.doubleValue
            else { throw CryptoError("fleet session record", "it opened but is not a session") }
            let session = StoredSession(
                username: name, userId: userId, idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
                accessTokenExpiresAt: Date(timeIntervalSince1970: expires),
                refreshTokenExpiresAt: json["refreshTokenExpiresAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
            return Record(session: session, version: version)
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
