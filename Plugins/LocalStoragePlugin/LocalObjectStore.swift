import Amplify
import AmplifyEventLoop
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What is kept beside an object.
struct ObjectMetadata: Codable, Sendable, Equatable {
    var contentType: String
    var metadata: [String: String]
    var size: Int64
    var lastModified: Double
    var eTag: String
}

/// Where upload bytes come from.
enum ByteSource: Sendable {
    case data(Data)
    case file(String)
}

/// The objects under one root folder, every file call through libuv's asynchronous file system
/// on the loop, streamed in chunks:
///
///     <root>/objects/<key>      the object's bytes
///     <root>/meta/<key>.json    its content type, metadata, size, time, entity tag
///     <root>/tmp/<uuid>         uploads and metadata being written, renamed into place
///
/// Writes go to a temporary file that is synced and then renamed over the object, so a crash
/// leaves the old object or the new one, never half of one.
struct LocalObjectStore: Sendable {
    let root: String
    let fileSystem: LoopFileSystem
    let chunkSize: Int

    var objectsFolder: String { root + "/objects" }
    var metaFolder: String { root + "/meta" }
    var temporaryFolder: String { root + "/tmp" }

    /// Creates the folders.
    func prepare() async throws {
        for folder in [root, objectsFolder, metaFolder, temporaryFolder] { try await makeFolder(folder) }
    }

    private func makeFolder(_ path: String) async throws {
        do {
            try await fileSystem.mkdir(path, mode: 0o700)
        } catch EventLoopError.fileSystem(_, _, let code, _) where code == -EEXIST {
            let status = try await fileSystem.lstat(path)
            guard status.isDirectory else {
                throw StorageError.validation("path", "'\(path)' exists and is not a folder.", "Remove the file or choose another path.")
            }
        }
    }

    /// Refuses a key whose path inside `folder` passes through a symbolic link (which could lead
    /// out of the root), and creates its missing parent folders when `creatingParents`.
    private func checkPath(_ key: String, in folder: String, creatingParents: Bool) async throws {
        let segments = key.split(separator: "/").map(String.init)
        var path = folder
        for (index, segment) in segments.enumerated() {
            path += "/" + segment
            let isLast = index == segments.count - 1
            do {
                let status = try await fileSystem.lstat(path)
                if status.isSymbolicLink {
                    throw StorageError.validation(
                        "path", "The storage path '\(key)' passes through a symbolic link, which could lead out of the storage root.",
                        "Store objects under real folders; remove the link \(path).")
                }
                if !isLast, !status.isDirectory {
                    throw StorageError.validation("path", "The storage path '\(key)' goes below '\(segments[0...index].joined(separator: "/"))', which is an object.", "Choose a path that does not extend an existing object's path.")
                }
                if isLast, status.isDirectory, creatingParents {
                    throw StorageError.validation("path", "The storage path '\(key)' names a folder of other objects.", "Choose another path.")
                }
            } catch EventLoopError.fileSystem(_, _, let code, _) where code == -ENOENT {
                guard creatingParents, !isLast else { return }
                try await makeFolder(path)
            }
        }
    }

    // MARK: Writing

    /// Writes `source` as `key`, atomically, reporting bytes written after each chunk and
    /// checking `gate` between chunks.
    func write(
        _ key: String, from source: ByteSource, contentType: String, metadata: [String: String], gate: StorageTransferGate,
        progress: @Sendable (Int64, Int64) -> Void
    ) async throws -> ObjectMetadata {
        try await checkPath(key, in: objectsFolder, creatingParents: true)
        try await checkPath(key + ".json", in: metaFolder, creatingParents: true)
        let temporary = temporaryFolder + "/" + UUID().uuidString
        let output = try await fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        var written: Int64 = 0
        do {
            switch source {
            case .data(let data):
                let total = Int64(data.count)
                progress(0, total)
                var offset = 0
                while offset < data.count {
                    try await gate.check()
                    let end = min(data.count, offset + chunkSize)
                    try await writeAll(output, Array(data[data.startIndex + offset..<data.startIndex + end]))
                    offset = end
                    written = Int64(offset)
                    progress(written, total)
                }
            case .file(let path):
                let input: Int32
                do {
                    input = try await fileSystem.open(path, flags: O_RDONLY | O_CLOEXEC)
                } catch {
                    throw StorageError.localFileNotFound("The local file \(path) cannot be read: \(error)", "Check the file's path and permissions.", error)
                }
                do {
                    let total = Int64(try await fileSystem.stat(path).size)
                    progress(0, total)
                    while true {
                        try await gate.check()
                        let chunk = try await fileSystem.read(input, count: chunkSize, offset: written)
                        if chunk.isEmpty { break }
                        try await writeAll(output, chunk)
                        written += Int64(chunk.count)
                        progress(written, total)
                    }
                } catch {
                    try? await fileSystem.close(input)
                    throw error
                }
                try await fileSystem.close(input)
            }
            try await fileSystem.fsync(output)
            try await fileSystem.close(output)
        } catch {
            try? await fileSystem.close(output)
            try? await fileSystem.unlink(temporary)
            throw error
        }
        let now = Date().timeIntervalSince1970
        let meta = ObjectMetadata(
            contentType: contentType, metadata: metadata, size: written, lastModified: now,
            eTag: "\"\(String(written, radix: 16))-\(String(Int64(now * 1_000_000), radix: 16))\"")
        try await writeMetadata(meta, for: key)
        do {
            try await fileSystem.rename(temporary, to: objectsFolder + "/" + key)
        } catch {
            try? await fileSystem.unlink(temporary)
            throw error
        }
        return meta
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) async throws {
        var done = 0
        while done < bytes.count {
            done += try await fileSystem.write(descriptor, done == 0 ? bytes : Array(bytes[done...]))
        }
    }

