import Dispatch
import Foundation

/// An SQLite database used from any task. Every call runs on the database's own serial
/// dispatch queue, so disk I/O never runs on the Amplify event loop or blocks the cooperative
/// pool for longer than one statement.
///
/// The file is created with mode 0600 by default (SQLite would use 0644), and opened in WAL mode
/// with `synchronous=NORMAL`, so a committed transaction survives a crash of the process.
public actor SQLiteDatabase {
    private let queueExecutor: DispatchQueueExecutor
    private let connection: SQLiteConnection

    /// The queue every call of this actor runs on.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { queueExecutor.asUnownedSerialExecutor() }

    /// Opens (creating if needed) the database at `path` (`":memory:"` for a private in-memory one),
    /// then runs `setup` (creating tables, reading counts) on the new connection before anyone else
    /// can use it.
    /// - Throws: ``SQLiteError`` if the file cannot be created or opened, or what `setup` throws.
    public init(path: String, fileMode: mode_t = 0o600, setup: (@Sendable (SQLiteConnection) throws -> Void)? = nil) throws {
        queueExecutor = DispatchQueueExecutor(label: "sqlite:\(URL(fileURLWithPath: path).lastPathComponent)")
        let opened = try SQLiteConnection(path: path, fileMode: fileMode)
        if path != ":memory:" {
            try Self.switchToWAL(opened)
            try opened.run("PRAGMA synchronous=NORMAL")
        }
        try opened.run("PRAGMA foreign_keys=ON")
        try setup?(opened)
        connection = opened
    }

    /// Puts the file in WAL mode (a setting kept in the file). Switching needs a lock that
    /// SQLite does not wait for through the busy handler, so when several connections open a new
    /// file at once the switch can fail with `SQLITE_BUSY`; it is retried for up to five
    /// seconds, and skipped as soon as another connection has made the switch.
    private static func switchToWAL(_ connection: SQLiteConnection) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                if try connection.run("PRAGMA journal_mode").first?["journal_mode"].text?.lowercased() == "wal" { return }
                try connection.run("PRAGMA journal_mode=WAL")
                return
            } catch let error as SQLiteError where error.code & 0xFF == 5 && ContinuousClock.now < deadline {
                usleep(2_000)
            }
        }
    }

    /// Runs one statement. - Returns: its rows. - Throws: ``SQLiteError``.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [SQLiteRow] {
        try connection.run(sql, bindings)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back if it throws.
    /// - Returns: what `body` returns. - Throws: what `body` throws, or ``SQLiteError``.
    public func transaction<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.run("BEGIN IMMEDIATE")
        do {
            let result = try body(connection)
            try connection.run("COMMIT")
            return result
        } catch {
            _ = try? connection.run("ROLLBACK")
            throw error
        }
    }

    /// Closes the file. Later calls throw.
    public func close() {
        connection.close()
    }
}

/// A `SerialExecutor` that runs jobs on a serial dispatch queue (Linux has no
/// `DispatchSerialQueue` executor).
final class DispatchQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
