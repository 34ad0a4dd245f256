import Amplify
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyStorageCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What is kept for an object, in `index/<SHA-256 of the key>.json`.
struct ObjectMetadata: Codable, Sendable, Equatable {
    var contentType: String
    var metadata: [String: String]
    var size: Int64
    var lastModified: Double
    var eTag: String
    /// The key it describes (absent in the sidecars of earlier versions).
    var key: String?
    /// The object file's inode when it was written: a sidecar for an object replaced since
    /// (a crash between the two renames) is recognised and ignored.
    var inode: UInt64?
}

/// Where upload bytes come from.
enum ByteSource: Sendable {
    case data(Data)
    case file(String)
}

/// The objects under one root folder, streamed in chunks through libuv's file calls; every
/// path is resolved by ``RootedFiles`` (one `openat` per component, `O_NOFOLLOW`) on the
/// loop's thread pool:
///
///     <root>/objects/<key>              the object's bytes
///     <root>/index/<sha256(key)>.json   its content type, metadata, size, time, entity tag
///     <root>/tmp/                       uploads being written (nameless where the system allows)
///     <root>/meta/<key>.json            sidecars of earlier versions, read if no index entry
///
/// No key can reach a metadata file: keys live under `objects/`, and the index names files by
/// the key's hash, so `x` and `x.json/b` are simply two objects. Writes go to a temporary file
/// that is synced and then renamed over the object, so a crash leaves the old object or the
/// new one, never half of one; a failed write removes its temporary file and the folders it made.
struct LocalObjectStore: Sendable {
    let root: String
    let fileSystem: LoopFileSystem
    let chunkSize: Int
    /// The chunk of a file-to-file copy, which the kernel makes without a buffer here: larger
    /// than `chunkSize` (fewer hops through libuv's thread pool), still small enough that
    /// progress, pauses and cancellation come several times a second.
    var kernelChunkSize: Int { max(chunkSize, 8 << 20) }

    var objectsFolder: String { root + "/objects" }
    var temporaryFolder: String { root + "/tmp" }
    var files: RootedFiles { RootedFiles(root: root) }

    /// How old a named temporary file must be to be taken for a leftover of a dead process.
    static let staleTemporaryAge: TimeInterval = 15 * 60

    /// Creates the folders.
    func prepare() async throws {
        for folder in [root, objectsFolder, root + "/index", temporaryFolder] { try await makeFolder(folder) }
    }

