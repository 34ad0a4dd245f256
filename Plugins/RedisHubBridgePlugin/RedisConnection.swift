import AmplifyEventLoop
import CHiredis
import CHiredisShims
import Foundation

/// One hiredis asynchronous connection, attached to the event loop with hiredis's libuv adapter.
/// Loop thread only. hiredis frees the context itself after a failed connect or a disconnect;
/// ``close()`` frees it otherwise (its poll handle is closed and freed in its close callback).
final class RedisConnection {
    /// Called with `nil` once connected, or with the reason the connection failed or ended.
    var onStateChange: (String?) -> Void = { _ in }
    private var context: UnsafeMutablePointer<redisAsyncContext>?
    private(set) var isConnected = false
    private var closing = false
    private var subscription: ReplyBox?

    /// Starts connecting to `host`:`port` on `loop`.
    /// - Returns: `nil`, or why the connection could not even start.
    func connect(host: String, port: Int, loop: EventLoop) -> String? {
        guard (1...65_535).contains(port), let cPort = Int32(exactly: port) else { return "the port \(port) is not from 1 to 65535" }
        guard let context = redisAsyncConnect(host, cPort) else { return "hiredis could not allocate a connection" }
        if context.pointee.err != 0 {
            let message = c_redis_error_text(context).map { String(cString: $0) } ?? "connection error"
            redisAsyncFree(context)
            return message
        }
        c_redis_set_data(context, Unmanaged.passUnretained(self).toOpaque())
        guard c_redis_attach_to_libuv(context, loop.unsafeUVLoop) == REDIS_OK else {
            redisAsyncFree(context)
            return "hiredis could not attach to the event loop"
        }
        redisAsyncSetConnectCallback(context) { context, status in
            guard let context, let owner = RedisConnection.owner(of: context) else { return }
            owner.connected(status == REDIS_OK, error: c_redis_error_text(context).map { String(cString: $0) })
        }
        redisAsyncSetDisconnectCallback(context) { context, status in
            guard let context, let owner = RedisConnection.owner(of: context) else { return }
            owner.disconnected(error: status == REDIS_OK ? "disconnected" : c_redis_error_text(context).map { String(cString: $0) } ?? "connection lost")
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

    private func connected(_ success: Bool, error: String?) {
        if success {
            isConnected = true
            if !closing { onStateChange(nil) }
        } else {
            context = nil // hiredis frees a context whose connect failed
            if !closing { onStateChange(error ?? "connection refused") }
        }
    }

    private func disconnected(error: String) {
        isConnected = false
        context = nil // hiredis frees the context after this callback
        if !closing { onStateChange(error) }
    }

    /// Sends a command; `reply` gets its reply, or `nil` if the connection ended first.
    /// - Returns: whether the command was queued.
    @discardableResult
    func send(_ arguments: [[UInt8]], reply: ((RedisReply?) -> Void)? = nil) -> Bool {
        guard let context else { return false }
        let box = reply.map { Unmanaged.passRetained(ReplyBox($0)).toOpaque() }
        let queued = Self.withArgv(arguments) { count, argv, lengths in
            redisAsyncCommandArgv(context, box == nil ? nil : { _, reply, privdata in
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
    func subscribe(_ channel: String, message: @escaping (RedisReply?) -> Void) {
        guard let context else { return }
        let box = ReplyBox(message)
        subscription = box
        let privdata = Unmanaged.passUnretained(box).toOpaque()
        _ = Self.withArgv([Array("SUBSCRIBE".utf8), Array(channel.utf8)]) { count, argv, lengths in
            redisAsyncCommandArgv(context, { _, reply, privdata in
                guard let privdata else { return }
                Unmanaged<ReplyBox>.fromOpaque(privdata).takeUnretainedValue().handler(reply.map(RedisReply.init))
            }, privdata, count, argv, lengths)
        }
    }

    /// Frees the connection (pending replies get `nil`); no state change is reported.
    func close() {
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
