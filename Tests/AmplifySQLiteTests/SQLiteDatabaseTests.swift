import AmplifySQLite
import Foundation
import Testing

@Suite("SQLiteDatabase")
struct SQLiteDatabaseTests {
    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "amplify-sqlite-\(UUID().uuidString).sqlite"
    }

    @Test("values of every type round-trip through bound parameters")
    func roundTrip() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try await database.run("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try await database.run(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(42), .real(1.5), .text("héllo'; DROP TABLE t;--"), .blob([0, 1, 255]), .null])
        let rows = try await database.run("SELECT * FROM t")
        #expect(rows.count == 1)
        #expect(rows[0]["i"] == .integer(42))
        #expect(rows[0]["r"] == .real(1.5))
        #expect(rows[0]["s"].text == "héllo'; DROP TABLE t;--")
        #expect(rows[0]["b"].blob == [0, 1, 255])
        #expect(rows[0]["n"].isNull)
        #expect(rows[0]["missing"].isNull)
    }

    @Test("a transaction that throws leaves nothing behind; one that returns commits")
    func transactions() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try await database.run("CREATE TABLE users (name TEXT PRIMARY KEY)")
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await database.transaction { connection in
                try connection.run("INSERT INTO users VALUES ('a')")
                throw Abort()
            }
        }
        #expect(try await database.run("SELECT count(*) AS c FROM users")[0]["c"] == .integer(0))
        let changed = try await database.transaction { connection -> Int in
            try connection.run("INSERT INTO users VALUES ('a')")
            return connection.changes
        }
        #expect(changed == 1)
        #expect(try await database.run("SELECT name FROM users").map { $0["name"].text } == ["a"])
    }

    @Test("a constraint violation is an SQLiteError that says so, and the data stays intact")
    func constraintViolation() async throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try await database.run("CREATE TABLE users (name TEXT PRIMARY KEY)")
        try await database.run("INSERT INTO users VALUES ('a')")
        do {
            try await database.run("INSERT INTO users VALUES ('a')")
            Issue.record("the duplicate insert succeeded")
        } catch let error as SQLiteError {
            #expect(error.isConstraintViolation)
            #expect(error.message.contains("UNIQUE"))
        }
        #expect(try await database.run("SELECT count(*) AS c FROM users")[0]["c"] == .integer(1))
        await #expect(throws: SQLiteError.self) { try await database.run("SELEC nonsense") }
    }

    @Test("a database file is created with mode 0600, in WAL mode, and its data survives reopening")
    func fileModeAndPersistence() async throws {
        let path = temporaryPath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let database = try SQLiteDatabase(path: path)
            try await database.run("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)")
            try await database.run("INSERT INTO kv VALUES ('token', 'secret')")
            #expect(try await database.run("PRAGMA journal_mode")[0]["journal_mode"].text == "wal")
            await database.close()
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let reopened = try SQLiteDatabase(path: path)
        #expect(try await reopened.run("SELECT v FROM kv WHERE k = ?", ["token"])[0]["v"].text == "secret")
    }

    @Test("a path that cannot be created fails with an error naming it")
    func unopenable() {
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: "/nonexistent-folder/x.sqlite") }
    }
}
