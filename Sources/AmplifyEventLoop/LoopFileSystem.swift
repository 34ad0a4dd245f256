import CLibUV

#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` reports about a file.
public struct FileStatus: Sendable, Equatable {
    /// Size in bytes.
    public var size: UInt64
    /// Last modification time, seconds since 1970 (fractional).
    public var modificationTime: Double
    /// The file's mode bits, type included (`S_IFDIR`, `S_IFREG`, `S_IFLNK`, ...).
    public var mode: UInt64

    /// Whether the path names a directory.
    public var isDirectory: Bool { mode & 0o170000 == 0o040000 }
    /// Whether the path names a regular file.
    public var isRegularFile: Bool { mode & 0o170000 == 0o100000 }
    /// Whether the path names a symbolic link (only `lstat` can say so).
    public var isSymbolicLink: Bool { mode & 0o170000 == 0o120000 }
}

/// libuv's asynchronous file-system calls on an ``EventLoop``. Each call is started on the loop
/// (libuv runs it on its thread pool), and the awaiting task resumes when libuv reports
/// completion on the loop thread. The loop itself never blocks on the disk.
///
/// Every call throws ``EventLoopError/fileSystem(operation:path:code:message:)`` with libuv's
/// error code on failure, or ``EventLoopError/shutDown`` if the loop no longer takes work.
public struct LoopFileSystem: Sendable {
    let loop: EventLoop

    /// Opens `path` with `open(2)` flags (`O_RDONLY`, `O_WRONLY | O_CREAT | O_TRUNC`, ...).
    /// - Returns: the file descriptor.
    public func open(_ path: String, flags: Int32, mode: Int32 = 0o644) async throws -> Int32 {
        Int32(
            try await run("open", path) { loop, request, done in
                uv_fs_open(loop, request, path, flags, mode, done)
            })
    }

    /// Closes a descriptor returned by ``open(_:flags:mode:)``.
    public func close(_ descriptor: Int32) async throws {
        _ = try await run("close", "fd \(descriptor)") { loop, request, done in
            uv_fs_close(loop, request, uv_file(descriptor), done)
        }
    }

    /// Reads up to `count` bytes at `offset` (or at the current position when `offset` is nil).
    /// - Returns: the bytes read; fewer than `count` at the end of the file, none past it.
    public func read(_ descriptor: Int32, count: Int, offset: Int64? = nil) async throws -> [UInt8] {
        let buffer = FileBuffer(count: count)
        let read = try await run("read", "fd \(descriptor)", keepAlive: buffer) { loop, request, done in
            var descriptorBuffer = uv_buf_init(buffer.base, UInt32(buffer.count))
            return uv_fs_read(loop, request, uv_file(descriptor), &descriptorBuffer, 1, offset ?? -1, done)
        }
        return buffer.bytes(prefix: read)
    }

    /// Writes all of `bytes` at `offset` (or at the current position when `offset` is nil),
    /// issuing further writes if the system writes only part.
    /// - Returns: the number of bytes written (always `bytes.count`).
    @discardableResult
    public func write(_ descriptor: Int32, _ bytes: [UInt8], offset: Int64? = nil) async throws -> Int {
        var written = 0
        while written < bytes.count {
            let buffer = FileBuffer(copying: bytes[written...])
            let position = offset.map { $0 + Int64(written) }
            let count = try await run("write", "fd \(descriptor)", keepAlive: buffer) { loop, request, done in
                var descriptorBuffer = uv_buf_init(buffer.base, UInt32(buffer.count))
                return uv_fs_write(loop, request, uv_file(descriptor), &descriptorBuffer, 1, position ?? -1, done)
            }
            guard count > 0 else { break }
            written += count
        }
        return written
    }

    /// Copies up to `count` bytes of `source` from `offset` to `destination` at its current
    /// position, inside the kernel: libuv's `uv_fs_sendfile`, which on Linux uses
    /// `copy_file_range(2)` between regular files (else `sendfile(2)`), so no byte passes through
    /// user space and no buffer is held.
    /// - Returns: the bytes copied; fewer than `count` at the end of `source`, none past it.
    public func copyRange(from source: Int32, offset: Int64, count: Int, to destination: Int32) async throws -> Int {
        try await run("sendfile", "fd \(source)") { loop, request, done in
            uv_fs_sendfile(loop, request, uv_file(destination), uv_file(source), offset, count, done)
        }
    }

    /// Flushes a descriptor's data and metadata to the disk (`fsync(2)`).
    public func fsync(_ descriptor: Int32) async throws {
        _ = try await run("fsync", "fd \(descriptor)") { loop, request, done in
            uv_fs_fsync(loop, request, uv_file(descriptor), done)
        }
    }

    /// Renames `source` to `destination`, replacing it atomically if it exists.
    public func rename(_ source: String, to destination: String) async throws {
        _ = try await run("rename", source) { loop, request, done in
            uv_fs_rename(loop, request, source, destination, done)
        }
    }

    /// Removes a file.
    public func unlink(_ path: String) async throws {
        _ = try await run("unlink", path) { loop, request, done in uv_fs_unlink(loop, request, path, done) }
    }

    /// Creates a directory (its parent must exist).
    public func mkdir(_ path: String, mode: Int32 = 0o755) async throws {
        _ = try await run("mkdir", path) { loop, request, done in uv_fs_mkdir(loop, request, path, mode, done) }
    }

    /// Removes an empty directory.
    public func rmdir(_ path: String) async throws {
        _ = try await run("rmdir", path) { loop, request, done in uv_fs_rmdir(loop, request, path, done) }
    }

