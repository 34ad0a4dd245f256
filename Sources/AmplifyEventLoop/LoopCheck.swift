import CLibUV

/// Runs a callback once per turn of an ``EventLoop``, right after that turn's I/O callbacks (a
/// libuv `uv_check_t`), while it is started: how work gathered across the callbacks of one turn
/// (the frames of one socket read, say) is finished once, at the end. Starting and stopping cost
/// no system call. Create, start, stop and close it on the loop thread; its callback runs there.
public final class LoopCheck: LoopOwnedHandle {
    private unowned let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_check_t>?
    private let callback: () -> Void
    private var started = false

    /// A check that is not started yet. Loop thread only.
    /// - Parameters:
    ///   - loop: the loop whose thread runs `callback`.
    ///   - callback: runs on the loop thread at the end of every turn while the check is started.
    /// - Throws: ``EventLoopError`` if the loop is shutting down or libuv refuses the handle.
    public init(loop: EventLoop, _ callback: @escaping () -> Void) throws(EventLoopError) {
        self.loop = loop
        self.callback = callback
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        let check: UnsafeMutablePointer<uv_check_t> = try openHandle("uv_check_init") { uv_check_init(loop.uvLoop, $0) }
        retainOwner(self, in: check)
        handle = check
        loop.register(self)
    }

    /// Runs the callback at the end of this turn and every turn after it until ``stop()``.
    /// Starting a started check does nothing. Loop thread only.
    public func start() {
        guard !started, let handle else { return }
        started = true
        uv_check_start(handle) { check in
            // The handle's data is this check (retainOwner), until the close callback.
            guard let check, let data = check.pointee.data else { return }
            Unmanaged<LoopCheck>.fromOpaque(data).takeUnretainedValue().callback()
        }
    }

    /// Stops running the callback. Loop thread only.
    public func stop() {
        guard started, let handle else { return }
        started = false
        uv_check_stop(handle)
    }

    /// Stops and closes the check; its memory is freed in libuv's close callback. Loop thread only.
    public func close() {
        loop.unregister(self)
        closeOnLoop()
    }

    func closeOnLoop() {
        guard let check = handle else { return }
        handle = nil
        started = false
        uv_check_stop(check)
        closeAndFree(check)
    }
}
