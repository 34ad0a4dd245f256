import CLibUV

/// A timer for the loop thread that is set, moved and cleared any number of times on one libuv
/// handle: what drives a library's timeouts, such as curl's, which change several times per
/// request (a ``LoopTimer`` per change would open and close a handle each time). Create, set,
/// clear and close it on the loop thread; its callback runs there.
public final class LoopAlarm: LoopOwnedHandle {
    private unowned let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_timer_t>?
    private let callback: () -> Void

    /// An alarm that is not set yet. Loop thread only.
    /// - Parameters:
    ///   - loop: the loop whose thread runs `callback`.
    ///   - callback: runs on the loop thread each time a setting comes due.
    /// - Throws: ``EventLoopError`` if the loop is shutting down or libuv refuses the timer.
    public init(loop: EventLoop, _ callback: @escaping () -> Void) throws(EventLoopError) {
        self.loop = loop
        self.callback = callback
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        let timer: UnsafeMutablePointer<uv_timer_t> = try openHandle("uv_timer_init") { uv_timer_init(loop.uvLoop, $0) }
        retainOwner(self, in: timer)
        handle = timer
        loop.register(self)
    }

    /// Sets the alarm to go off once, `milliseconds` from now (replacing any earlier setting).
    /// Loop thread only.
    public func set(afterMilliseconds milliseconds: UInt64) {
        guard let handle else { return }
        uv_update_time(loop.uvLoop)
        uv_timer_start(
            handle,
            { timer in
                // The handle's data is this alarm (retainOwner), until the close callback.
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<LoopAlarm>.fromOpaque(data).takeUnretainedValue().callback()
            }, milliseconds, 0)
    }

    /// Clears the setting, if any. Loop thread only.
    public func clear() {
        if let handle { uv_timer_stop(handle) }
    }

    /// Clears and closes the alarm; its memory is freed in libuv's close callback. Loop thread only.
    public func close() {
        loop.unregister(self)
        closeOnLoop()
    }

    func closeOnLoop() {
        guard let timer = handle else { return }
        handle = nil
        uv_timer_stop(timer)
        closeAndFree(timer)
    }
}
