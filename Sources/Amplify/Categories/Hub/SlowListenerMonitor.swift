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
///
/// A listener costs the monitor no memory of its own: listeners registered at the same place
/// (file, line, channel) share one counted site, and a listener's serial carries its site's index
/// in its low ``siteBits`` bits (the high bits count listeners, so serials stay unique).
final class SlowListenerMonitor: Sendable {
    private struct SiteKey: Hashable {
        var file: String
        var line: Int
        var channel: HubChannel
    }

    private struct Site {
        var key: SiteKey
        /// Listeners registered here and not yet unregistered.
        var listeners: Int
    }

    private struct Watch {
        var running = false
        var stopRequested = false
        /// Sites by index (a `nil` slot is free, listed in `freeSites`).
        var sites: [Site?] = []
        var siteIndices: [SiteKey: Int] = [:]
        var freeSites: [Int] = []
        /// Listeners counted so far (the high bits of the next serial).
        var registered = 0
        /// Serials of listeners already reported (reported once each).
        var reported: Set<Int> = []
        /// The watchdog thread, joined by `stop`.
        var thread: pthread_t?
    }

    /// How many low bits of a serial hold its site's index.
    static let siteBits = 24
    private static let siteMask = (1 << siteBits) - 1
    /// The site index of a listener whose site could not be kept.
    private static let unknownSite = siteMask

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

    /// Counts a listener registered at `file:line` on `channel`; returns its serial (never 0).
    func register(file: String, line: Int, channel: HubChannel) -> Int {
        watch.withLock { watch -> Int in
            let key = SiteKey(file: file, line: line, channel: channel)
            var index = Self.unknownSite
            if let known = watch.siteIndices[key] {
                index = known
                watch.sites[index]?.listeners += 1
            } else if let free = watch.freeSites.popLast() {
                index = free
            } else if watch.sites.count < Self.unknownSite {
                index = watch.sites.count
                watch.sites.append(nil)
            }
            // Past the serial's room for sites (millions of places), a listener's site is unknown
            // rather than named wrongly.
            if index != Self.unknownSite, watch.sites[index] == nil {
                watch.sites[index] = Site(key: key, listeners: 1)
                watch.siteIndices[key] = index
            }
            watch.registered &+= 1
            startWatchdogIfNeeded(&watch)
            return (watch.registered & (Int.max >> Self.siteBits)) << Self.siteBits | index
        }
    }

    private func startWatchdogIfNeeded(_ watch: inout Watch) {
        guard !watch.running, !watch.stopRequested else { return }
        // A pthread rather than a Foundation Thread, so `stop` can join it: once the Hub has
        // stopped, the watchdog thread is gone, not merely finishing. Created under the lock,
        // so `stop` always finds the thread it must join.
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
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

    /// Where the listener the loop is in now was registered (`file:line` and channel), or `nil`
    /// between listener calls. Safe from any thread.
    func currentSite() -> String? {
        let serial = current.load(ordering: .relaxed)
        guard serial != 0 else { return nil }
        return watch.withLock { watch in
            Self.site(of: serial, in: watch).map { "the listener on channel '\($0.channel.name)' registered at \($0.file):\($0.line)" }
        }
    }

    private static func site(of serial: Int, in watch: Watch) -> SiteKey? {
        let index = serial & siteMask
        return index < watch.sites.count ? watch.sites[index]?.key : nil
    }

    /// The listener with `serial` is gone; its site goes with its last listener.
    func unregister(serial: Int) {
        watch.withLock { watch in
            watch.reported.remove(serial)
            let index = serial & Self.siteMask
            guard index < watch.sites.count, var site = watch.sites[index] else { return }
            site.listeners -= 1
            if site.listeners > 0 {
                watch.sites[index] = site
            } else {
                watch.sites[index] = nil
                watch.siteIndices.removeValue(forKey: site.key)
                watch.freeSites.append(index)
            }
        }
    }

    /// Stops the watchdog thread and waits for it to exit.
    func stop() {
        let thread = watch.withLock { watch -> pthread_t? in
            watch.stopRequested = true
            watch.sites.removeAll()
            watch.siteIndices.removeAll()
            watch.freeSites.removeAll()
            watch.reported.removeAll()
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
        let site = watch.withLock { watch -> SiteKey? in
            guard let site = Self.site(of: serial, in: watch), watch.reported.insert(serial).inserted else { return nil }
            return site
        }
        guard let site else { return }
        slowListeners?.increment()
        let milliseconds = threshold / 1_000_000
        Amplify.Logging.logger(forCategory: "Hub").warn(
            "A Hub listener on channel '\(site.channel.name)' registered at \(site.file):\(site.line) has held the event loop for more than \(milliseconds) ms; move heavy work to an AsyncSequence consumer (Amplify.Hub.events(on:)) or a Task."
        )
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    }
}
