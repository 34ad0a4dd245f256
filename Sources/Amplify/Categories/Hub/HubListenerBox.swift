import Synchronization

/// One registered listener. Created by `listen`, added to the loop's tables through the
/// dispatch queue, and marked removed by `removeListener`. Everything the loop reads per
/// delivery is a `let` (a `var` closure would be retained and released around every call), and
/// the box fits 72 bytes (an 80-byte allocation): its channel travels in the queue entries, and
/// a stream's `finish` is kept by the plugin, not in every box.
final class HubListenerBox: Sendable {
    /// Which events of the channel the listener gets.
    enum Predicate: Sendable {
        case all
        case eventName(String)
        case filter(HubFilter)
    }

    /// The listener's serial for the slow-listener monitor (never 0).
    let serial: Int
    /// The second half of its token's id (the registry is keyed by the first).
    let idLow: UInt64
    let predicate: Predicate
    /// Set (then published to the loop) by `removeListener`; read with a plain load per delivery.
    /// Declared here, in the byte after `predicate`'s tag.
    let removed = Atomic<Bool>(false)
    let listener: HubListener

    init(serial: Int, idLow: UInt64, predicate: Predicate, listener: @escaping HubListener) {
        self.serial = serial
        self.idLow = idLow
        self.predicate = predicate
        self.listener = listener
    }
}
