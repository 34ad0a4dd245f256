import Synchronization

/// Counts payloads a bounded ``HubEventStream`` dropped.
final class DropCounter: Sendable {
    private let dropped = Atomic<Int>(0)

    var count: Int { dropped.load(ordering: .relaxed) }

    /// Records one drop; returns `true` for the first.
    func record() -> Bool {
        dropped.wrappingAdd(1, ordering: .relaxed).oldValue == 0
    }
}
