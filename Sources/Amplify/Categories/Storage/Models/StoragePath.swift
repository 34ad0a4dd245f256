/// Where an object lives in storage: a fixed string, or one built from the caller's identity id.
public protocol StoragePath: Sendable {
    /// The path, given the caller's identity id (used only by identity-based paths).
    func resolve(identityId: @Sendable () async throws -> String) async throws -> String
}

/// amplify-swift's closure that makes a path: from the identity id for an identity-based path,
/// from an empty string for a string path.
public typealias StoragePathResolver = @Sendable (String) -> String

/// amplify-swift's name of the closure that makes a path from the identity id.
public typealias IdentityIDPathResolver = @Sendable (String) -> String

/// A path given as a string: `.fromString("public/photo.png")`.
public struct StringStoragePath: StoragePath {
    /// The path.
    public let path: String

    /// The path `path`.
    public init(path: String) {
        self.path = path
    }

    /// amplify-swift's initialiser: the path is what `pathResolver` returns for an empty string.
    public init(pathResolver: StoragePathResolver) {
        path = pathResolver("")
    }

    /// amplify-swift's initialiser: the path is what `resolve` returns (for an empty string).
    public init(resolve: @escaping @Sendable (String) -> String) {
        path = resolve("")
    }

    /// amplify-swift's resolver: returns ``path`` whatever it is given.
    public var pathResolver: StoragePathResolver { { [path] _ in path } }

    /// amplify-swift's name of the resolver: returns ``path`` whatever it is given.
    public var resolve: @Sendable (String) -> String { pathResolver }

    /// Returns ``path``.
    public func resolve(identityId: @Sendable () async throws -> String) async throws -> String { path }
}

/// A path built from the identity id: `.fromIdentityID { id in "private/\(id)/photo.png" }`.
public struct IdentityIDStoragePath: StoragePath {
    /// Builds the path from the identity id.
    public let build: @Sendable (String) -> String

    /// A path `build` makes from the identity id.
    public init(build: @escaping @Sendable (String) -> String) {
        self.build = build
    }

    /// amplify-swift's initialiser.
    public init(pathResolver: @escaping StoragePathResolver) {
        build = pathResolver
    }

    /// amplify-swift's initialiser.
    public init(resolve: @escaping IdentityIDPathResolver) {
        build = resolve
    }

    /// amplify-swift's name for ``build``.
    public var pathResolver: StoragePathResolver { build }

    /// amplify-swift's other name for ``build``.
    public var resolve: IdentityIDPathResolver { build }

    /// Fetches the identity id and builds the path.
    /// - Throws: what fetching the identity id throws.
    public func resolve(identityId: @Sendable () async throws -> String) async throws -> String {
        build(try await identityId())
    }
}

/// amplify-swift's name for ``IdentityIDStoragePath``.
public typealias IdentityIdStoragePath = IdentityIDStoragePath

extension StoragePath where Self == StringStoragePath {
    /// A fixed path.
    public static func fromString(_ path: String) -> StringStoragePath { StringStoragePath(path: path) }
}

extension StoragePath where Self == IdentityIDStoragePath {
    /// A path built from the caller's identity id.
    public static func fromIdentityID(_ build: @escaping @Sendable (String) -> String) -> IdentityIDStoragePath {
        IdentityIDStoragePath(build: build)
    }
    /// amplify-swift's spelling of ``fromIdentityID(_:)``.
    public static func fromIdentityId(_ identityIdPathResolver: @escaping StoragePathResolver) -> IdentityIDStoragePath {
        IdentityIDStoragePath(build: identityIdPathResolver)
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
