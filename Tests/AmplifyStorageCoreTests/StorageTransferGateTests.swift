import Amplify
import AmplifyStorageCore
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

@Suite("Storage content types")
struct StorageContentTypeTests {
    @Test("the content type comes from the last name's extension, case-insensitively; anything else is octet-stream")
    func guesses() {
        #expect(StorageContentType.guess(for: "public/photos/cat.JPG") == "image/jpeg")
        #expect(StorageContentType.guess(for: "report.pdf") == "application/pdf")
        #expect(StorageContentType.guess(for: "public/no-extension") == "application/octet-stream")
        #expect(StorageContentType.guess(for: "public/.hidden") == "application/octet-stream")
        #expect(StorageContentType.guess(for: "v1.2/readme") == "application/octet-stream")
        #expect(StorageContentType.guess(for: "archive.tar.unknown") == "application/octet-stream")
    }
}
