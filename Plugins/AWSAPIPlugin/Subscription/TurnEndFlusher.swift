import AWSPluginsCore
import Amplify
import AmplifyEventLoop

/// What the real-time connections read during one loop turn, handed on at the turn's end: each
/// subscription that decoded data in the turn is flushed once (one wake-up of its reader per
/// burst, not per event). Loop thread only.
final class TurnEndFlusher {
    private let loop: EventLoop
    private var pending: [ObjectIdentifier: @Sendable () -> Void] = [:]
    private var check: LoopCheck?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Runs `flush` at the end of this loop turn (once per `key` and turn); at once if the loop
    /// cannot make the check.
    func add(_ key: ObjectIdentifier, _ flush: @escaping @Sendable () -> Void) {
        if check == nil {
            check = try? LoopCheck(loop: loop) { [weak self] in self?.flushNow() }
        }
        guard let check else {
            flush()
            return
        }
        pending[key] = flush
        check.start()
    }

    /// Flushes everything held now.
    func flushNow() {
        check?.stop()
        guard !pending.isEmpty else { return }
        let flushes = pending.values
        pending.removeAll(keepingCapacity: true)
        for flush in flushes { flush() }
    }

    /// Flushes, then closes the check (a later ``add(_:_:)`` makes a new one).
    func close() {
        flushNow()
        check?.close()
        check = nil
    }
}

/// AppSync's error objects as one line: `errorType: message; …` (the first three).
enum RealtimeErrorText {
    static func describe(_ errors: [JSONValue]) -> String {
        let parts = errors.prefix(3).map { error in
            [error["errorType"]?.stringValue, error["message"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
        }
        return parts.isEmpty ? "no details" : parts.joined(separator: "; ")
    }
}
