import AmplifyConcurrency


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
/// It is also a `TaskExecutor`: code that talks to the loop's clients many times in a row can run
/// on the loop thread with `withTaskExecutorPreference(loop.executor) { … }`, and then a call
/// such as an HTTP request starts and resumes there without waking another thread. Code run that
/// way must not block: it holds up every other handle of the loop while it runs.
///
/// Jobs run in the order they were enqueued, interleaved with the loop's other work. A job
/// enqueued after the loop shut down cannot run; it is reported on standard error.
public final class EventLoopExecutor: SerialExecutor, TaskExecutor {
    private struct WeakLoop {
        weak var loop: EventLoop?
    }

    // Weak: the loop owns its executor; an actor that outlives its loop gets its jobs reported.
    private let target = Locked(WeakLoop())

    init() {}

    /// Binds the executor to the loop that owns it (once, from the loop's initialiser).
    func bind(to loop: EventLoop) {
        target.withLock { $0.loop = loop }
    }

    /// The loop the jobs run on, while it exists.
    public var loop: EventLoop? { target.withLock { $0.loop } }

    /// Queues `job` to run on the loop thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        let taskExecutor = asUnownedTaskExecutor()
        guard let loop else { return reportRejectedJob(loopName: "(released)") }
        do {
            try loop.execute { job.runSynchronously(isolatedTo: executor, taskExecutor: taskExecutor) }
        } catch {
            reportRejectedJob(loopName: loop.name)
        }
    }

    /// Traps unless called on the loop thread: the runtime's isolation check for actors on this
    /// executor (`assumeIsolated`, `preconditionIsolated`).
    public func checkIsolated() {
        precondition(loop?.inEventLoop == true, "expected to run on the event loop of this executor")
    }

    private func reportRejectedJob(loopName: String) {
        let message = "amplify: a job was enqueued on event loop '\(loopName)' after it shut down and cannot run\n"
        FileOutput.standardError.write(message)
    }
}
