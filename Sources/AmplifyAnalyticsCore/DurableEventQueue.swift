import AmplifySQLite
import Foundation

/// The analytics plugins' durable queue: an SQLite database in WAL mode.
///
/// `append(_:)` returns only once its records are committed, and records appended while a
/// commit is running are committed together in the next transaction (group commit), so recording
/// stays fast without giving up durability. Batches come out in recording order; accepted
/// records are deleted; refused ones are retried until ``maxAttempts``, then set aside (kept,
/// counted, listed by ``setAside(limit:)``), never dropped. When ``maxQueuedEvents`` records are
/// waiting, new ones are refused with ``AnalyticsQueueError/full(limit:)`` — what is stored is
/// never dropped to make room.
public actor DurableEventQueue {
    /// How many refusals set a record aside.
    public let maxAttempts: Int
    /// How many records may wait to be sent.
    public let maxQueuedEvents: Int
    private let database: SQLiteDatabase
    private var waiting = 0
    private var setAsideCount = 0
    private var counted = false
    private var pending: [(records: [AnalyticsRecord], done: CheckedContinuation<[AnalyticsQueueError?], any Error>)] = []
    private var committing = false

    /// Opens (creating if needed) the queue at `path`.
    /// - Throws: `SQLiteError` if the file cannot be opened or is not a queue.
    public init(path: String, maxAttempts: Int = 5, maxQueuedEvents: Int = 100_000) throws {
        self.maxAttempts = maxAttempts
        self.maxQueuedEvents = maxQueuedEvents
        database = try SQLiteDatabase(path: path) { connection in
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, body BLOB NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0, set_aside INTEGER NOT NULL DEFAULT 0, last_error TEXT)
                """)
            try connection.run("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
    }

    /// Reads the counts once (the queue may hold events from an earlier run).
    private func countIfNeeded() async throws {
        guard !counted else { return }
        for row in try await database.run("SELECT set_aside, COUNT(*) AS n FROM events GROUP BY set_aside") {
            let count = Int(row["n"].integer ?? 0)
            if row["set_aside"].integer == 1 { setAsideCount = count } else { waiting = count }
        }
        counted = true
    }

    /// Stores `record`; returns once it is committed.
    /// - Throws: ``AnalyticsQueueError/full(limit:)`` when the queue holds ``maxQueuedEvents``
    ///   records, or `SQLiteError` when the disk refuses the write.
    public func append(_ record: AnalyticsRecord) async throws {
        if let refusal = try await append([record]).first ?? nil { throw refusal }
    }

    /// Stores `records` in order; returns once they are committed, with a refusal for each one
    /// that did not fit under ``maxQueuedEvents`` (`nil` for each stored one).
    /// - Throws: `SQLiteError` when the disk refuses the write (then none was stored).
    public func append(_ records: [AnalyticsRecord]) async throws -> [AnalyticsQueueError?] {
        // A commit is running: these go into the next transaction, with everyone else's that
        // arrive meanwhile (group commit).
        guard !committing else {
            return try await withCheckedThrowingContinuation { continuation in pending.append((records, continuation)) }
        }
        // None is: this task commits them itself, sparing a task and a hop per transaction,
        // then hands what arrived meanwhile to a committing task and returns.
        committing = true
        let outcome = await commit([records])
        if pending.isEmpty {
            committing = false
        } else {
            Task { await self.commitPending() }
        }
        return try outcome.get()[0]
    }

    /// Commits everything pending, one transaction per round, until nothing is pending.
    private func commitPending() async {
        while !pending.isEmpty {
            let round = pending
            pending.removeAll(keepingCapacity: true)
            switch await commit(round.map(\.records)) {
            case .success(let refusals):
                for (entry, entryRefusals) in zip(round, refusals) { entry.done.resume(returning: entryRefusals) }
            case .failure(let error):
                for entry in round { entry.done.resume(throwing: error) }
            }
        }
        committing = false
    }

    /// Stores `groups` in one transaction, in order: the refusals of each group (a record that
    /// does not fit under ``maxQueuedEvents``), or the error that stored none of them.
    private func commit(_ groups: [[AnalyticsRecord]]) async -> Result<[[AnalyticsQueueError?]], any Error> {
        do {
            try await countIfNeeded()
        } catch {
            return .failure(error)
        }
        var room = max(0, maxQueuedEvents - waiting)
        var bodies: [[UInt8]] = []
        var refusals: [[AnalyticsQueueError?]] = []
        for records in groups {
            var groupRefusals: [AnalyticsQueueError?] = []
            for record in records {
                if room > 0, let body = record.storedBody() {
                    bodies.append(body)
                    room -= 1
                    groupRefusals.append(nil)
                } else {
                    groupRefusals.append(.full(limit: maxQueuedEvents))
                }
            }
            refusals.append(groupRefusals)
        }
        do {
            if !bodies.isEmpty {
                try await database.transaction { connection in
                    for body in bodies { try connection.run("INSERT INTO events (body) VALUES (?)", [.blob(body)]) }
                }
            }
            waiting += bodies.count
            return .success(refusals)
        } catch {
            return .failure(error)
        }
    }

    /// The oldest `limit` records waiting to be sent whose id is above `id` (and at most
    /// `ceiling`), in recording order.
    /// - Throws: `SQLiteError`.
    public func nextBatch(after id: Int64 = 0, through ceiling: Int64 = .max, limit: Int) async throws -> [QueuedRecord] {
        let rows = try await database.run(
            "SELECT id, body, attempts FROM events WHERE set_aside = 0 AND id > ? AND id <= ? ORDER BY id LIMIT ?",
            [.integer(id), .integer(ceiling), .integer(Int64(limit))])
        return rows.compactMap { row in
            guard let id = row["id"].integer, let body = row["body"].blob,
                let record = try? JSONDecoder().decode(AnalyticsRecord.self, from: Data(body))
            else { return nil }
            return QueuedRecord(id: id, record: record, attempts: Int(row["attempts"].integer ?? 0))
        }
    }

    /// The id of the newest stored record (0 when the queue is empty): ids only grow, so the
    /// records at or below it are exactly those stored so far.
    /// - Throws: `SQLiteError`.
    public func newestId() async throws -> Int64 {
        try await database.run("SELECT COALESCE(MAX(id), 0) AS newest FROM events").first?["newest"].integer ?? 0
    }

    /// Applies a sender's outcomes (one per record of `batch`): deletes the accepted, counts a
    /// refusal against the refused and sets aside those that reached ``maxAttempts``.
    /// - Returns: how many were accepted, refused and set aside now.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func apply(_ outcomes: [RecordOutcome], to batch: [QueuedRecord]) async throws -> (accepted: Int, refused: Int, setAside: Int) {
        try await countIfNeeded()
        let pairs = Array(zip(batch, outcomes))
        let maxAttempts = maxAttempts
        let result = try await database.transaction { connection -> (Int, Int, Int) in
            var accepted = 0
            var refused = 0
            var setAside = 0
            for (queued, outcome) in pairs {
                switch outcome {
                case .accepted:
                    try connection.run("DELETE FROM events WHERE id = ?", [.integer(queued.id)])
                    accepted += 1
                case .rejected(let reason):
                    let aside = queued.attempts + 1 >= maxAttempts
                    try connection.run(
                        "UPDATE events SET attempts = attempts + 1, set_aside = ?, last_error = ? WHERE id = ?",
                        [.integer(aside ? 1 : 0), .text(reason), .integer(queued.id)])
                    refused += 1
                    if aside { setAside += 1 }
                case .notSent:
                    break
                }
            }
            try connection.run(
                "INSERT INTO meta (key, value) VALUES ('lastFlush', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(String(Date().timeIntervalSince1970))])
            return (accepted, refused, setAside)
        }
        waiting -= result.0 + result.2
        setAsideCount += result.2
        return result
    }

    /// Records waiting to be sent, and records set aside.
    /// - Throws: `SQLiteError`.
    public func counts() async throws -> (waiting: Int, setAside: Int) {
        try await countIfNeeded()
        return (waiting, setAsideCount)
    }

    /// When a flush last reached a service, if ever.
    /// - Throws: `SQLiteError`.
    public func lastFlush() async throws -> Date? {
        let rows = try await database.run("SELECT value FROM meta WHERE key = 'lastFlush'")
        return rows.first?["value"].text.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
    }

    /// Records set aside, oldest first, with why they were last refused.
    /// - Throws: `SQLiteError`.
    public func setAside(limit: Int = 100) async throws -> [(record: QueuedRecord, reason: String)] {
        let rows = try await database.run(
            "SELECT id, body, attempts, last_error FROM events WHERE set_aside = 1 ORDER BY id LIMIT ?", [.integer(Int64(limit))])
        return rows.compactMap { row in
            guard let id = row["id"].integer, let body = row["body"].blob,
                let record = try? JSONDecoder().decode(AnalyticsRecord.self, from: Data(body))
            else { return nil }
            return (QueuedRecord(id: id, record: record, attempts: Int(row["attempts"].integer ?? 0)), row["last_error"].text ?? "")
        }
    }

    /// Closes the database (after pending appends are committed).
    public func close() async {
        while committing || !pending.isEmpty { await Task.yield() }
        await database.close()
    }
}

/// Why the queue refused a record.
public enum AnalyticsQueueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The queue already holds `limit` records waiting to be sent.
    case full(limit: Int)

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .full(let limit):
            "The analytics queue holds its limit of \(limit) unsent events; the new event was refused (stored events are kept). Flush more often, fix the delivery target, or raise maxQueuedEvents."
        }
    }
}
