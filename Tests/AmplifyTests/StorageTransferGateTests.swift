import Amplify
import Foundation
import Testing

@Suite("Storage transfer gate")
struct StorageTransferGateTests {
    @Test("every transfer waiting at a paused gate goes on when it is resumed (a multipart upload has several)")
    func resumeReleasesEveryWaiter() async throws {
        let gate = StorageTransferGate()
        gate.pause()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await gate.check() } }
            try await Task.sleep(for: .milliseconds(50))
            gate.resume()
            try await group.waitForAll()
        }
    }

    @Test("cancelling a paused gate wakes every waiter with a cancellation, and later checks throw too")
    func cancelWakesEveryWaiter() async throws {
        let gate = StorageTransferGate()
        gate.pause()
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        try await gate.check()
                        return false
                    } catch StorageError.cancelled {
                        return true
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            gate.cancel()
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes == [true, true, true, true])
        #expect(gate.isCancelled)
        await #expect(throws: StorageError.self) { try await gate.check() }
    }
}
