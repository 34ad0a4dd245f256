import Amplify
import AmplifyConcurrency

/// Records what a Hub channel delivers, for tests: register it, act, then
/// `await recorder.waitForEvents(count:)` or `await hub.flush()` and read ``payloads``.
public final class HubEventRecorder: Sendable {
    private let state = RecorderState()
    private let hub: any HubCategoryBehavior
    private let token = Locked<UnsubscribeToken?>(nil)

    /// Starts recording `channel` (payloads that pass `filter`) on `hub` (`Amplify.Hub`'s
    /// plugin by default).
    public init(
        channel: HubChannel, isIncluded filter: HubFilter? = nil, hub: (any HubCategoryBehavior)? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        let hub = hub ?? Amplify.Hub.plugin
        self.hub = hub
        let state = self.state
        let listening = hub.listen(to: channel, isIncluded: filter, file: file, line: line) { payload in
            state.append(payload)
        }
        token.withLock { $0 = listening }
    }

    /// Everything recorded so far, in delivery order.
    public var payloads: [HubPayload] { state.recorded.withLock { $0 } }

    /// The event names recorded so far, in delivery order.
    public var eventNames: [String] { payloads.map(\.eventName) }

    /// Waits until at least `count` payloads were recorded, or `timeout` passed.
    /// - Returns: whether the count was reached.
    public func waitForEvents(count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        if state.recorded.withLock({ $0.count }) >= count { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let alreadyThere = self.state.waiters.withLock { waiters -> Bool in
                        if self.state.recorded.withLock({ $0.count }) >= count { return true }
                        waiters.append((count, continuation))
                        return false
                    }
                    if alreadyThere { continuation.resume(returning: true) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Release the waiter that is still parked so the group can finish.
                let parked = self.state.waiters.withLock { waiters in
                    defer { waiters.removeAll() }
                    return waiters.map(\.1)
                }
                for waiter in parked { waiter.resume(returning: false) }
            }
            group.cancelAll()
            return first
        }
    }

    /// Stops recording.
    public func stop() {
        if let token = token.withLock({ $0 }) { hub.removeListener(token) }
    }
}

/// The recorder's shared state, captured by its listener.
private final class RecorderState: Sendable {
    let recorded = Locked<[HubPayload]>([])
    let waiters = Locked<[(Int, CheckedContinuation<Bool, Never>)]>([])

    func append(_ payload: HubPayload) {
        let count = recorded.withLock { recorded in
            recorded.append(payload)
            return recorded.count
        }
        let ready = waiters.withLock { waiters -> [CheckedContinuation<Bool, Never>] in
            let due = waiters.filter { $0.0 <= count }.map(\.1)
            waiters.removeAll { $0.0 <= count }
            return due
        }
        for waiter in ready { waiter.resume(returning: true) }
    }
}
