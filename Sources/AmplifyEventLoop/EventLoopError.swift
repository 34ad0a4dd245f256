/// Errors thrown by ``EventLoop`` and the handles and file-system calls that run on it.
public enum EventLoopError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libuv refused to set up the loop or one of its handles; `code` is libuv's negative error code.
    case libuv(operation: String, code: Int32, message: String)
    /// The loop has been shut down (or is shutting down) and takes no more work.
    case shutDown
    /// `shutdown()` was called on the loop's own thread, which cannot wait for itself to stop.
    case calledOnLoopThread(String)
    /// The loop closed with handles still open that it had to close itself; `count` says how many.
    case handlesLeftOpen(count: Int)
    /// A file-system call failed; `code` is libuv's negative error code (for example `UV_ENOENT`).
    case fileSystem(operation: String, path: String, code: Int32, message: String)

    /// A sentence that says what failed and, where it helps, how to fix it.
    public var description: String {
        switch self {
        case .libuv(let operation, let code, let message):
            return "\(operation) failed: \(message) (libuv error \(code))"
        case .shutDown:
            return "the event loop has been shut down and takes no more work; create a new EventLoop"
        case .calledOnLoopThread(let what):
            return "\(what) was called on the event loop's own thread; call it from another thread or task"
        case .handlesLeftOpen(let count):
            return
                "\(count) libuv handle(s) were still open at shutdown and were closed by the loop; close your handles before shutting the loop down"
        case .fileSystem(let operation, let path, let code, let message):
            return "\(operation) '\(path)' failed: \(message) (libuv error \(code))"
        }
    }
}
