import AmplifyEventLoop
import CCurlShims

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl's multi-socket API driven by the Amplify event loop: a `LoopPoll` for each socket curl
/// asks about, one `LoopAlarm` for curl's timeouts, `curl_multi_socket_action` when either fires,
/// and each finished transfer handed to its owner. The one driver the HTTP client
/// (AWSPluginsCore) and the WebSocket's connect-only stream (AmplifyWebSocket) share; neither
/// touches a multi handle itself.
///
/// Loop thread only: create it, call it and receive its callbacks there. A finished transfer
/// stays in the multi handle until its owner calls ``remove(_:)`` (a connect-only transfer must
/// stay, since curl finds its connection through the multi handle).
package final class CurlMultiDriver {
    /// The loop the driver runs on.
    package let loop: EventLoop
    private var multi: UnsafeMutableRawPointer?
    private var watches: [curl_socket_t: SocketWatch] = [:]
    /// Sockets curl opened through ``openSocket(family:type:protocol:)`` and has not closed.
    private var connectionSockets: Set<curl_socket_t> = []
    private var alarm: LoopAlarm?
    private let finished: (_ easy: UnsafeMutableRawPointer, _ result: CURLcode) -> Void
    private let watchFailed: (() -> Void)?

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// A driver on `loop` (loop thread) calling `finished` (on the loop thread) with each transfer
    /// curl reports done and its result, and `watchFailed`, if given, when the loop refuses to
    /// watch one of curl's sockets (without it, curl's own timeout ends such a transfer).
    /// `nil` when curl or the loop cannot make the handles.
    package init?(
        loop: EventLoop, watchFailed: (() -> Void)? = nil,
        finished: @escaping (_ easy: UnsafeMutableRawPointer, _ result: CURLcode) -> Void
    ) {
        _ = Self.globalInit
        self.loop = loop
        self.finished = finished
        self.watchFailed = watchFailed
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        let me = Unmanaged.passUnretained(self).toOpaque()
        c_curl_multi_setopt_socket_function(multi) { _, socket, what, userp, _ in
            guard let userp else { return 0 }
            Unmanaged<CurlMultiDriver>.fromOpaque(userp).takeUnretainedValue().socketChanged(socket, what: what)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        c_curl_multi_setopt_timer_function(multi) { _, timeout, userp in
            guard let userp else { return 0 }
            Unmanaged<CurlMultiDriver>.fromOpaque(userp).takeUnretainedValue().timerChanged(timeout)
            return 0
        }
        c_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        // Unowned: the driver closes the alarm before it goes.
        guard let alarm = try? LoopAlarm(loop: loop, { [unowned(unsafe) self] in self.act(on: CURL_SOCKET_TIMEOUT, flags: 0) }) else {
            curl_multi_cleanup(multi)
            self.multi = nil
            return nil
        }
        self.alarm = alarm
    }

    /// Whether ``close()`` has not been called.
    package var isOpen: Bool { multi != nil }

    /// Starts driving `easy`; `false` after ``close()``.
    @discardableResult
    package func add(_ easy: UnsafeMutableRawPointer) -> Bool {
        guard let multi else { return false }
        curl_multi_add_handle(multi, easy)
        return true
    }

    /// Takes `easy` out of the multi handle (finished, or given up).
    package func remove(_ easy: UnsafeMutableRawPointer) {
        if let multi { curl_multi_remove_handle(multi, easy) }
    }

    /// Closes every poll and clears the alarm, leaving the multi handle as it is: for an owner
    /// that now watches the socket of a finished connect-only transfer itself (libuv allows one
    /// poll per descriptor).
    package func closeWatches() {
        alarm?.clear()
        for watch in watches.values { watch.poll.close() }
        watches.removeAll()
    }

    /// Releases curl (cleaning up closes the cached connections, through the close-socket
    /// function) and the loop handles. Transfers still in the multi handle are not reported.
    package func close() {
        if let multi { curl_multi_cleanup(multi) }
        multi = nil
        for watch in watches.values { watch.poll.close() }
        watches.removeAll()
        alarm?.close()
        alarm = nil
    }

    /// How many sockets curl opened through this driver and has not closed yet.
    package var connectionSocketCount: Int { connectionSockets.count }

    /// A socket curl uses and the poll watching it: what it waits for, and whether curl is done
    /// with it for now (a connection kept for reuse).
    private final class SocketWatch {
        let poll: LoopPoll
        var events: LoopPoll.Events = []
        var idle = false
        init(_ poll: LoopPoll) { self.poll = poll }

        /// Stops watching; the next use starts afresh.
        func stop() {
            poll.stop()
            events = []
            idle = false
        }
    }

    private func socketChanged(_ socket: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            guard let watch = watches[socket] else { return }
            if connectionSockets.contains(socket) {
                // A connection going back to curl's cache: still watched for reading, so that
                // the next request on it (curl then asks to read again) changes nothing in epoll
                // (libuv stops and starts a poll with a system call each). The first readiness
                // while idle (the server closing it) stops the watch; curl closing the socket
                // does too (socketClosing).
                watch.idle = true
            } else {
                // A socket curl made without openSocket (its resolver's): closed without telling.
                watch.stop()
            }
            return
        }
        let watch: SocketWatch
        if let existing = watches[socket] {
            watch = existing
        } else {
            guard
                let made = try? LoopPoll(
                    loop: loop, socket: socket,
                    { [unowned(unsafe) self] status, events in
                        self.ready(socket, status: status, events: events)
                    })
            else {
                watchFailed?()
                return
            }
            watch = SocketWatch(made)
            watches[socket] = watch
        }
        watch.idle = false
        var events: LoopPoll.Events = []
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { events.insert(.readable) }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { events.insert(.writable) }
        guard events != watch.events else { return }
        watch.events = events
        watch.poll.start(events)
    }

    private func ready(_ socket: curl_socket_t, status: Int32, events: LoopPoll.Events) {
        if let watch = watches[socket], watch.idle {
            watch.stop()
            return
        }
        var flags: Int32 = 0
        if status < 0 { flags |= CURL_CSELECT_ERR }
        if events.contains(.readable) { flags |= CURL_CSELECT_IN }
        if events.contains(.writable) { flags |= CURL_CSELECT_OUT }
        act(on: socket, flags: flags)
    }

    /// A socket for curl (its open-socket function), close-on-exec, known as a connection's.
    fileprivate func openSocket(family: Int32, type: Int32, protocol: Int32) -> curl_socket_t {
        let socket = Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
        guard socket >= 0 else { return CURL_SOCKET_BAD }
        // A watch left on this number belonged to a socket closed before; it starts afresh.
        watches[socket]?.stop()
        connectionSockets.insert(socket)
        return socket
    }

    /// curl is closing `socket` (its close-socket function): the watch stops first, so that epoll
    /// never watches a number the process may reuse for another file.
    fileprivate func socketClosing(_ socket: curl_socket_t) -> Int32 {
        connectionSockets.remove(socket)
        watches[socket]?.stop()
        return Glibc.close(socket)
    }

    /// Gives `easy` the open- and close-socket functions that keep ``connectionSocketCount`` and
    /// keep a connection kept for reuse watched (curl_easy_reset clears them: set per transfer).
    package func watchSockets(of easy: UnsafeMutableRawPointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        c_curl_easy_setopt_opensocket_function(easy) { clientp, _, address in
            guard let clientp, let address else { return CURL_SOCKET_BAD }
            return Unmanaged<CurlMultiDriver>.fromOpaque(clientp).takeUnretainedValue().openSocket(
                family: address.pointee.family, type: address.pointee.socktype, protocol: address.pointee.protocol)
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me)
        c_curl_easy_setopt_closesocket_function(easy) { clientp, socket in
            guard let clientp else { return Glibc.close(socket) }
            return Unmanaged<CurlMultiDriver>.fromOpaque(clientp).takeUnretainedValue().socketClosing(socket)
        }
        c_curl_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, me)
    }

    private func timerChanged(_ milliseconds: Int) {
        guard milliseconds >= 0 else {
            alarm?.clear()
            return
        }
        alarm?.set(afterMilliseconds: UInt64(milliseconds))
    }

    private func act(on socket: curl_socket_t, flags: Int32) {
        // The polls and the alarm hold the driver unowned, and an owner may let it go from its
        // callback (a stream that failed to connect): it lives until this returns.
        withExtendedLifetime(self) {
            guard let multi else { return }
            var running: Int32 = 0
            curl_multi_socket_action(multi, socket, flags, &running)
            var remaining: Int32 = 0
            // `self.multi` each time: the owner may have closed the driver from a callback.
            while let multi = self.multi, let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                finished(easy, c_curl_message_result(message))
            }
        }
    }
}
