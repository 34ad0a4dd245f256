import Amplify
import AmplifyTestKit
import CHubFloorBenchmark
import Foundation

/// Each candidate measured: throughput, latency and memory per listener, the same way.
enum Candidates {
    static let channel = HubChannel.auth
    static let eventName = HubPayload.EventName.Auth.signedIn

    // MARK: Ours: Amplify.Hub on the libuv loop

    static func oursThroughput(producers: Int, listeners: Int, eventsPerProducer: Int) async -> ThroughputResult {
        await Amplify.reset()
        let probes = (0..<listeners).map { SerialProbe(checksOrder: $0 == 0) }
        for probe in probes { Amplify.Hub.listen(to: channel) { probe.observe($0) } }
        await Amplify.Hub.flush()
        let sampler = PeakMemorySampler()
        let start = nowNanoseconds()
        onThreads(producers) { producer in
            for sequence in 0..<eventsPerProducer {
                Amplify.Hub.dispatch(
                    to: channel,
                    payload: HubPayload(
                        eventName: eventName, data: Stamp(producer: producer, sequence: sequence, sentNanoseconds: 0)))
            }
        }
        await Amplify.Hub.flush()
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let memory = sampler.stop()
        var result = ThroughputResult(
            seconds: seconds, deliveries: probes.reduce(0) { $0 + $1.calls },
            reordered: probes.reduce(0) { $0 + $1.reordered }, peakMemoryBytes: memory)
        result.peakQueued = (Amplify.Hub.plugin as? DefaultHubPlugin)?.peakQueueDepth ?? 0
        await Amplify.reset()
        return result
    }

    static func oursLatency(samples: Int, intervalNanoseconds: UInt64) async -> LatencyResult {
        await Amplify.reset()
        let latencies = LatencyBuffer(capacity: samples)
        Amplify.Hub.listen(to: channel) { payload in
            let now = nowNanoseconds()
            if let stamp = payload.data as? Stamp { latencies.record(now - stamp.sentNanoseconds) }
        }
        await Amplify.Hub.flush()
        onThreads(1) { _ in
            var next = nowNanoseconds()
            for sequence in 0..<samples {
                next += intervalNanoseconds
                pace(until: next)
                Amplify.Hub.dispatch(
                    to: channel,
                    payload: HubPayload(
                        eventName: eventName, data: Stamp(producer: 0, sequence: sequence, sentNanoseconds: nowNanoseconds())))
            }
        }
        await Amplify.Hub.flush()
        let result = LatencyResult(nanoseconds: latencies.values)
        await Amplify.reset()
        return result
    }