    /// Creates `path` (one folder) unless it exists.
    func makeFolderIfNeeded(_ path: String) async throws {
        try await makeFolder(path)
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

    /// Removes named temporary files older than ``staleTemporaryAge`` (left by a process that
    /// died mid-upload where nameless files are not available; a live upload keeps its file's
    /// modification time fresh).
    static func sweepStaleTemporaries(in root: String) {
        let folder = root + "/tmp"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let cutoff = Date().addingTimeInterval(-staleTemporaryAge)
        for name in names {
            let path = folder + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, modified < cutoff
            else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    // MARK: Writing

    /// Writes `source` as `key`, atomically, reporting bytes written after each chunk and
    /// checking `gate` between chunks.
    func write(
        _ key: String, from source: ByteSource, contentType: String, metadata: [String: String], gate: StorageTransferGate,
        progress: @Sendable (Int64, Int64) -> Void
    ) async throws -> ObjectMetadata {
        let segments = try ObjectKey.segments(of: key)
        let files = self.files
        try await fileSystem.perform { try files.checkWritable(key, segments) }
        let (output, temporaryName) = try await fileSystem.perform { try files.createTemporary() }
        var closed = false
        do {
            let written = try await copy(source, to: output, gate: gate, progress: progress)
            try await fileSystem.fsync(output)
            let inode = try await fileSystem.perform { () throws -> UInt64 in
                var status = stat()
                guard fstat(output, &status) == 0 else { throw RootedFiles.system("stat", key, errno) }
                return UInt64(status.st_ino)
            }
            let now = Date().timeIntervalSince1970
            let microseconds = Int64(exactly: (now * 1_000_000).rounded()) ?? 0
            let meta = ObjectMetadata(
                contentType: contentType, metadata: metadata, size: written, lastModified: now,
                eTag: "\"\(String(written, radix: 16))-\(String(microseconds, radix: 16))\"", key: key, inode: inode)
            let encoded = Array(try JSONEncoder().encode(meta))
            try await fileSystem.perform { try files.commit(output, temporaryName: temporaryName, as: key, segments) }
            try await fileSystem.close(output)
            closed = true
            try await fileSystem.perform { try Self.writeIndexEntry(encoded, for: key, files: files) }
            return meta
        } catch {
            if !closed {
                try? await fileSystem.close(output)
                await fileSystem.discard(temporaryName, files: files)
            }
            throw error
        }
    }

    /// Copies the source into `output` in chunks.
    /// - Returns: the bytes written.
    private func copy(
        _ source: ByteSource, to output: Int32, gate: StorageTransferGate, progress: @Sendable (Int64, Int64) -> Void
    ) async throws -> Int64 {
        var written: Int64 = 0
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
                throw StorageError.localFileNotFound(
                    "The local file \(path) cannot be read: \(error)", "Check the file's path and permissions.", error)
            }
            do {
                let total = Int64(clamping: try await fileSystem.stat(path).size)
                progress(0, total)
                // File to file: the kernel copies, a chunk at a time (no bytes in this process).
                while true {
                    try await gate.check()
                    let copied = try await fileSystem.copyRange(from: input, offset: written, count: kernelChunkSize, to: output)
                    if copied == 0 { break }
                    written += Int64(copied)
                    progress(written, total)
                }
            } catch {
                try? await fileSystem.close(input)
                throw error
            }
            try await fileSystem.close(input)
        }
        return written
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) async throws {
        var done = 0
        while done < bytes.count {
            done += try await fileSystem.write(descriptor, done == 0 ? bytes : Array(bytes[done...]))
        }
    }

    /// The index entry's file name for `key`.
    static func indexName(for key: String) -> String {
        Digest.hex(Digest.sha256(Array(key.utf8))) + ".json"
    }

    /// Writes the index entry through a temporary file renamed into `index/`; the legacy
    /// sidecar, if any, goes.
    private static func writeIndexEntry(_ bytes: [UInt8], for key: String, files: RootedFiles) throws {
        let (fd, name) = try files.createTemporary()
        do {
            var done = 0
            while done < bytes.count {
                let count = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw RootedFiles.system("write", "the index entry of \(key)", errno) }
                done += count
            }
            guard fsync(fd) == 0 else { throw RootedFiles.system("fsync", "the index entry of \(key)", errno) }
            try files.commit(fd, temporaryName: name, as: indexName(for: key), [indexName(for: key)], in: "index")
            close(fd)
        } catch {
            close(fd)
            files.discardTemporary(name)
            throw error
        }
        removeLegacySidecar(for: key, files: files)
    }

    private static func removeLegacySidecar(for key: String, files: RootedFiles) {
        guard let segments = try? ObjectKey.segments(of: key + ".json") else { return }
        _ = try? files.remove(key + ".json", segments, in: "meta")
    }

    // MARK: Reading

