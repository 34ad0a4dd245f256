import CSQLite
import Foundation

/// One open SQLite database file. Not thread-safe: ``SQLiteDatabase`` owns one and uses it from
/// its own serial executor; inside `SQLiteDatabase.transaction` you get it directly.
public final class SQLiteConnection {
    private var handle: OpaquePointer?
    let path: String

    /// SQLite's "copy the bound value now" destructor (the SQLITE_TRANSIENT macro).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String, fileMode: mode_t) throws {
        self.path = path
        if path != ":memory:" {
            // Create the file with the mode asked for before SQLite does (SQLite would use 0644);
            // SQLite gives its -wal and -shm files the database file's mode.
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
            guard descriptor >= 0 else {
                throw SQLiteError(code: SQLITE_CANTOPEN, message: String(cString: strerror(errno)), context: path)
            }
            Glibc.close(descriptor)
        }
        var opened: OpaquePointer?
        let rc = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(opened)
            throw SQLiteError(code: rc, message: message, context: path)
        }
        handle = opened
        sqlite3_extended_result_codes(opened, 1)
        sqlite3_busy_timeout(opened, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one statement with `bindings` for its `?` parameters.
    /// - Returns: the rows it produced (none for most writes).
    /// - Throws: ``SQLiteError``.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [SQLiteRow] {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed", context: sql) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(sql)
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in bindings.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, position)
            case .integer(let number): rc = sqlite3_bind_int64(statement, position, number)
            case .real(let number): rc = sqlite3_bind_double(statement, position, number)
            case .text(let text): rc = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .blob(let bytes): rc = sqlite3_bind_blob64(statement, position, bytes, sqlite3_uint64(bytes.count), Self.transient)
            }
            guard rc == SQLITE_OK else { throw error(sql) }
        }
        var rows: [SQLiteRow] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw error(sql) }
            var values: [String: SQLiteValue] = [:]
            for column in 0..<sqlite3_column_count(statement) {
                let name = String(cString: sqlite3_column_name(statement, column))
                values[name] = value(statement, column)
            }
            rows.append(SQLiteRow(values: values))
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT: return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_blob(statement, column), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func error(_ sql: String) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), context: sql)
    }
}
