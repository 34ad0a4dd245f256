import AmplifyConcurrency
import CLibUV
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A libuv event loop running on a thread of its own.
///
/// Work enters the loop from any thread through ``execute(_:)`` (a locked queue plus one
/// `uv_async_send`; the loop drains the whole queue on every wake-up because libuv coalesces
/// sends; work queued on the loop thread itself wakes nothing: an idle handle drains it on the
/// next turn). Timers (``scheduleTimer(after:repeating:_:)``), wake-ups for an application's own queues
/// (``LoopWakeup/make(on:_:)``), asynchronous file-system calls (``fileSystem``), socket polls
/// (``LoopPoll``), TCP (``LoopTCPListener``, ``LoopTCPConnection``), an actor executor
/// (``executor``) and a task executor (``taskExecutor``) all run on the same thread. ``shutdown()`` runs what was queued, closes every
/// handle in its close callback, and closes the loop.
///
/// Thread safety: every public member may be called from any thread unless its documentation
/// says otherwise. Callbacks always run on the loop thread.
public final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: `uvLoop`, `handles`, `spareBatch` and `idle` are touched only on the
    // loop thread (or before it starts and after it is joined); `wakeup` is
    // set before the thread starts and only read afterwards; everything else shared across
    // threads sits in `queue` (a Locked) or in atomics.

    private struct Queue {
        var work: [@Sendable () -> Void] = []
        var wakeupPending = false
        var acceptingWork = true
    }

    /// The name given to the loop thread (visible in `top -H` and debuggers).
    public let name: String
    /// A serial executor running on this loop, so an actor can be isolated to it; see
    /// ``EventLoopExecutor``. Every call returns the same executor.
    public let executor = EventLoopExecutor()
    /// A task executor running on this loop, so a task can prefer it
    /// (`withTaskExecutorPreference(loop.taskExecutor) { … }`); see ``EventLoopTaskExecutor``.
    public let taskExecutor = EventLoopTaskExecutor()
    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let queue = Locked(Queue())
    /// Set once in `init`, before the loop thread exists, and never changed: any thread signals
    /// it (after shutdown closed it, a signal does nothing).
    private var wakeup: LoopWakeup?
    /// Drains work queued on the loop thread itself, on the next turn (an active idle handle
    /// also keeps that turn's poll from blocking). `nil` once closed at shutdown.
    private var idle: UnsafeMutablePointer<uv_idle_t>?
    /// How many times work queued from another thread signalled the wake-up (for tests).
    private let signals = Atomic<Int>(0)
    private var handles: [ObjectIdentifier: any LoopOwnedHandle] = [:]
    private var shutdownHooks: [() -> Void] = []
    private var spareBatch: [@Sendable () -> Void] = []
    private let loopThreadID = Atomic<UInt>(0)
    private let threadStarted = Atomic<Bool>(false)
    private var thread: pthread_t = 0
    private let joined = Locked(false)
    /// Handles the loop had to close itself at shutdown (set on the loop thread before it exits).
    private let strayHandles = Atomic<Int>(0)
    private let loopCloseResult = Atomic<Int32>(0)

    /// Starts a loop on a new thread.
    ///
    /// - Parameter name: the thread's name (at most 15 bytes are kept).
    /// - Throws: ``EventLoopError/libuv(operation:code:message:)`` if libuv cannot initialise the
    ///   loop or the thread cannot be created.
    public init(name: String = "event-loop") throws(EventLoopError) {
        self.name = name
        uvLoop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        let rc = uv_loop_init(uvLoop)
        guard rc == 0 else {
            uvLoop.deallocate()
            throw EventLoopError.libuv(operation: "uv_loop_init", code: rc, message: uvErrorMessage(rc))
        }
        executor.bind(to: self)
        taskExecutor.bind(to: self)
        // The loop is not running yet, so its first handles may be set up from this thread.
        do {
            let idle: UnsafeMutablePointer<uv_idle_t> = try openHandle("uv_idle_init") { uv_idle_init(uvLoop, $0) }
            // Unretained: the loop thread holds the loop while it runs, and shutdown closes the handle.
            idle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            self.idle = idle
            wakeup = try LoopWakeup(unstartedLoop: self) { [unowned self] in self.drainWork() }
        } catch {
            if let idle { closeIdle(idle) }
            // (Runs the idle handle's close callback, which frees it.)
            uv_run(uvLoop, UV_RUN_NOWAIT)
            uv_loop_close(uvLoop)
            uvLoop.deallocate()
            throw error
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let loop = Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue()
                loop.runOnLoopThread()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw EventLoopError.libuv(operation: "pthread_create", code: -created, message: String(cString: strerror(created)))
        }
        threadStarted.store(true, ordering: .releasing)
    }

    deinit {
        // Reached only once the thread has exited (it holds a reference while it runs).
        if threadStarted.load(ordering: .acquiring) { uvLoop.deallocate() }
    }

    /// `true` when called on this loop's thread.
    public var inEventLoop: Bool {
        pthread_equal(pthread_self(), pthread_t(loopThreadID.load(ordering: .acquiring))) != 0
    }

    /// Runs `work` on the loop thread, after all work submitted before it. May be called from any
    /// thread, including the loop thread (the work then runs on a later turn, never inline, and
    /// queuing it costs no system call).
    ///
    /// - Throws: ``EventLoopError/shutDown`` once ``shutdown()`` has begun; the work does not run.
    public func execute(_ work: @escaping @Sendable () -> Void) throws(EventLoopError) {
        let mustWake = try queue.withLock { (state: inout Queue) throws(EventLoopError) -> Bool in
            guard state.acceptingWork else { throw EventLoopError.shutDown }
            state.work.append(work)
            if state.wakeupPending { return false }
            state.wakeupPending = true
            return true
        }
        guard mustWake else { return }
        if inEventLoop {
            startIdleDrain()
        } else {
            signals.add(1, ordering: .relaxed)
            wakeup?.signal()
        }
    }

    /// How many times work queued from another thread had to signal the loop's wake-up (for
    /// tests: work queued on the loop thread signals nothing).
    package var wakeupSignalCount: Int { signals.load(ordering: .relaxed) }

    /// What `read` gives on the loop thread, after all work submitted before it, without holding
    /// a thread while waiting; `fallback` when the loop no longer takes work. For reading state
    /// that lives on the loop (counts for tests, say) from a task.
    package func value<T: Sendable>(ifShutDown fallback: T, _ read: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            do {
                try execute { continuation.resume(returning: read()) }
            } catch {
                continuation.resume(returning: fallback)
            }
        }
    }

    /// Runs `work` on the loop thread and waits for it: inline when already on the loop thread,
    /// otherwise by blocking the calling thread until the loop has run it. Use it to set up
    /// handles from off the loop; never call it from a task that the loop itself must serve.
    ///
    /// - Throws: ``EventLoopError/shutDown`` if the loop no longer takes work, or what `work` throws.
    public func submitAndWait<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        if inEventLoop { return try work() }
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        try execute {
            let result = Result { try work() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw EventLoopError.shutDown }
        return try result.get()
    }

    /// Registers `hook` to run on the loop thread when ``shutdown()`` begins, before the loop
    /// closes the handles still open: the place for an application to close handles of its own.
    /// Loop thread only.
    public func onShutdown(_ hook: @escaping () -> Void) {
        shutdownHooks.append(hook)
    }

    /// Stops the loop: runs all work queued before the call, calls the ``onShutdown(_:)`` hooks,
    /// closes every handle still open (timers, wake-ups; each freed in its close callback), lets
    /// pending file-system requests finish, closes the libuv loop and joins its thread. Calling it
    /// again after it has returned does nothing.
    ///
    /// - Throws: ``EventLoopError/calledOnLoopThread(_:)`` on the loop thread;
    ///   ``EventLoopError/handlesLeftOpen(count:)`` if handles created outside this module were
    ///   still open (the loop closed them, so it still ended cleanly).
    public func shutdown() throws(EventLoopError) {
        guard !inEventLoop else { throw EventLoopError.calledOnLoopThread("EventLoop.shutdown()") }
        let alreadyJoined = joined.withLock { $0 }
        if alreadyJoined { return }
        let wasAccepting = queue.withLock { (state: inout Queue) -> Bool in
            let was = state.acceptingWork
            if was {
                state.work.append { [unowned self] in self.closeAllHandles() }
                state.acceptingWork = false
                state.wakeupPending = true
            }
            return was
        }
        if wasAccepting { wakeup?.signal() }
        joined.withLock { isJoined in
            guard !isJoined else { return }
            pthread_join(thread, nil)
            isJoined = true
        }
        let stray = strayHandles.load(ordering: .acquiring)
        if stray > 0 { throw EventLoopError.handlesLeftOpen(count: stray) }
    }

    /// Whether the loop still takes work: `false` from the moment ``shutdown()`` begins.
    public var isAcceptingWork: Bool { queue.withLock { $0.acceptingWork } }

    /// Whether ``shutdown()`` has completed and the libuv loop is closed. After a clean shutdown,
    /// `uv_loop_close` returned 0: ``loopClosedCleanly`` says so.
    public var isShutDown: Bool { joined.withLock { $0 } }

    /// `true` once the loop has shut down and `uv_loop_close` returned 0 (no handle left open).
    public var loopClosedCleanly: Bool { isShutDown && loopCloseResult.load(ordering: .acquiring) == 0 }

    // MARK: Loop thread

    private func runOnLoopThread() {
        loopThreadID.store(UInt(pthread_self()), ordering: .releasing)
        ThreadName.setCurrent(name)
        uv_run(uvLoop, UV_RUN_DEFAULT)
        var result = uv_loop_close(uvLoop)
        if result != 0 {
            // Handles created outside this module: close them, let their callbacks run, retry.
            var stray = 0
            uv_walk(
                uvLoop,
                { handle, argument in
                    guard let handle, let argument else { return }
                    argument.assumingMemoryBound(to: Int.self).pointee += 1
                    if uv_is_closing(handle) == 0 { uv_close(handle, nil) }
                }, &stray)
            uv_run(uvLoop, UV_RUN_DEFAULT)
            strayHandles.store(stray, ordering: .releasing)
            result = uv_loop_close(uvLoop)
        }
        loopCloseResult.store(result, ordering: .releasing)
    }

    /// Drains the queue on the next turn (loop thread only; starting a started idle handle does
    /// nothing).
    private func startIdleDrain() {
        guard let idle else { return }
        uv_idle_start(idle) { idle in
            guard let idle, let data = idle.pointee.data else { return }
            uv_idle_stop(idle)
            Unmanaged<EventLoop>.fromOpaque(data).takeUnretainedValue().drainWork()
        }
    }

    /// Stops and closes the idle handle; its memory is freed in the close callback. (Its data is
    /// the loop unretained: cleared first, so that closeAndFree releases nothing.)
    private func closeIdle(_ idle: UnsafeMutablePointer<uv_idle_t>) {
        uv_idle_stop(idle)
        idle.pointee.data = nil
        closeAndFree(idle)
    }

    private func drainWork() {
        var batch = spareBatch
        queue.withLock { state in
            swap(&state.work, &batch)
            state.wakeupPending = false
        }
        for work in batch { work() }
        batch.removeAll(keepingCapacity: true)
        spareBatch = batch
        // Work queued while the batch ran has signalled the wake-up again, so the loop returns here.
    }

    private func closeAllHandles() {
        let hooks = shutdownHooks
        shutdownHooks.removeAll()
        for hook in hooks { hook() }
        let open = handles
        handles.removeAll()
        for handle in open.values { handle.closeOnLoop() }
        // Closed, not cleared: execute() and shutdown() read it from other threads.
        wakeup?.closeOnLoop()
        // (Read only on the loop thread: cleared.) The work queued before shutdown began has run,
        // in this batch or an earlier one.
        if let idle {
            self.idle = nil
            closeIdle(idle)
        }
    }

    func register(_ handle: any LoopOwnedHandle) {
        handles[ObjectIdentifier(handle)] = handle
    }

    func unregister(_ handle: any LoopOwnedHandle) {
        handles.removeValue(forKey: ObjectIdentifier(handle))
    }

    /// Whether new handles may still be opened (loop thread only): false once shutdown began.
    var acceptsHandles: Bool { queue.withLock { $0.acceptingWork } }
}

func uvErrorMessage(_ code: Int32) -> String {
    String(cString: uv_strerror(code))
}
