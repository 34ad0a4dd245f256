import Amplify
import AmplifySQLite
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: concurrent first use of one pool folder")
struct FirstUseRaceTests {
    @Test(
        "20 concurrent first uses of an empty folder all succeed, agree on the signing key, leave no temporary file and set the schema version",
        arguments: 0..<5)
    func concurrentFirstUse(_ round: Int) async throws {
        let fixture = try LocalPoolFixture()
        let plugins = try (0..<20).map { _ in try fixture.plugin() }
        let results = await Self.jwksOfAll(plugins)
        let keys = results.compactMap { try? $0.get() }
        #expect(keys.count == 20, "round \(round): \(results.compactMap { if case .failure(let error) = $0 { "\(error)" } else { nil } })")
        #expect(keys.allSatisfy { $0 == keys.first })
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.folder)
        #expect(!files.contains { $0.contains(".tmp") }, "\(files)")
        #expect(try await Self.userVersion(fixture.folder) > 0)
        for plugin in plugins { await plugin.reset() }
        try await fixture.close()
    }

    @Test("20 concurrent first uses of a pool made by an older version migrate it once: no duplicate-column error, the column is there")
    func concurrentMigration() async throws {
        let fixture = try LocalPoolFixture()
        try FileManager.default.createDirectory(atPath: fixture.folder, withIntermediateDirectories: true)
        let old = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        try await old.run(
            """
            CREATE TABLE users (
                sub TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash BLOB NOT NULL,
                password_salt BLOB NOT NULL, confirmed INTEGER NOT NULL, created_at REAL NOT NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0, locked_until REAL NOT NULL DEFAULT 0,
                token_version INTEGER NOT NULL DEFAULT 0)
            """)
        try await old.run(
            "CREATE TABLE refresh_tokens (token_mac BLOB PRIMARY KEY, sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE, expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0)"
        )
        await old.close()
        let plugins = try (0..<20).map { _ in try fixture.plugin() }
        let results = await Self.jwksOfAll(plugins)
        let failures = results.compactMap { if case .failure(let error) = $0 { "\(error)" } else { nil } }
        #expect(failures.isEmpty, "\(failures)")
        let database = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let columns = try await database.run("PRAGMA table_info(refresh_tokens)").compactMap { $0["name"].text }
        await database.close()
        #expect(columns.filter { $0 == "token_version" }.count == 1)
        #expect(try await Self.userVersion(fixture.folder) > 0)
        for plugin in plugins { await plugin.reset() }
        try await fixture.close()
    }

    private static func jwksOfAll(_ plugins: [LocalAuthPlugin]) async -> [Result<JSONValue, any Error>] {
        await withTaskGroup(of: Result<JSONValue, any Error>.self) { group in
            for plugin in plugins {
                group.addTask {
                    do { return .success(try await plugin.jwks()) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    private static func userVersion(_ folder: String) async throws -> Int64 {
        let database = try SQLiteDatabase(path: folder + "/users.sqlite")
        defer { Task { await database.close() } }
        return try await database.run("PRAGMA user_version").first?["user_version"].integer ?? 0
    }
}
