import Amplify
import AmplifySQLite
import Foundation

/// A signed-in session as the credential store keeps it.
public struct StoredSession: Sendable, Equatable {
    /// The name the user signed in with.
    public var username: String
    /// The user's stable id.
    public var userId: String
    /// The ID token (JWT).
    public var idToken: String
    /// The access token (JWT).
    public var accessToken: String
    /// The refresh token.
    public var refreshToken: String
    /// When the access token expires.
    public var accessTokenExpiresAt: Date
    /// When the refresh token expires, if known.
    public var refreshTokenExpiresAt: Date?

    /// A session.
    public init(
        username: String, userId: String, idToken: String, accessToken: String, refreshToken: String,
        accessTokenExpiresAt: Date, refreshTokenExpiresAt: Date?
    ) {
        self.username = username
        self.userId = userId
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }
}

/// Where every Auth plugin keeps its signed-in session, so a new process finds the user already
/// signed in: an SQLite file of mode 0600, one row per plugin key. Safe from any task.
public actor CredentialStore {
    let database: SQLiteDatabase
    /// The file's path.
    public let path: String

    /// Opens (creating with mode 0600, in a folder of mode 0700 when the folder is missing) the
    /// store at `path`.
    /// - Throws: `SQLiteError` if the file cannot be opened, or the folder's creation error.
    public init(path: String) async throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        database = try SQLiteDatabase(path: path, fileMode: 0o600)
        try await database.run(
            """
            CREATE TABLE IF NOT EXISTS sessions (
                plugin_key TEXT PRIMARY KEY, username TEXT NOT NULL, user_id TEXT NOT NULL,
                id_token TEXT NOT NULL, access_token TEXT NOT NULL, refresh_token TEXT NOT NULL,
                access_expires_at REAL NOT NULL, refresh_expires_at REAL, updated_at REAL NOT NULL)
            """)
        try await database.run(
            """
            CREATE TABLE IF NOT EXISTS held_sessions (
                tenant TEXT NOT NULL, username TEXT NOT NULL, user_id TEXT NOT NULL,
                id_token TEXT NOT NULL, access_token TEXT NOT NULL, refresh_token TEXT NOT NULL,
                access_expires_at REAL NOT NULL, refresh_expires_at REAL, updated_at REAL NOT NULL,
                PRIMARY KEY (tenant, username))
            """)
    }

    // MARK: Held sessions (the server's, one row per tenant and user)

    /// Saves a session the server holds for `session.username` in `tenant`, replacing an earlier one.
    /// - Throws: `SQLiteError`.
    public func saveHeld(_ session: StoredSession, tenant: String) async throws {
        try await database.run("INSERT OR REPLACE INTO held_sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", Self.bindings(session, tenant))
    }

    /// Forgets the held session of `username` in `tenant`.
    /// - Throws: `SQLiteError`.
    public func clearHeld(username: String, tenant: String) async throws {
        try await database.run("DELETE FROM held_sessions WHERE tenant = ? AND username = ?", [.text(tenant), .text(username)])
    }

    /// Every held session of `tenant`.
    /// - Throws: `SQLiteError`.
    public func loadHeld(tenant: String) async throws -> [StoredSession] {
        try await database.run("SELECT * FROM held_sessions WHERE tenant = ?", [.text(tenant)]).compactMap(Self.session(from:))
    }

    /// Saves `session` for `pluginKey`, replacing any earlier one.
    /// - Throws: `SQLiteError`.
    public func save(_ session: StoredSession, for pluginKey: String) async throws {
        try await database.run("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", Self.bindings(session, pluginKey))
    }

    /// Saves `session` for `pluginKey` only if the row there is still what the caller last saw:
    /// none (`expected` is `nil`), or the session whose refresh token is `expected`. The check
    /// and the write are one `BEGIN IMMEDIATE` transaction, so of two processes (or tasks)
    /// writing at once exactly one wins.
    /// - Parameters:
    ///   - session: the session to save.
    ///   - pluginKey: whose row.
    ///   - expected: the refresh token of the session the row must hold (`nil`: the row must be absent).
    /// - Returns: `nil` when `session` was saved, else what was in the way (its `found` is `nil`
    ///   when a row was expected and none was there).
    /// - Throws: `SQLiteError`.
    public func save(_ session: StoredSession, for pluginKey: String, ifRefreshTokenIs expected: String?) async throws -> SaveConflict? {
        let bindings = Self.bindings(session, pluginKey)
        return try await database.transaction { connection -> SaveConflict? in
            let found = try connection.run("SELECT * FROM sessions WHERE plugin_key = ?", [.text(pluginKey)]).first.flatMap(Self.session(from:))
            guard found?.refreshToken == expected else { return SaveConflict(found: found) }
            try connection.run("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", bindings)
            return nil
        }
    }

    /// What stood in the way of a conditional save.
    public struct SaveConflict: Sendable, Equatable {
        /// The session the row holds (`nil`: the row was gone).
        public let found: StoredSession?
    }

    /// The session saved for `pluginKey`, if any.
    /// - Throws: `SQLiteError`.
    public func load(for pluginKey: String) async throws -> StoredSession? {
        try await database.run("SELECT * FROM sessions WHERE plugin_key = ?", [.text(pluginKey)]).first.flatMap(Self.session(from:))
    }

    private static func session(from row: SQLiteRow) -> StoredSession? {
        guard let username = row["username"].text, let userId = row["user_id"].text, let idToken = row["id_token"].text,
            let accessToken = row["access_token"].text, let refreshToken = row["refresh_token"].text,
            let accessExpiry = row["access_expires_at"].real
        else { return nil }
        return StoredSession(
            username: username, userId: userId, idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
            accessTokenExpiresAt: Date(timeIntervalSince1970: accessExpiry),
            refreshTokenExpiresAt: row["refresh_expires_at"].real.map { Date(timeIntervalSince1970: $0) })
    }

    private static func bindings(_ session: StoredSession, _ pluginKey: String) -> [SQLiteValue] {
        [
            .text(pluginKey), .text(session.username), .text(session.userId), .text(session.idToken),
            .text(session.accessToken), .text(session.refreshToken), .real(session.accessTokenExpiresAt.timeIntervalSince1970),
            session.refreshTokenExpiresAt.map { .real($0.timeIntervalSince1970) } ?? .null, .real(Date().timeIntervalSince1970),
        ]
    }

    /// Forgets the session of `pluginKey`.
    /// - Throws: `SQLiteError`.
    public func clear(for pluginKey: String) async throws {
        try await database.run("DELETE FROM sessions WHERE plugin_key = ?", [.text(pluginKey)])
    }

    /// Closes the file.
    public func close() async {
        await database.close()
    }
}
