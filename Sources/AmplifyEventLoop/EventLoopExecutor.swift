import AmplifyConcurrency
import Synchronization

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
/// For a task (not an actor) that should run on the loop, prefer ``EventLoopTaskExecutor``
/// (``EventLoop/taskExecutor``).
///
/// Jobs run in the order they were enqueued, interleaved with the loop's other work. A job
/// enqueued after the loop shut down cannot run; it is reported on standard error.
public final class EventLoopExecutor: SerialExecutor {
    private let target = LoopReference()

    init() {}

    /// Binds the executor to the loop that owns it (once, from the loop's initialiser).
    func bind(to loop: EventLoop) { target.bind(loop) }

    /// The loop the jobs run on, while it exists.
    public var loop: EventLoop? { target.loop }

    /// Queues `job` to run on the loop thread, isolated to this executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        target.run { job.runSynchronously(on: executor) }
    }

    /// Traps unless called on the loop thread: the runtime's isolation check for actors on this
    /// executor (`assumeIsolated`, `preconditionIsolated`).
    public func checkIsolated() {
        precondition(loop?.inEventLoop == true, "expected to run on the event loop of this executor")
    }
}

/// A `TaskExecutor` that runs a task's jobs on an ``EventLoop`` thread: code that talks to the
/// loop's clients many times in a row can run there with
/// `withTaskExecutorPreference(loop.taskExecutor) { … }`, and then a call such as an HTTP request
/// starts and resumes on the loop thread without waking another thread, and the task's calls to
/// nonisolated async functions stay there without a turn of the loop each. Code run that way must
/// not block: it holds up every other handle of the loop while it runs.
///
/// Jobs run in the order they were enqueued, interleaved with the loop's other work. A job
/// enqueued after the loop shut down cannot run; it is reported on standard error.
public final class EventLoopTaskExecutor: TaskExecutor {
    private let target = LoopReference()
    private let jobsRun = Atomic<Int>(0)

    init() {}

    /// Binds the executor to the loop that owns it (once, from the loop's initialiser).
    func bind(to loop: EventLoop) { target.bind(loop) }

    /// The loop the jobs run on, while it exists.
    public var loop: EventLoop? { target.loop }

    /// How many jobs this executor has run (for tests: a task's run of calls to nonisolated async
    /// functions that do not suspend should not make one each).
    package var jobCount: Int { jobsRun.load(ordering: .relaxed) }

    /// Queues `job` to run on the loop thread, with this executor as its task executor (and no
    /// actor's isolation, so the task's nonisolated async calls need no switch).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        target.run { [self] in
            jobsRun.add(1, ordering: .relaxed)
            job.runSynchronously(on: executor)
        }
    }
}

/// The loop an executor runs its jobs on: weak, because the loop owns its executors (a job that
/// outlives the loop is reported).
private final class LoopReference: Sendable {
    private struct WeakLoop {
        weak var loop: EventLoop?
    }

    private let target = Locked(WeakLoop())

    func bind(_ loop: EventLoop) {
        target.withLock { $0.loop = loop }
    }

    var loop: EventLoop? { target.withLock { $0.loop } }

    /// Runs `work` on the loop thread, or reports the job it carries as rejected.
    func run(_ work: @escaping @Sendable () -> Void) {
        guard let loop else { return reportRejectedJob(loopName: "(released)") }
        do {
            try loop.execute(work)
        } catch {
            reportRejectedJob(loopName: loop.name)
        }
    }

    private func reportRejectedJob(loopName: String) {
        let message = "amplify: a job was enqueued on event loop '\(loopName)' after it shut down and cannot run\n"
        FileOutput.standardError.write(message)
    }
}
