import CLibUV

extension LoopFileSystem {
    /// Runs `work` on libuv's thread pool, where the loop's other file calls run, and resumes
    /// with what it returns or throws. For file-system work libuv has no call for (a walk with
    /// `openat(2)` and `O_NOFOLLOW` from a folder descriptor, say); `work` may block on the disk
    /// but should not wait on anything else (the pool has few threads).
    /// - Throws: what `work` throws, or ``EventLoopError/shutDown`` if the loop no longer takes work.
    public func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let loop = self.loop
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = WorkOutcome<T>()
            let pending = PoolWork(
                run: { outcome.result = Result { try work() } },
                finish: { status in
                    if status == 0, let result = outcome.result {
                        continuation.resume(with: result)
                    } else {
                        continuation.resume(throwing: EventLoopError.libuv(operation: "uv_queue_work", code: status, message: uvErrorMessage(status)))
                    }
                })
            do {
                try loop.execute { pending.start(on: loop) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Where the pool thread leaves the work's result for the loop thread.
private final class WorkOutcome<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: written on the pool thread, read on the loop thread after libuv's
    // completion callback, which orders the two.
    var result: Result<T, any Error>?
}

/// One `uv_work_t`: queued on the loop thread, run on the pool, finished on the loop thread.
private final class PoolWork: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; each closure runs on one thread.
    private let run: @Sendable () -> Void
    private let finish: @Sendable (Int32) -> Void

    init(run: @escaping @Sendable () -> Void, finish: @escaping @Sendable (Int32) -> Void) {
        self.run = run
        self.finish = finish
    }

    func start(on loop: EventLoop) {
        let request = UnsafeMutablePointer<uv_work_t>.allocate(capacity: 1)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let rc = uv_queue_work(
            loop.uvLoop, request,
            { request in
                guard let request, let data = request.pointee.data else { return }
                Unmanaged<PoolWork>.fromOpaque(data).takeUnretainedValue().run()
            },
            { request, status in
                guard let request, let data = request.pointee.data else { return }
                let owner = Unmanaged<PoolWork>.fromOpaque(data).takeRetainedValue()
                request.deallocate()
                owner.finish(status)
            })
        if rc < 0 {
            // Not queued: neither callback will run.
            Unmanaged<PoolWork>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            finish(rc)
        }
    }
}
