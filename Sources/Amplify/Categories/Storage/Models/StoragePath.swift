/// Where an object lives in storage: a fixed string, or one built from the caller's identity id.
public protocol StoragePath: Sendable {
    /// The path, given the caller's identity id (used only by identity-based paths).
    func resolve(identityId: @Sendable () async throws -> String) async throws -> String
}

/// A path given as a string: `.fromString("public/photo.png")`.
public struct StringStoragePath: StoragePath {
    /// The path.
    public let path: String

    /// Returns ``path``.
    public func resolve(identityId: @Sendable () async throws -> String) async throws -> String { path }
}

/// A path built from the identity id: `.fromIdentityID { id in "private/\(id)/photo.png" }`.
public struct IdentityIDStoragePath: StoragePath {
    /// Builds the path from the identity id.
    public let build: @Sendable (String) -> String

    /// Fetches the identity id and builds the path.
    /// - Throws: what fetching the identity id throws.
    public func resolve(identityId: @Sendable () async throws -> String) async throws -> String {
        build(try await identityId())
    }
}

extension StoragePath where Self == StringStoragePath {
    /// A fixed path.
    public static func fromString(_ path: String) -> StringStoragePath { StringStoragePath(path: path) }
}

extension StoragePath where Self == IdentityIDStoragePath {
    /// A path built from the caller's identity id.
    public static func fromIdentityID(_ build: @escaping @Sendable (String) -> String) -> IdentityIDStoragePath {
        IdentityIDStoragePath(build: build)
    }
}

/// The legacy access levels and the prefixes they stand for.
public enum StorageAccessLevel: String, Sendable, CaseIterable, Codable {
    /// Everyone: `public/`.
    case guest
    /// Readable by all, writable by the owner: `protected/{identityId}/`.
    case protected
    /// The owner only: `private/{identityId}/`.
    case `private`

    /// The key prefix for `identityId`.
    public func prefix(identityId: String) -> String {
        switch self {
        case .guest: "public/"
        case .protected: "protected/\(identityId)/"
        case .private: "private/\(identityId)/"
        }
    }
}