    private func writeMetadata(_ meta: ObjectMetadata, for key: String) async throws {
        let temporary = temporaryFolder + "/" + UUID().uuidString + ".json"
        let descriptor = try await fileSystem.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        do {
            try await writeAll(descriptor, Array(try JSONEncoder().encode(meta)))
            try await fileSystem.fsync(descriptor)
            try await fileSystem.close(descriptor)
        } catch {
            try? await fileSystem.close(descriptor)
            try? await fileSystem.unlink(temporary)
            throw error
        }
        try await fileSystem.rename(temporary, to: metaFolder + "/" + key + ".json")
    }

    // MARK: Reading

    /// The object's metadata (its size from the object itself when the sidecar is missing or
    /// from an older version).
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)`` when there is no such object.
    func metadata(_ key: String) async throws -> ObjectMetadata {
        try await checkPath(key, in: objectsFolder, creatingParents: false)
        let status: FileStatus
        do {
            status = try await fileSystem.stat(objectsFolder + "/" + key)
        } catch EventLoopError.fileSystem(_, _, let code, _) where code == -ENOENT || code == -ENOTDIR {
            throw notFound(key)
        }
        guard status.isRegularFile else { throw notFound(key) }
        var meta = ObjectMetadata(contentType: "application/octet-stream", metadata: [:], size: Int64(status.size), lastModified: status.modificationTime, eTag: "")
        if let bytes = try? await readWhole(metaFolder + "/" + key + ".json"),
           let stored = try? JSONDecoder().decode(ObjectMetadata.self, from: Data(bytes)), stored.size == meta.size {
            meta = stored
        }
        return meta
    }

    private func readWhole(_ path: String) async throws -> [UInt8] {
        let descriptor = try await fileSystem.open(path, flags: O_RDONLY | O_CLOEXEC)
        var bytes: [UInt8] = []
        do {
            while true {
                let chunk = try await fileSystem.read(descriptor, count: 65_536, offset: Int64(bytes.count))
                if chunk.isEmpty { break }
                bytes += chunk
            }
        } catch {
            try? await fileSystem.close(descriptor)
            throw error
        }
        try await fileSystem.close(descriptor)
        return bytes
    }

    func notFound(_ key: String) -> StorageError {
        StorageError.keyNotFound(key, "There is no object at '\(key)'.", "Check the path; `list` shows which objects exist.")
    }

    /// Reads `key` (or `range` of it) in chunks into `sink`, reporting progress and checking
    /// `gate` between chunks.
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)``, ``StorageError/validation(_:_:_:_:)`` for
    ///   a range outside the object, a cancellation, or the sink's error.
    func read(
        _ key: String, range: StorageByteRange?, gate: StorageTransferGate, progress: @Sendable (Int64, Int64) -> Void,
        sink: ([UInt8]) async throws -> Void
    ) async throws {
        let meta = try await metadata(key)
        var start: Int64 = 0
        var end = meta.size - 1
        if let range {
            guard range.start >= 0, range.start < max(meta.size, 1), (range.end ?? range.start) >= range.start else {
                throw StorageError.validation(
                    "range", "The range \(range.headerValue) is outside the object '\(key)' of \(meta.size) bytes.",
                    "Ask for a range that starts inside the object.")
            }
            start = range.start
            end = min(range.end ?? end, meta.size - 1)
        }
        let total = max(0, end - start + 1)
        progress(0, total)
        let descriptor: Int32
        do {
            descriptor = try await fileSystem.open(objectsFolder + "/" + key, flags: O_RDONLY | O_CLOEXEC)
        } catch EventLoopError.fileSystem(_, _, let code, _) where code == -ENOENT {
            throw notFound(key)
        }
        do {
            var done: Int64 = 0
            while done < total {
                try await gate.check()
                let chunk = try await fileSystem.read(descriptor, count: Int(min(Int64(chunkSize), total - done)), offset: start + done)
                if chunk.isEmpty { break }
                try await sink(chunk)
                done += Int64(chunk.count)
                progress(done, total)
            }
        } catch {
            try? await fileSystem.close(descriptor)
            throw error
        }
        try await fileSystem.close(descriptor)
    }

    // MARK: Removing and listing

    /// Deletes `key` and its metadata.
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)`` when there is no such object.
    func remove(_ key: String) async throws {
        _ = try await metadata(key)
        try await fileSystem.unlink(objectsFolder + "/" + key)
        try? await fileSystem.unlink(metaFolder + "/" + key + ".json")
    }

    /// Every object key under the root, sorted (symbolic links are skipped).
    func allKeys() async throws -> [String] {
        var keys: [String] = []
        var folders = [""]
        while let folder = folders.popLast() {
            let names = try await fileSystem.listDirectory(objectsFolder + (folder.isEmpty ? "" : "/" + folder))
            for name in names {
                let key = folder.isEmpty ? name : folder + "/" + name
                let status = try await fileSystem.lstat(objectsFolder + "/" + key)
                if status.isDirectory { folders.append(key) } else if status.isRegularFile { keys.append(key) }
            }
        }
        return keys.sorted()
    }
}
