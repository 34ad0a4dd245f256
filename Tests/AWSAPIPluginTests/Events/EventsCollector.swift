import AWSAPIPlugin
import Amplify
import AmplifyConcurrency
import Foundation

/// Reads an Events subscription's sequence in a task of its own and keeps what it yields, so a
/// test can wait for events (with a time limit) while it acts.
final class EventsCollector: Sendable {
    let sequence: AmplifyAsyncThrowingSequence<EventsSubscriptionEvent>
    private let events = Locked<[EventsSubscriptionEvent]>([])
    private let ending = Locked<Result<Void, any Error>?>(nil)

    init(_ sequence: AmplifyAsyncThrowingSequence<EventsSubscriptionEvent>) {
        self.sequence = sequence
        let events = self.events
        let ending = self.ending
        Task {
            do {
                for try await event in sequence { events.withLock { $0.append(event) } }
                ending.withLock { $0 = .success(()) }
            } catch {
                ending.withLock { $0 = .failure(error) }
            }
        }
    }

    /// The connection states so far.
    var states: [SubscriptionConnectionState] {
        events.value.compactMap { if case .connection(let state) = $0 { return state } else { return nil } }
    }

    /// The events so far.
    var values: [JSONValue] {
        events.value.compactMap { if case .data(let value) = $0 { return value } else { return nil } }
    }

    /// How the sequence ended (`nil` while it runs).
    var end: Result<Void, any Error>? { ending.value }

    /// The error it ended with, if it failed.
    var error: (any Error)? {
        if case .failure(let error)? = ending.value { return error }
        return nil
    }

    /// Waits until `condition` holds (true) or `timeout` passes (false).
    func wait(timeout: Duration = .seconds(120), until condition: (EventsCollector) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(self)
    }

    /// Waits for `connected`.
    func connected(timeout: Duration = .seconds(120)) async -> Bool {
        await wait(timeout: timeout) { $0.states.last == .connected }
    }

    func cancel() { sequence.cancel() }
}
