import Amplify
import Synchronization

/// What every benchmark event carries: who sent it, its number in that sender's stream, and when.
struct Stamp: Sendable {
    let producer: Int
    let sequence: Int
    let sentNanoseconds: UInt64
}

/// A listener's bookkeeping when the Hub calls it from one thread at a time (ours: the loop).
///
/// Every listener counts the events it gets and checks their name, as application listeners
/// do; the first listener of a run also checks each producer's order (reading the payload's
/// data), the same split the C floor and the other candidates use.
final class SerialProbe: @unchecked Sendable {
    // @unchecked Sendable: only the Hub's loop thread calls `observe`; the harness reads the
    // totals after `flush()` has returned, which orders those reads after every call.
    @exclusivity(unchecked) private(set) var calls = 0
    @exclusivity(unchecked) private(set) var reordered = 0
    @exclusivity(unchecked) private var nextFromFirst = 0
    @exclusivity(unchecked) private var nextFromSecond = 0
    let checksOrder: Bool
    let expectedName = Candidates.eventName

    init(checksOrder: Bool) {
        self.checksOrder = checksOrder
    }

    @inline(__always)
    func observe(_ payload: HubPayload) {
        guard payload.eventName == expectedName else { return }
        calls &+= 1
        guard checksOrder, let stamp = payload.data as? Stamp else { return }
        let expected = stamp.producer == 0 ? nextFromFirst : nextFromSecond
        if stamp.sequence < expected { reordered &+= 1 }
        if stamp.producer == 0 { nextFromFirst = stamp.sequence + 1 } else { nextFromSecond = stamp.sequence + 1 }
    }
}

/// A listener's bookkeeping when it may be called from several threads at once (the same work as
/// ``SerialProbe``, with atomics because the calls can overlap).
final class ConcurrentProbe: Sendable {
    let checksOrder: Bool

    init(checksOrder: Bool) {
        self.checksOrder = checksOrder
    }

    let calls = Atomic<Int>(0)
    let reorderedCount = Atomic<Int>(0)
    private let nextFromFirst = Atomic<Int>(0)
    private let nextFromSecond = Atomic<Int>(0)

    @inline(__always)
    func count() {
        calls.wrappingAdd(1, ordering: .relaxed)
    }

    @inline(__always)
    func observe(producer: Int, sequence: Int) {
        let previous =
            producer == 0
            ? nextFromFirst.exchange(sequence + 1, ordering: .relaxed)
            : nextFromSecond.exchange(sequence + 1, ordering: .relaxed)
        if sequence < previous { reorderedCount.wrappingAdd(1, ordering: .relaxed) }
    }

    var callCount: Int { calls.load(ordering: .acquiring) }
    var reordered: Int { reorderedCount.load(ordering: .acquiring) }
}