    static func oursBytesPerListener(_ count: Int) async -> Int {
        await Amplify.reset()
        let hub = Amplify.Hub.plugin
        await hub.flush()
        let before = heapBytesInUse()
        for _ in 0..<count { _ = hub.listen(to: channel, isIncluded: nil, file: #fileID, line: #line) { _ in } }
        // The registrations travel through the queue; the storage that burst grew is the
        // queue's, let go by the next drains that find it mostly empty (the inbox's buffer and
        // the spare batch take turns, so two), and is not counted as the listeners'.
        for _ in 0..<3 { await hub.flush() }
        let bytes = (heapBytesInUse() - before) / count
        await Amplify.reset()
        return bytes
    }

    // MARK: amplify-swift's dispatcher

    static func amplifyStyleThroughput(producers: Int, listeners: Int, eventsPerProducer: Int) -> ThroughputResult {
        let hub = AmplifyStyleHub()
        let probes = (0..<listeners).map { ConcurrentProbe(checksOrder: $0 == 0) }
        for probe in probes {
            hub.listen(to: channel) { payload in
                guard payload.eventName == eventName else { return }
                probe.count()
                if probe.checksOrder, let stamp = payload.data as? Stamp { probe.observe(producer: stamp.producer, sequence: stamp.sequence) }
            }
        }
        let expected = producers * listeners * eventsPerProducer
        let sampler = PeakMemorySampler()
        let start = nowNanoseconds()
        onThreads(producers) { producer in
            for sequence in 0..<eventsPerProducer {
                hub.dispatch(
                    to: channel,
                    payload: HubPayload(
                        eventName: eventName, data: Stamp(producer: producer, sequence: sequence, sentNanoseconds: 0)))
            }
        }
        while probes.reduce(0, { $0 + $1.callCount }) < expected { usleep(200) }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let memory = sampler.stop()
        hub.removeAll()
        return ThroughputResult(
            seconds: seconds, deliveries: probes.reduce(0) { $0 + $1.callCount },
            reordered: probes.reduce(0) { $0 + $1.reordered }, peakMemoryBytes: memory)
    }

    static func amplifyStyleLatency(samples: Int, intervalNanoseconds: UInt64) -> LatencyResult {
        let hub = AmplifyStyleHub()
        let latencies = LatencyBuffer(capacity: samples)
        hub.listen(to: channel) { payload in
            let now = nowNanoseconds()
            if let stamp = payload.data as? Stamp { latencies.record(now - stamp.sentNanoseconds) }
        }
        onThreads(1) { _ in
            var next = nowNanoseconds()
            for sequence in 0..<samples {
                next += intervalNanoseconds
                pace(until: next)
                hub.dispatch(
                    to: channel,
                    payload: HubPayload(
                        eventName: eventName, data: Stamp(producer: 0, sequence: sequence, sentNanoseconds: nowNanoseconds())))
            }
        }
        while latencies.count < samples { usleep(200) }
        return LatencyResult(nanoseconds: latencies.values)
    }

    static func amplifyStyleBytesPerListener(_ count: Int) -> Int {
        let hub = AmplifyStyleHub()
        let before = heapBytesInUse()
        for _ in 0..<count { hub.listen(to: channel) { _ in } }
        let bytes = (heapBytesInUse() - before) / count
        hub.removeAll()
        return bytes
    }

    // MARK: NotificationCenter, posting synchronously

    static let notificationName = Notification.Name("Auth.signedIn")

    static func notificationCenterThroughput(producers: Int, listeners: Int, eventsPerProducer: Int) -> ThroughputResult {
        let center = NotificationCenter()
        let probes = (0..<listeners).map { ConcurrentProbe(checksOrder: $0 == 0) }
        let observers = probes.map { probe in
            center.addObserver(forName: notificationName, object: nil, queue: nil) { note in
                guard note.name == notificationName else { return }
                probe.count()
                if probe.checksOrder, let code = note.object as? Int { probe.observe(producer: code & 1, sequence: code >> 1) }
            }
        }
        let sampler = PeakMemorySampler()
        let start = nowNanoseconds()
        onThreads(producers) { producer in
            for sequence in 0..<eventsPerProducer {
                center.post(name: notificationName, object: sequence << 1 | producer)
            }
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let memory = sampler.stop()
        for observer in observers { center.removeObserver(observer) }
        return ThroughputResult(
            seconds: seconds, deliveries: probes.reduce(0) { $0 + $1.callCount },
            reordered: probes.reduce(0) { $0 + $1.reordered }, peakMemoryBytes: memory)
    }

    static func notificationCenterLatency(samples: Int, intervalNanoseconds: UInt64) -> LatencyResult {
        let center = NotificationCenter()
        let latencies = LatencyBuffer(capacity: samples)
        let observer = center.addObserver(forName: notificationName, object: nil, queue: nil) { note in
            let now = nowNanoseconds()
            if let sent = note.object as? UInt64 { latencies.record(now - sent) }
        }
        onThreads(1) { _ in
            var next = nowNanoseconds()
            for _ in 0..<samples {
                next += intervalNanoseconds
                pace(until: next)
                center.post(name: notificationName, object: nowNanoseconds())
            }
        }
        center.removeObserver(observer)
        return LatencyResult(nanoseconds: latencies.values)
    }

    static func notificationCenterBytesPerListener(_ count: Int) -> Int {
        let center = NotificationCenter()
        let before = heapBytesInUse()
        let observers = (0..<count).map { _ in center.addObserver(forName: notificationName, object: nil, queue: nil) { _ in } }
        let bytes = (heapBytesInUse() - before) / count
        for observer in observers { center.removeObserver(observer) }
        return bytes
    }

    // MARK: The C floor

    static func cFloorThroughput(producers: Int, listeners: Int, eventsPerProducer: Int) -> ThroughputResult {
        let sampler = PeakMemorySampler()
        let result = c_floor_throughput(Int32(producers), Int32(listeners), UInt64(eventsPerProducer))
        let memory = sampler.stop()
        var outcome = ThroughputResult(
            seconds: result.seconds, deliveries: Int(result.deliveries), reordered: Int(result.reordered),
            peakMemoryBytes: memory)
        outcome.peakQueued = Int(result.peak_in_flight)
        return outcome
    }

    static func cFloorLatency(samples: Int, intervalNanoseconds: UInt64) -> LatencyResult {
        var latencies = [UInt64](repeating: 0, count: samples)
        _ = latencies.withUnsafeMutableBufferPointer { c_floor_latency(Int32(samples), intervalNanoseconds, $0.baseAddress) }
        return LatencyResult(nanoseconds: latencies)
    }
}

/// Latency samples recorded by a listener.
final class LatencyBuffer: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock` (amplify-style listeners may record concurrently).
    private let lock = NSLock()
    private var samples: [UInt64]

    init(capacity: Int) {
        samples = []
        samples.reserveCapacity(capacity)
    }

    func record(_ nanoseconds: UInt64) {
        lock.lock()
        samples.append(nanoseconds)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return samples.count
    }

    var values: [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return samples
    }
}
