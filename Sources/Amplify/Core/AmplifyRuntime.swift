import AmplifyConcurrency
import AmplifyEventLoop

/// Owns the event loop every category shares. The loop starts on first use (the Hub works
/// before `configure`) and is shut down by `Amplify.reset()`; the next use starts a new one.
final class AmplifyRuntime: Sendable {
    static let shared = AmplifyRuntime()

    private let loop = Locked<EventLoop?>(nil)

    /// The running loop, started if needed. A loop that someone shut down (or is shutting down)
    /// directly, not through ``shutdownLoop()``, is replaced by a new one.
    /// - Throws: ``EventLoopError`` if libuv or the thread cannot start.
    func eventLoop() throws -> EventLoop {
        try loop.withLock { current in
            if let current, current.isAcceptingWork { return current }
            let started = try EventLoop(name: "amplify-loop")
            current = started
            return started
        }
    }

    /// The loop if one is running, without starting one.
    var runningLoop: EventLoop? { loop.withLock { $0 } }

    /// Shuts the loop down (if one runs) and forgets it.
    /// - Throws: ``EventLoopError`` from `shutdown()`.
    func shutdownLoop() throws {
        guard
            let current = loop.withLock({ current -> EventLoop? in
                defer { current = nil }
                return current
            })
        else { return }
        try current.shutdown()
    }
}
