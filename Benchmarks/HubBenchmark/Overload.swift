import Amplify
import AmplifyTestKit
import Foundation

/// The bounded queue under a listener far slower than its producer: resident memory must stay
/// near the bound (the producer is slowed down), and nothing may be lost.
enum Overload {
    struct Result {
        var events: Int
        var delivered: Int
        var peakQueued: Int
        var peakMemoryBytes: Int
        var overloads: Int
        var seconds: Double
    }

    /// `events` dispatches of a 1 KiB payload from one thread into a Hub bounded at `bound`, with
    /// one listener that spins `listenerNanoseconds` per event.
    static func run(events: Int, bound: Int, listenerNanoseconds: UInt64) async -> Result {
        await Amplify.reset()
        let hub = Amplify.Hub.plugin as? DefaultHubPlugin
        hub?.queueLimit = bound
        hub?.overloadWait = .seconds(10)
        let delivered = Counter()
        Amplify.Hub.listen(to: .custom("overload")) { _ in
            let until = nowNanoseconds() + listenerNanoseconds
            while nowNanoseconds() < until {}
            delivered.increment()
        }
        await Amplify.Hub.flush()
        let sampler = PeakMemorySampler()
        let start = nowNanoseconds()
        let payload = Data(repeating: 7, count: 1024)
        onThreads(1) { _ in
            for sequence in 0..<events {
                var data = payload
                data[0] = UInt8(truncatingIfNeeded: sequence)
                Amplify.Hub.dispatch(to: .custom("overload"), payload: HubPayload(eventName: "load", data: data))
            }
        }
        await Amplify.Hub.flush()
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let memory = sampler.stop()
        let result = Result(
            events: events, delivered: delivered.value, peakQueued: hub?.peakQueueDepth ?? 0, peakMemoryBytes: memory,
            overloads: hub?.overloadCount ?? 0, seconds: seconds)
        await Amplify.reset()
        return result
    }
}

/// A count the loop thread bumps and the benchmark reads after a flush.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: written only on the loop thread; read after `flush`, which orders it.
    private var count = 0
    func increment() { count += 1 }
    var value: Int { count }
}
