import CLibUV
import Synchronization

/// Watches a socket for readiness on an ``EventLoop`` (a libuv `uv_poll_t`): what an
/// application uses to drive a library that does its own I/O (curl's multi-socket API, hiredis)
/// from the loop. Create, start, stop and close it on the loop thread; its callback runs there.
public final class LoopPoll: LoopOwnedHandle {
    /// What to wait for.
    public struct Events: OptionSet, Sendable {
        /// The flag bits (libuv's `UV_READABLE` / `UV_WRITABLE`).
        public let rawValue: Int32
        /// A set from libuv's bits.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// The socket can be read.
        public static let readable = Events(rawValue: Int32(UV_READABLE.rawValue))
        /// The socket can be written.
        public static let writable = Events(rawValue: Int32(UV_WRITABLE.rawValue))
    }

    private unowned let loop: EventLoop
    private var handle: UnsafeMutablePointer<uv_poll_t>?
    private let callback: (_ status: Int32, _ events: Events) -> Void

    /// Starts watching `socket` for nothing yet; call ``start(_:)``. Loop thread only.
    /// - Parameters:
    ///   - loop: the loop whose thread watches the socket.
    ///   - socket: the file descriptor of a socket the caller owns (it is not closed here).
    ///   - callback: runs on the loop thread with libuv's status (negative on error) and the
    ///     events that are ready.
    /// - Throws: ``EventLoopError`` if libuv refuses the socket or the loop is shutting down.
    public init(loop: EventLoop, socket: Int32, _ callback: @escaping (_ status: Int32, _ events: Events) -> Void) throws(EventLoopError) {
        self.loop = loop
        self.callback = callback
        guard loop.acceptsHandles else { throw EventLoopError.shutDown }
        let poll: UnsafeMutablePointer<uv_poll_t> = try openHandle("uv_poll_init_socket") { uv_poll_init_socket(loop.uvLoop, $0, socket) }
        retainOwner(self, in: poll)
        handle = poll
        loop.register(self)
    }

    /// Waits for `events` (replacing what it waited for). Loop thread only.
    public func start(_ events: Events) {
        guard let handle else { return }
        uv_poll_start(handle, events.rawValue) { poll, status, events in
            // The handle's data is this poll (retainOwner), until the close callback.
            guard let poll, let data = poll.pointee.data else { return }
            Unmanaged<LoopPoll>.fromOpaque(data).takeUnretainedValue().callback(status, Events(rawValue: events))
        }
    }

    /// Stops waiting. Loop thread only.
    public func stop() {
        if let handle { uv_poll_stop(handle) }
    }

    /// Stops and closes the handle; its memory is freed in libuv's close callback. Loop thread only.
    public func close() {
        loop.unregister(self)
        closeOnLoop()
    }

    func closeOnLoop() {
        guard let poll = handle else { return }
        handle = nil
        uv_poll_stop(poll)
        closeAndFree(poll)
    }
}
