import AmplifyEventLoop

/// A weak reference to a loop-thread object (a real-time or Events connection) for callbacks
/// that must be `@Sendable`: they run on the loop thread, where the object lives.
final class ConnectionReference<Connection: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: read on the loop thread only.
    weak var value: Connection?
    init(_ value: Connection) { self.value = value }
}

/// A loop-thread closure carried through a `@Sendable` timer callback.
final class LoopAction<Connection: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: created and run on the loop thread only.
    private let action: (Connection) -> Void
    init(_ action: @escaping (Connection) -> Void) { self.action = action }
    func run(_ connection: Connection) { action(connection) }
}

extension EventLoop {
    /// Runs `action` with `connection` after `delay`, unless the connection is gone by then.
    /// Loop thread only; `nil` when the loop is shut down.
    func schedule<Connection: AnyObject>(_ delay: Duration, on connection: Connection, _ action: @escaping (Connection) -> Void) -> LoopTimer? {
        let reference = ConnectionReference(connection)
        let action = LoopAction(action)
        return try? scheduleTimer(after: delay) {
            if let connection = reference.value { action.run(connection) }
        }
    }
}