    /// The object's metadata (its size and time from the object itself when the index entry is
    /// missing, from an earlier version, or describes an object since replaced).
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)`` when there is no such object,
    ///   ``StorageError/validation(_:_:_:_:)`` when a link or an object is on its path.
    func metadata(_ key: String) async throws -> ObjectMetadata {
        let segments = try ObjectKey.segments(of: key)
        let files = self.files
        guard let status = try await fileSystem.perform({ try files.status(of: key, segments) }) else { throw notFound(key) }
        let size = Int64(status.st_size)
        let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        var meta = ObjectMetadata(contentType: "application/octet-stream", metadata: [:], size: size, lastModified: modified, eTag: "")
        let stored = try? await fileSystem.perform { () -> ObjectMetadata? in
            let name = Self.indexName(for: key)
            if let bytes = try Self.readSmall(name, [name], in: "index", files: files) {
                return try? JSONDecoder().decode(ObjectMetadata.self, from: Data(bytes))
            }
            guard let legacy = try? ObjectKey.segments(of: key + ".json"),
                let bytes = try Self.readSmall(key + ".json", legacy, in: "meta", files: files)
            else {
                return nil
            }
            return try? JSONDecoder().decode(ObjectMetadata.self, from: Data(bytes))
        }
        if let stored = stored ?? nil, stored.size == size, stored.key.map({ $0 == key }) ?? true,
            stored.inode.map({ $0 == UInt64(status.st_ino) }) ?? true
        {
            meta = stored
        }
        return meta
    }

    /// A small file's bytes (at most 1 MiB), or `nil` if it is missing.
    private static func readSmall(_ key: String, _ segments: [String], in top: String, files: RootedFiles) throws -> [UInt8]? {
        guard let (fd, status) = try files.openForReading(key, segments, in: top) else { return nil }
        defer { close(fd) }
        guard status.st_size <= 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + done }, $0.count - done, off_t(done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            done += count
        }
        return Array(bytes[0..<done])
    }

    func notFound(_ key: String) -> StorageError {
        StorageError.keyNotFound(key, "There is no object at '\(key)'.", "Check the path; `list` shows which objects exist.")
    }

    /// Reads `key` (or `range` of it) in chunks into `sink`, reporting progress and checking
    /// `gate` between chunks.
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)``, ``StorageError/validation(_:_:_:_:)`` for
    ///   a range outside the object or a link on the path, a cancellation, or the sink's error.
    func read(
        _ key: String, range: StorageByteRange?, gate: StorageTransferGate, progress: @Sendable (Int64, Int64) -> Void,
        sink: ([UInt8]) async throws -> Void
    ) async throws {
        let fileSystem = fileSystem
        try await read(key, range: range, gate: gate, progress: progress, chunkSize: chunkSize) { descriptor, offset, count in
            let chunk = try await fileSystem.read(descriptor, count: count, offset: offset)
            try await sink(chunk)
            return chunk.count
        }
    }

    /// Reads `key` (or `range` of it) into `output` (at its current position) by the kernel's
    /// copy, a chunk at a time, reporting progress and checking `gate` between chunks (see
    /// ``read(_:range:gate:progress:sink:)``).
    func read(_ key: String, range: StorageByteRange?, gate: StorageTransferGate, progress: @Sendable (Int64, Int64) -> Void, into output: Int32)
        async throws
    {
        let fileSystem = fileSystem
        try await read(key, range: range, gate: gate, progress: progress, chunkSize: kernelChunkSize) { descriptor, offset, count in
            try await fileSystem.copyRange(from: descriptor, offset: offset, count: count, to: output)
        }
    }

    /// The read loop: `transfer` moves up to `count` bytes of the object's descriptor from
    /// `offset` and returns how many it moved (0 at the end).
    private func read(
        _ key: String, range: StorageByteRange?, gate: StorageTransferGate, progress: @Sendable (Int64, Int64) -> Void,
        chunkSize: Int, transfer: (Int32, Int64, Int) async throws -> Int
    ) async throws {
        let segments = try ObjectKey.segments(of: key)
        let files = self.files
        // The descriptor is opened once, without following links, and everything is read from it.
        guard let (descriptor, status) = try await fileSystem.perform({ try files.openForReading(key, segments) }) else { throw notFound(key) }
        do {
            let size = Int64(status.st_size)
            var start: Int64 = 0
            var end = size - 1
            if let range {
                guard range.start >= 0, range.start < max(size, 1), (range.end ?? range.start) >= range.start else {
                    throw StorageError.validation(
                        "range", "The range \(range.headerValue) is outside the object '\(key)' of \(size) bytes.",
                        "Ask for a range that starts inside the object.")
                }
                start = range.start
                end = min(range.end ?? end, size - 1)
            }
            let total = max(0, end - start + 1)
            progress(0, total)
            var done: Int64 = 0
            while done < total {
                try await gate.check()
                let count = try await transfer(descriptor, start + done, Int(min(Int64(chunkSize), total - done)))
                if count == 0 { break }
                done += Int64(count)
                progress(done, total)
            }
        } catch {
            try? await fileSystem.close(descriptor)
            throw error
        }
        try await fileSystem.close(descriptor)
    }

    // MARK: Removing and listing

    /// Deletes `key` and its metadata (a link at the key, or on its path, is refused).
    /// - Throws: ``StorageError/keyNotFound(_:_:_:_:)`` when there is no such object.
    func remove(_ key: String) async throws {
        let segments = try ObjectKey.segments(of: key)
        let files = self.files
        let removed = try await fileSystem.perform { () throws -> Bool in
            guard try files.remove(key, segments) else { return false }
            let name = Self.indexName(for: key)
            _ = try? files.remove(name, [name], in: "index")
            Self.removeLegacySidecar(for: key, files: files)
            return true
        }
        guard removed else { throw notFound(key) }
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

extension LoopFileSystem {
    /// Forgets an uncommitted temporary file, on the thread pool.
    func discard(_ name: String?, files: RootedFiles) async {
        guard name != nil else { return }
        _ = try? await perform { files.discardTemporary(name) }
    }
}
