import Amplify
import AmplifyConcurrency
import Foundation

/// Reads a subscription's sequence in a task of its own and keeps what it yields, so a test can
/// wait for events (with a time limit) while it acts.
final class SubscriptionCollector<R: Decodable & Sendable>: Sendable {
    let sequence: AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>
    private let events = Locked<[GraphQLSubscriptionEvent<R>]>([])
    private let ending = Locked<Result<Void, any Error>?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)

    init(_ sequence: AmplifyAsyncThrowingSequence<GraphQLSubscriptionEvent<R>>) {
        self.sequence = sequence
        let events = self.events
        let ending = self.ending
        task.withLock {
            $0 = Task {
                do {
                    for try await event in sequence { events.withLock { $0.append(event) } }
                    ending.withLock { $0 = .success(()) }
                } catch {
                    ending.withLock { $0 = .failure(error) }
                }
            }
        }
    }

    /// The connection states so far.
    var states: [SubscriptionConnectionState] {
        events.value.compactMap { if case .connection(let state) = $0 { return state } else { return nil } }
    }

    /// The data so far.
    var data: [GraphQLResponse<R>] {
        events.value.compactMap { if case .data(let response) = $0 { return response } else { return nil } }
    }

    /// The decoded values so far.
    var values: [R] { data.compactMap { try? $0.get() } }

    /// How the sequence ended (`nil` while it runs).
    var end: Result<Void, any Error>? { ending.value }

    /// The error it ended with, if it failed.
    var error: (any Error)? {
        if case .failure(let error)? = ending.value { return error }
        return nil
    }

    /// Waits until `condition` holds (true) or `timeout` passes (false). The limits are generous:
    /// a full parallel run on two cores starts dozens of servers at once, and a condition that
    /// holds returns at once.
    func wait(timeout: Duration = .seconds(300), until condition: (SubscriptionCollector<R>) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(self)
    }

    /// Waits for `connected`.
    func connected(timeout: Duration = .seconds(300)) async -> Bool {
        await wait(timeout: timeout) { $0.states.last == .connected }
    }

    func cancel() { sequence.cancel() }
}