    /// Follows symbolic links and reports what `path` names.
    public func stat(_ path: String) async throws -> FileStatus {
        try await runStat("stat", path) { loop, request, done in uv_fs_stat(loop, request, path, done) }
    }

    /// Reports on `path` itself, without following a final symbolic link.
    public func lstat(_ path: String) async throws -> FileStatus {
        try await runStat("lstat", path) { loop, request, done in uv_fs_lstat(loop, request, path, done) }
    }

    /// The names in a directory (without `.` and `..`), in the order the system returns them.
    public func listDirectory(_ path: String) async throws -> [String] {
        try await withRequest(
            "scandir", path, keepAlive: nil,
            start: { loop, request, done in
                uv_fs_scandir(loop, request, path, 0, done)
            },
            extract: { request in
                var names: [String] = []
                var entry = uv_dirent_t()
                while uv_fs_scandir_next(request, &entry) == 0 {
                    if let name = entry.name { names.append(String(cString: name)) }
                }
                return names
            })
    }

    private func run(
        _ operation: String, _ path: String, keepAlive: AnyObject? = nil,
        _ start: @escaping @Sendable (UnsafeMutablePointer<uv_loop_t>, UnsafeMutablePointer<uv_fs_t>, uv_fs_cb) -> Int32
    ) async throws -> Int {
        try await withRequest(operation, path, keepAlive: keepAlive, start: start) { Int($0.pointee.result) }
    }

    private func runStat(
        _ operation: String, _ path: String,
        _ start: @escaping @Sendable (UnsafeMutablePointer<uv_loop_t>, UnsafeMutablePointer<uv_fs_t>, uv_fs_cb) -> Int32
    ) async throws -> FileStatus {
        try await withRequest(operation, path, keepAlive: nil, start: start) { request in
            let status = request.pointee.statbuf
            return FileStatus(
                size: status.st_size,
                modificationTime: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9,
                mode: status.st_mode
            )
        }
    }

    private func withRequest<T: Sendable>(
        _ operation: String, _ path: String, keepAlive: AnyObject?,
        start: @escaping @Sendable (UnsafeMutablePointer<uv_loop_t>, UnsafeMutablePointer<uv_fs_t>, uv_fs_cb) -> Int32,
        extract: @escaping @Sendable (UnsafeMutablePointer<uv_fs_t>) -> T
    ) async throws -> T {
        let loop = self.loop
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let pending = FileRequest(operation: operation, path: path, keepAlive: keepAlive) { request in
                let result = request.pointee.result
                if result < 0 {
                    let code = Int32(truncatingIfNeeded: result)
                    continuation.resume(
                        throwing: EventLoopError.fileSystem(
                            operation: operation, path: path, code: code, message: uvErrorMessage(code)))
                } else {
                    continuation.resume(returning: extract(request))
                }
            }
            do {
                try loop.execute { pending.start(on: loop, start) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

extension EventLoop {
    /// Asynchronous file-system calls that run on this loop.
    public var fileSystem: LoopFileSystem { LoopFileSystem(loop: self) }
}

/// One in-flight `uv_fs_t`: allocated on start, cleaned up and freed in libuv's callback.
private final class FileRequest: @unchecked Sendable {
    // @unchecked Sendable: created on a task's thread, then touched only on the loop thread.
    let operation: String
    let path: String
    let keepAlive: AnyObject?
    let complete: @Sendable (UnsafeMutablePointer<uv_fs_t>) -> Void

    init(operation: String, path: String, keepAlive: AnyObject?, complete: @escaping @Sendable (UnsafeMutablePointer<uv_fs_t>) -> Void) {
        self.operation = operation
        self.path = path
        self.keepAlive = keepAlive
        self.complete = complete
    }

    func start(
        on loop: EventLoop,
        _ start: (UnsafeMutablePointer<uv_loop_t>, UnsafeMutablePointer<uv_fs_t>, uv_fs_cb) -> Int32
    ) {
        let request = UnsafeMutablePointer<uv_fs_t>.allocate(capacity: 1)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let rc = start(loop.uvLoop, request) { request in
            guard let request, let data = request.pointee.data else { return }
            let owner = Unmanaged<FileRequest>.fromOpaque(data).takeRetainedValue()
            owner.complete(request)
            uv_fs_req_cleanup(request)
            request.deallocate()
        }
        if rc < 0 {
            // libuv did not queue the request, so its callback will never run.
            request.pointee.result = Int(rc)
            Unmanaged<FileRequest>.fromOpaque(request.pointee.data).release()
            complete(request)
            uv_fs_req_cleanup(request)
            request.deallocate()
        }
    }
}

/// Memory for a read or write that must outlive the call that started it.
private final class FileBuffer: @unchecked Sendable {
    // @unchecked Sendable: filled before the request starts, read after it completes; libuv's
    // thread pool writes it only in between, with the loop's completion as the barrier.
    let base: UnsafeMutablePointer<CChar>
    let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer<CChar>.allocate(capacity: max(count, 1))
    }

    init(copying bytes: ArraySlice<UInt8>) {
        count = bytes.count
        base = UnsafeMutablePointer<CChar>.allocate(capacity: max(count, 1))
        bytes.withUnsafeBytes { source in
            if let source = source.baseAddress { UnsafeMutableRawPointer(base).copyMemory(from: source, byteCount: count) }
        }
    }

    func bytes(prefix: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: min(prefix, count)))
    }

    deinit { base.deallocate() }
}
