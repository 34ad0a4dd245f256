import Amplify
import AmplifyEventLoop
import AmplifyTestKit
import Foundation

/// A Hub of its own on a loop of its own, so Hub tests run in parallel without touching
/// `Amplify.Hub`.
struct IsolatedHub {
    let loop: EventLoop
    let hub: DefaultHubPlugin

    init() throws {
        loop = try EventLoop(name: "hub-test")
        hub = DefaultHubPlugin(loop: loop)
    }

    /// Resets the Hub and shuts its loop down; returns whether the loop closed with no handle open.
    func close() async throws -> Bool {
        await hub.reset()
        try loop.shutdown()
        return loop.loopClosedCleanly
    }
}

/// A payload's data as (producer, sequence number).
struct Stamp: Sendable, Equatable {
    let producer: Int
    let sequence: Int
}

extension HubPayload {
    var stamp: Stamp? { data as? Stamp }
}
