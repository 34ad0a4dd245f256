import CLibUV
import Synchronization

/// A one-shot or repeating timer on an ``EventLoop``. Its callback runs on the loop thread.
/// libuv timers have millisecond resolution; durations are rounded up to whole milliseconds.
public final class LoopTimer: @unchecked Sendable, LoopOwnedHandle {
    // @unchecked Sendable: `handle` is created, started, closed and freed on the loop thread only;
    // `cancelled` is atomic and is the only state other threads touch.

    private unowned let loop: EventLoop
    private let callback: @Sendable () -> Void
    private let delay: UInt64
    private let interval: UInt64
    private var handle: UnsafeMutablePointer<uv_timer_t>?
    private let cancelled = Atomic<Bool>(false)

    init(loop: EventLoop, delay: UInt64, interval: UInt64, callback: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.delay = delay
        self.interval = interval
        self.callback = callback
    }

    /// Whether ``cancel()`` was called (a one-shot timer that fired is not "cancelled").
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the timer; no callback starts after `cancel()` returns when called on the loop
    /// thread, and none after the loop next turns when called from another thread. Safe from any
    /// thread; a second call does nothing.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if loop.inEventLoop {
            stopOnLoop()
        } else {
            try? loop.execute { [self] in stopOnLoop() }
        }
    }

    /// Starts the timer. Loop thread only.
    func startOnLoop() throws(EventLoopError) {
        guard !isCancelled else { return }
        let timer: UnsafeMutablePointer<uv_timer_t> = try openHandle("uv_timer_init") { uv_timer_init(loop.uvLoop, $0) }
        retainOwner(self, in: timer)
        handle = timer
        loop.register(self)
        uv_update_time(loop.uvLoop)
        uv_timer_start(
            timer,
            { timer in
                // The handle's data is this timer (retainOwner), until the close callback.
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<LoopTimer>.fromOpaque(data).takeUnretainedValue().fire()
            }, delay, interval)
    }

    private func fire() {
        guard !isCancelled else { return }
        if interval == 0 { stopOnLoop() }
        callback()
    }

    private func stopOnLoop() {
        guard let timer = handle else { return }
        handle = nil
        loop.unregister(self)
        uv_timer_stop(timer)
        closeAndFree(timer)
    }

    func closeOnLoop() {
        cancelled.store(true, ordering: .releasing)
        stopOnLoop()
    }
}

extension EventLoop {
    /// Calls `callback` on the loop thread after `delay`, and then every `interval` if one is given.
    ///
    /// - Returns: the timer; keep it to ``LoopTimer/cancel()`` it. The loop keeps the timer alive
    ///   until it fires (one-shot), is cancelled, or the loop shuts down.
    /// - Throws: ``EventLoopError/shutDown`` if the loop no longer takes work.
    @discardableResult
    public func scheduleTimer(
        after delay: Duration,
        repeating interval: Duration? = nil,
        _ callback: @escaping @Sendable () -> Void
    ) throws(EventLoopError) -> LoopTimer {
        let timer = LoopTimer(
            loop: self,
            delay: Self.milliseconds(delay),
            interval: interval.map { max(1, Self.milliseconds($0)) } ?? 0,
            callback: callback
        )
        if inEventLoop {
            guard acceptsHandles else { throw EventLoopError.shutDown }
            try timer.startOnLoop()
        } else {
            try execute { try? timer.startOnLoop() }
        }
        return timer
    }

    /// The delay libuv is given: whole milliseconds, rounded up, saturating (never a trap).
    static func milliseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.saturatingMilliseconds)
    }
}
