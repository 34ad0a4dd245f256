import Amplify
import AmplifySQLite

/// The user pool's tables, versioned with `PRAGMA user_version` and migrated inside one
/// `BEGIN IMMEDIATE` transaction: concurrent first uses (several processes on an empty or an
/// older pool) take turns, and each step runs once. Every step is also written so that running
/// it on a database that already has its change is harmless (pools made before versioning
/// have `user_version` 0 and some or all of the tables).
enum PoolSchema {
    /// The version a fully migrated pool has.
    static var currentVersion: Int64 { Int64(steps.count) }

    /// Step n brings a pool from version n to n + 1.
    private static let steps: [@Sendable (SQLiteConnection) throws -> Void] = [
        // 1: the tables.
        { connection in
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS users (
                    sub TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash BLOB NOT NULL,
                    password_salt BLOB NOT NULL, confirmed INTEGER NOT NULL, created_at REAL NOT NULL,
                    failed_attempts INTEGER NOT NULL DEFAULT 0, locked_until REAL NOT NULL DEFAULT 0,
                    token_version INTEGER NOT NULL DEFAULT 0)
                """)
            try connection.run(
                "CREATE TABLE IF NOT EXISTS attributes (sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (sub, name))"
            )
            try connection.run(
                "CREATE TABLE IF NOT EXISTS codes (sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE, purpose TEXT NOT NULL, code_mac BLOB NOT NULL, expires_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (sub, purpose))"
            )
            try connection.run(
                "CREATE TABLE IF NOT EXISTS refresh_tokens (token_mac BLOB PRIMARY KEY, sub TEXT NOT NULL REFERENCES users(sub) ON DELETE CASCADE, expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0)"
            )
            try connection.run(
                "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL, destination TEXT NOT NULL, purpose TEXT NOT NULL, code TEXT NOT NULL, created_at REAL NOT NULL)"
            )
        },
        // 2: the user's token version when a refresh token was issued: a global sign-out raises
        // the version, so a token rotated while it ran (issued with the old version) is refused too.
        { connection in
            let columns = try connection.run("PRAGMA table_info(refresh_tokens)").compactMap { $0["name"].text }
            if !columns.contains("token_version") {
                try connection.run("ALTER TABLE refresh_tokens ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0")
            }
        },
        // 3: sessions that a sign-out ended: each refresh token carries its session's id (the
        // `origin_jti` of the tokens issued with it, kept through rotation), and a signed-out
        // session's id is refused until its last access token has expired.
        { connection in
            let columns = try connection.run("PRAGMA table_info(refresh_tokens)").compactMap { $0["name"].text }
            if !columns.contains("origin_jti") {
                try connection.run("ALTER TABLE refresh_tokens ADD COLUMN origin_jti TEXT")
            }
            try connection.run("CREATE TABLE IF NOT EXISTS revoked_sessions (origin_jti TEXT PRIMARY KEY, expires_at REAL NOT NULL)")
        },
        // 4: usernames compared by RFC 8265's UsernameCaseMapped profile (`UsernameProfile`):
        // each user's key, computed here for the users already there. Not unique: two users of
        // an older pool whose names now compare equal both keep signing in (the exact name wins).
        { connection in
            let columns = try connection.run("PRAGMA table_info(users)").compactMap { $0["name"].text }
            if !columns.contains("username_key") {
                try connection.run("ALTER TABLE users ADD COLUMN username_key TEXT")
            }
            for row in try connection.run("SELECT sub, username FROM users WHERE username_key IS NULL") {
                guard let sub = row["sub"].text, let username = row["username"].text else { continue }
                try connection.run("UPDATE users SET username_key = ? WHERE sub = ?", [.text(UsernameProfile.key(username)), .text(sub)])
            }
            try connection.run("CREATE INDEX IF NOT EXISTS users_by_username_key ON users(username_key)")
        },
        // 5: codes issued per user and window (a limit on how many can be asked for), and the
        // codes "sent" to (and the failures of) names nobody has, so that every answer is the same
        // as for a user who exists (Cognito's PreventUserExistenceErrors).
        { connection in
            try connection.run("CREATE TABLE IF NOT EXISTS code_issues (subject TEXT NOT NULL, issued_at REAL NOT NULL)")
            try connection.run("CREATE INDEX IF NOT EXISTS code_issues_by_subject ON code_issues(subject, issued_at)")
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS phantom_codes (subject TEXT NOT NULL, purpose TEXT NOT NULL, expires_at REAL NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (subject, purpose))
                """)
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS phantom_locks (subject TEXT PRIMARY KEY, failed_attempts INTEGER NOT NULL DEFAULT 0,
                    locked_until REAL NOT NULL DEFAULT 0)
                """)
        },
        // 6: groups (Cognito's), named in the tokens' `cognito:groups`.
        { connection in
            try connection.run("CREATE TABLE IF NOT EXISTS user_groups (sub TEXT NOT NULL, group_name TEXT NOT NULL, PRIMARY KEY (sub, group_name))")
        },
    ]

    /// Brings `database` to ``currentVersion``.
    /// - Throws: ``SQLiteError``, or ``Amplify/AuthError/configuration(_:_:_:)`` for a pool made
    ///   by a newer version of the package.
    static func migrate(_ database: SQLiteDatabase) async throws {
        try await database.transaction { connection in
            let version = try connection.run("PRAGMA user_version").first?["user_version"].integer ?? 0
            guard (0...currentVersion).contains(version) else {
                throw AuthError.configuration(
                    "The user pool's schema version is \(version); this package knows versions up to \(currentVersion).",
                    "Use the version of the package that made the pool, or a newer one.")
            }
            for step in steps[Int(version)...] { try step(connection) }
            if version < currentVersion { try connection.run("PRAGMA user_version = \(currentVersion)") }
        }
    }
}
