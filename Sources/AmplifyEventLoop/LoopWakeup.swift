import CLibUV
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A libuv async handle: any thread calls ``signal()``, and the loop thread runs the callback
/// soon after. Several signals before the callback runs are coalesced into one call, so the
/// callback must drain everything its owner queued.
///
/// This is the building block for an application's own cross-thread queue on the loop (the Hub
/// uses one). The callback runs on the loop thread; it also runs once more when the handle is
/// closed, so nothing signalled before ``close()`` is left undrained.
public final class LoopWakeup: @unchecked Sendable, LoopOwnedHandle {
    // @unchecked Sendable: `handle` is initialised, closed and freed on the loop thread; the only
    // cross-thread use is uv_async_send (thread-safe by libuv's contract), guarded by `gate` so
    // that no send can be in flight when the handle is closed.

    private static let closedBit = 1 << 40
    private let handle: UnsafeMutablePointer<uv_async_t>
    private let callback: () -> Void
    private let gate = Atomic<Int>(0)
    private unowned let loop: EventLoop

    /// Creates a wake-up on `loop`. From off the loop this waits for the loop to set it up.
    ///
    /// - Parameters:
    ///   - loop: the loop whose thread runs `callback`.
    ///   - callback: runs on the loop thread after one or more ``signal()`` calls.
    /// - Throws: ``EventLoopError/shutDown`` if the loop is shutting down, or a libuv error.
    public static func make(on loop: EventLoop, _ callback: @escaping @Sendable () -> Void) throws -> LoopWakeup {
        try loop.submitAndWait { () throws -> LoopWakeup in
            guard loop.acceptsHandles else { throw EventLoopError.shutDown }
            let wakeup = try LoopWakeup(unstartedLoop: loop, callback)
            loop.register(wakeup)
            return wakeup
        }
    }

    /// Sets the handle up on the calling thread: only on the loop thread, or before the loop runs.
    init(unstartedLoop loop: EventLoop, _ callback: @escaping () -> Void) throws(EventLoopError) {
        self.loop = loop
        self.callback = callback
        handle = try openHandle("uv_async_init") { handle in
            uv_async_init(loop.uvLoop, handle) { handle in
                guard let handle, let data = handle.pointee.data else { return }
                Unmanaged<LoopWakeup>.fromOpaque(data).takeUnretainedValue().callback()
            }
        }
        // Released in the close callback, which also frees the handle.
        retainOwner(self, in: handle)
    }

    /// Wakes the loop. Safe from any thread, at any time; returns `false` (and does nothing) once
    /// the handle is closed.
    @discardableResult
    public func signal() -> Bool {
        let previous = gate.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        defer { gate.wrappingSubtract(1, ordering: .releasing) }
        guard previous & Self.closedBit == 0 else { return false }
        uv_async_send(handle)
        return true
    }

    /// Closes the handle: runs the callback one last time, then closes it; its memory is freed in
    /// libuv's close callback. Safe from any thread (off the loop it is queued); a second call does
    /// nothing.
    public func close() {
        if loop.inEventLoop {
            loop.unregister(self)
            closeOnLoop()
        } else {
            try? loop.execute { [self] in
                loop.unregister(self)
                closeOnLoop()
            }
        }
    }

    func closeOnLoop() {
        let previous = gate.bitwiseOr(Self.closedBit, ordering: .acquiringAndReleasing).oldValue
        guard previous & Self.closedBit == 0 else { return }
        // A sender that passed the closed check before the bit was set finishes its send first.
        while gate.load(ordering: .acquiring) & (Self.closedBit - 1) != 0 { sched_yield() }
        callback()
        closeAndFree(handle)
    }
}
