import AmplifyEventLoop
import CHiredis
import CHiredisShims
import Foundation

/// One hiredis asynchronous connection, driven by the event loop through a ``LoopPoll`` on its
/// socket, as curl is: the C shim reports the read/write interest hiredis wants, the poll waits
/// for it, and readiness is handed back to `redisAsyncHandleRead` / `redisAsyncHandleWrite`.
/// Loop thread only. hiredis frees the context itself after a failed connect or a disconnect;
/// ``close()`` frees it otherwise. Either way hiredis's cleanup closes the poll (its handle is
/// freed in libuv's close callback), and the loop closes a poll still open when it shuts down.
package final class RedisConnection {
    /// Called with `nil` once connected, or with the reason the connection failed or ended.
    package var onStateChange: (String?) -> Void = { _ in }
    /// Set from connect until hiredis's cleanup (or ``close()``): after that the context may be
    /// freed and is never touched again.
    private var context: UnsafeMutablePointer<redisAsyncContext>?
    private var poll: LoopPoll?
    /// The interest hiredis last reported.
    private var wantRead = false
    private var wantWrite = false
    package private(set) var isConnected = false
    private var closing = false
    private var subscription: ReplyBox?

    /// A connection not yet connected.
    package init() {}

    /// Starts connecting to `host`:`port` on `loop`.
    /// - Returns: `nil`, or why the connection could not even start.
    package func connect(host: String, port: Int, loop: EventLoop) -> String? {
        guard (1...65_535).contains(port), let cPort = Int32(exactly: port) else { return "the port \(port) is not from 1 to 65535" }
        guard let context = redisAsyncConnect(host, cPort) else { return "hiredis could not allocate a connection" }
        if context.pointee.err != 0 {
            let message = c_redis_error_text(context).map { String(cString: $0) } ?? "connection error"
            redisAsyncFree(context)
            return message
        }
        let poll: LoopPoll
        do {
            poll = try LoopPoll(loop: loop, socket: c_redis_fd(context)) { [weak self] status, events in
                self?.socketReady(status: status, events: events)
            }
        } catch {
            redisAsyncFree(context)
            return "hiredis's socket could not be watched on the event loop: \(error)"
        }
        let owner = Unmanaged.passUnretained(self).toOpaque()
        c_redis_set_data(context, owner)
        let attached = c_redis_attach(
            context, owner,
            { owner, wantRead, wantWrite in
                guard let owner else { return }
                Unmanaged<RedisConnection>.fromOpaque(owner).takeUnretainedValue().watch(read: wantRead != 0, write: wantWrite != 0)
            },
            { owner in
                guard let owner else { return }
                Unmanaged<RedisConnection>.fromOpaque(owner).takeUnretainedValue().cleanedUp()
            })
        guard attached == REDIS_OK else {
            poll.close()
            redisAsyncFree(context)
            return "hiredis could not attach to the event loop"
        }
        self.poll = poll
        redisAsyncSetConnectCallback(context) { context, status in
            guard let context, let owner = RedisConnection.owner(of: context) else { return }
            owner.connected(status == REDIS_OK, error: c_redis_error_text(context).map { String(cString: $0) })
        }
        redisAsyncSetDisconnectCallback(context) { context, status in
            guard let context, let owner = RedisConnection.owner(of: context) else { return }
            owner.disconnected(
                error: status == REDIS_OK ? "disconnected" : c_redis_error_text(context).map { String(cString: $0) } ?? "connection lost")
        }
        self.context = context
        // hiredis 0.14 notices that a non-blocking connect finished (or failed) only when it
        // next handles the socket, and it watches the socket only while a command is queued:
        // queue a PING so the connect callback always comes.
        send([Array("PING".utf8)]) { _ in }
        return nil
    }

    private static func owner(of context: UnsafePointer<redisAsyncContext>) -> RedisConnection? {
        c_redis_get_data(context).map { Unmanaged<RedisConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// hiredis wants to hear about readability and/or writability (from the shim's hooks).
    private func watch(read: Bool, write: Bool) {
        wantRead = read
        wantWrite = write
        guard let poll else { return }
        var events: LoopPoll.Events = []
        if read { events.insert(.readable) }
        if write { events.insert(.writable) }
        if events.isEmpty { poll.stop() } else { poll.start(events) }
    }

    /// hiredis is freeing the context (the socket closes right after): stop watching it.
    private func cleanedUp() {
        context = nil
        isConnected = false
        poll?.close()
        poll = nil
    }

    private func socketReady(status: Int32, events: LoopPoll.Events) {
        guard let context else { return }
        guard status == 0 else {
            // libuv reports a socket error (a refused connect, a reset connection) as a poll
            // status and stops polling; hand the socket to hiredis, which reads the error and
            // runs its disconnect path instead of waiting forever.
            if c_redis_is_connected(context) != 0 {
                redisAsyncHandleRead(context)
            } else {
                redisAsyncHandleWrite(context)
            }
            // libuv stopped the poll; if hiredis kept the connection, watch again for what it
            // still wants (the shim reports only changes, so no new report would restart it).
            if self.context != nil { watch(read: wantRead, write: wantWrite) }
            return
        }
        if events.contains(.readable) { redisAsyncHandleRead(context) }
        // A read may have ended the connection, and hiredis's cleanup then cleared `context`.
        if events.contains(.writable), let context = self.context { redisAsyncHandleWrite(context) }
    }

    private func connected(_ success: Bool, error: String?) {
        if success {
            isConnected = true
            if !closing { onStateChange(nil) }
        } else {
            context = nil  // hiredis frees a context whose connect failed
            if !closing { onStateChange(error ?? "connection refused") }
        }
    }

    private func disconnected(error: String) {
        isConnected = false
        context = nil  // hiredis frees the context after this callback
        if !closing { onStateChange(error) }
    }

    /// Sends a command; `reply` gets its reply, or `nil` if the connection ended first.
    /// - Returns: whether the command was queued.
    @discardableResult
    package func send(_ arguments: [[UInt8]], reply: ((RedisReply?) -> Void)? = nil) -> Bool {
        guard let context else { return false }
        let box = reply.map { Unmanaged.passRetained(ReplyBox($0)).toOpaque() }
        let queued = Self.withArgv(arguments) { count, argv, lengths in
            redisAsyncCommandArgv(
                context,
                box == nil
                    ? nil
                    : { _, reply, privdata in
                        guard let privdata else { return }
                        let box = Unmanaged<ReplyBox>.fromOpaque(privdata).takeRetainedValue()
                        box.handler(reply.map(RedisReply.init))
                    }, box, count, argv, lengths) == REDIS_OK
        }
        if !queued, let box { Unmanaged<ReplyBox>.fromOpaque(box).release() }
        return queued
    }

    /// Sends `SUBSCRIBE channel`; `message` gets every reply on it (the confirmation, then each
    /// message), and `nil` when the connection ends.
    package func subscribe(_ channel: String, message: @escaping (RedisReply?) -> Void) {
        guard let context else { return }
        let box = ReplyBox(message)
        subscription = box
        let privdata = Unmanaged.passUnretained(box).toOpaque()
        _ = Self.withArgv([Array("SUBSCRIBE".utf8), Array(channel.utf8)]) { count, argv, lengths in
            redisAsyncCommandArgv(
                context,
                { _, reply, privdata in
                    guard let privdata else { return }
                    Unmanaged<ReplyBox>.fromOpaque(privdata).takeUnretainedValue().handler(reply.map(RedisReply.init))
                }, privdata, count, argv, lengths)
        }
    }

    /// Frees the connection (pending replies get `nil`); no state change is reported.
    package func close() {
        closing = true
        if let context {
            self.context = nil
            redisAsyncFree(context)
        }
        isConnected = false
        subscription = nil
    }

    private static func withArgv<R>(
        _ arguments: [[UInt8]], _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R
    ) -> R {
        // hiredis copies the arguments into its output buffer before returning.
        let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: arguments.count)
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: arguments.count)
        var copies: [UnsafeMutablePointer<CChar>] = []
        defer {
            copies.forEach { $0.deallocate() }
            pointers.deallocate()
            lengths.deallocate()
        }
        for (index, argument) in arguments.enumerated() {
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(argument.count, 1))
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: argument.count) }
            }
            copies.append(copy)
            pointers[index] = UnsafePointer(copy)
            lengths[index] = argument.count
        }
        return body(Int32(arguments.count), pointers, lengths)
    }
}

/// A reply handler kept alive across the C callback.
final class ReplyBox {
    let handler: (RedisReply?) -> Void
    init(_ handler: @escaping (RedisReply?) -> Void) { self.handler = handler }
}
