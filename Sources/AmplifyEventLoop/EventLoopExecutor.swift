/// A `SerialExecutor` that runs jobs on an ``EventLoop`` thread, so an actor can be isolated to
/// the loop:
///
/// ```swift
/// actor Session {
///     nonisolated let unownedExecutor: UnownedSerialExecutor
///     init(loop: EventLoop) { unownedExecutor = loop.executor.asUnownedSerialExecutor() }
/// }
/// ```
///
/// Jobs run in the order they were enqueued, interleaved with the loop's other work. A job
/// enqueued after the loop shut down cannot run; it is reported on standard error.
public final class EventLoopExecutor: SerialExecutor {
    /// The loop the jobs run on.
    public let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Queues `job` to run on the loop thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        do {
            try loop.execute { job.runSynchronously(on: executor) }
        } catch {
            reportRejectedJob()
        }
    }

    /// Traps unless called on the loop thread: the runtime's isolation check for actors on this
    /// executor (`assumeIsolated`, `preconditionIsolated`).
    public func checkIsolated() {
        precondition(loop.inEventLoop, "expected to run on event loop '\(loop.name)'")
    }

    private func reportRejectedJob() {
        let message = "amplify: a job was enqueued on event loop '\(loop.name)' after it shut down and cannot run\n"
        FileOutput.standardError.write(message)
    }
}

extension EventLoop {
    /// A serial executor running on this loop; see ``EventLoopExecutor``.
    public var executor: EventLoopExecutor { EventLoopExecutor(loop: self) }
}
