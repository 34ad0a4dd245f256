import AmplifyConcurrency
import AmplifyEventLoop
import CoreMetrics
import Foundation
import Synchronization

/// Reports a listener that holds the loop thread longer than a threshold, once per listener,
/// through the Logging category (category "Hub", level warn), with the file and line where it
/// was registered, and in the `amplify_hub_slow_listeners_total` metric when there is a backend.
///
/// The loop thread only publishes which listener it is in (one relaxed store per call), how many
/// events it has started delivering (one per event) and when a drain ends (the listener is then
/// cleared); a watchdog thread samples them a few times per threshold and reports a listener
/// that is still in the same event's call after the threshold has passed. The watchdog
/// starts with the first listener and stops with the Hub.
final class SlowListenerMonitor: Sendable {
    private struct Site {
        var file: String
        var line: Int
        var channel: HubChannel
        var reported = false
    }

    private struct Watch {
        var running = false
        var stopRequested = false
        var sites: [Int: Site] = [:]
        /// The watchdog thread, joined by `stop`.
        var thread: pthread_t?
    }

    /// The serial of the listener the loop is inside, or 0.
    private let current = Atomic<Int>(0)
    /// Events whose delivery started (loop-only writer).
    private let calls = Atomic<Int>(0)
    private let thresholdNanoseconds: Atomic<Int>
    private let watch = Locked(Watch())
    private let wakeup = NSCondition()

    /// The watchdog thread's name: `watch-` and the loop's name.
    private let threadName: String
    private let slowListeners: Counter?

    init(threshold: Duration, loopName: String, slowListeners: Counter? = nil) {
        thresholdNanoseconds = Atomic(Self.nanoseconds(threshold))
        threadName = "watch-" + loopName
        self.slowListeners = slowListeners
    }

    var threshold: Duration {
        get { .nanoseconds(thresholdNanoseconds.load(ordering: .relaxed)) }
        set { thresholdNanoseconds.store(Self.nanoseconds(newValue), ordering: .relaxed) }
    }

    /// The loop is about to call listener `serial`.
    @inline(__always)
    func enter(_ serial: Int) {
        current.store(serial, ordering: .relaxed)
    }

    /// The loop starts delivering another event.
    @inline(__always)
    func nextEvent() {
        calls.store(calls.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// The loop is in no listener (a drain ended).
    @inline(__always)
    func leave() {
        current.store(0, ordering: .relaxed)
    }

    func register(serial: Int, file: String, line: Int, channel: HubChannel) {
        watch.withLock { watch in
            watch.sites[serial] = Site(file: file, line: line, channel: channel)
            guard !watch.running, !watch.stopRequested else { return }
            // A pthread rather than a Foundation Thread, so `stop` can join it: once the Hub has
            // stopped, the watchdog thread is gone, not merely finishing. Created under the lock,
            // so `stop` always finds the thread it must join.
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { argument in
                guard let argument else { return nil }
                let monitor = Unmanaged<SlowListenerMonitor>.fromOpaque(argument).takeRetainedValue()
                ThreadName.setCurrent(monitor.threadName)
                monitor.run()
                return nil
            }, context)
            guard created == 0 else {
                Unmanaged<SlowListenerMonitor>.fromOpaque(context).release()
                return
            }
            watch.running = true
            watch.thread = thread
        }
    }

    /// Where the listener the loop is in now was registered (`file:line` and channel), or `nil`
    /// between listener calls. Safe from any thread.
    func currentSite() -> String? {
        let serial = current.load(ordering: .relaxed)
        guard serial != 0 else { return nil }
        return watch.withLock { watch in
            watch.sites[serial].map { "the listener on channel '\($0.channel.name)' registered at \($0.file):\($0.line)" }
        }
    }

    func unregister(serial: Int) {
        _ = watch.withLock { $0.sites.removeValue(forKey: serial) }
    }

    /// Stops the watchdog thread and waits for it to exit.
    func stop() {
        let thread = watch.withLock { watch -> pthread_t? in
            watch.stopRequested = true
            watch.sites.removeAll()
            defer { watch.thread = nil }
            return watch.thread
        }
        guard let thread else { return }
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
        pthread_join(thread, nil)
    }

    private func run() {
        var observedSerial = 0
        var observedCalls = -1
        var observedSince = ContinuousClock.now
        while true {
            let threshold = max(thresholdNanoseconds.load(ordering: .relaxed), 1_000_000)
            let period = min(max(threshold / 4, 1_000_000), 250_000_000)
            wakeup.lock()
            _ = wakeup.wait(until: Date(timeIntervalSinceNow: Double(period) / 1e9))
            wakeup.unlock()
            if watch.withLock({ $0.stopRequested }) { break }
            let serial = current.load(ordering: .relaxed)
            let count = calls.load(ordering: .relaxed)
            let now = ContinuousClock.now
            guard serial != 0 else {
                observedSerial = 0
                continue
            }
            if serial != observedSerial || count != observedCalls {
                observedSerial = serial
                observedCalls = count
                observedSince = now
                continue
            }
            let held = now - observedSince
            if held >= .nanoseconds(threshold) { report(serial: serial, held: held, threshold: threshold) }
        }
        watch.withLock { $0.running = false }
    }

    private func report(serial: Int, held: Duration, threshold: Int) {
        let site = watch.withLock { watch -> Site? in
            guard var site = watch.sites[serial], !site.reported else { return nil }
            site.reported = true
            watch.sites[serial] = site
            return site
        }
        guard let site else { return }
        slowListeners?.increment()
        let milliseconds = threshold / 1_000_000
        Amplify.Logging.logger(forCategory: "Hub").warn(
            "A Hub listener on channel '\(site.channel.name)' registered at \(site.file):\(site.line) has held the event loop for more than \(milliseconds) ms; move heavy work to an AsyncSequence consumer (Amplify.Hub.events(on:)) or a Task.")
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    }
}
