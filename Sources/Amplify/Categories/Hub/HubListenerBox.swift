import Foundation
import Synchronization

/// One registered listener. Created by `listen`, added to the loop's tables through the
/// dispatch queue, and marked removed by `removeListener`.
final class HubListenerBox: Sendable {
    let token: UnsubscribeToken
    /// A small number identifying the listener to the slow-listener monitor (never 0).
    let serial: Int
    let eventName: String?
    let filter: HubFilter?
    let listener: HubListener
    /// Ends an `AsyncSequence` subscription when the Hub resets.
    let finish: (@Sendable () -> Void)?
    /// Set (then published to the loop) by `removeListener`; read with a plain load per delivery.
    let removed = Atomic<Bool>(false)

    init(
        token: UnsubscribeToken, serial: Int, eventName: String?, filter: HubFilter?,
        listener: @escaping HubListener, finish: (@Sendable () -> Void)? = nil
    ) {
        self.token = token
        self.serial = serial
        self.eventName = eventName
        self.filter = filter
        self.listener = listener
        self.finish = finish
    }

    /// Calls the listener if it is still registered and the payload passes its filter; returns
    /// whether it did. Loop thread only.
    @inline(__always)
    func deliver(_ payload: HubPayload, monitor: SlowListenerMonitor) -> Bool {
        if removed.load(ordering: .relaxed) { return false }
        if let eventName, eventName != payload.eventName { return false }
        if let filter, !filter(payload) { return false }
        monitor.enter(serial)
        listener(payload)
        return true
    }
}
