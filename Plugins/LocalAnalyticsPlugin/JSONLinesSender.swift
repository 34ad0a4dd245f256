import AmplifyAnalyticsCore
import AmplifyEventLoop
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Delivers batches to a JSON-lines file, one event per line, through libuv's asynchronous file
/// calls: each batch is appended in one write and synced before it counts as accepted. When the
/// file would pass `maxFileBytes` it is rotated first (`events.jsonl` → `events.jsonl.1` → … up
/// to `maxFiles` old files; the oldest is deleted).
///
/// Each line is ``QueuedRecord/jsonLine()``.
struct JSONLinesSender: AnalyticsEventSender {
    let path: String
    let maxFileBytes: UInt64
    let maxFiles: Int
    let fileSystem: LoopFileSystem

    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] {
        let bytes = batch.flatMap { $0.jsonLine() }
        do {
            try await rotateIfNeeded(adding: UInt64(bytes.count))
            let descriptor = try await fileSystem.open(path, flags: O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode: 0o600)
            do {
                var written = 0
                while written < bytes.count {
                    written += try await fileSystem.write(descriptor, Array(bytes[written...]))
                }
                try await fileSystem.fsync(descriptor)
            } catch {
                try? await fileSystem.close(descriptor)
                throw error
            }
            try await fileSystem.close(descriptor)
            return batch.map { _ in .accepted }
        } catch {
            return batch.map { _ in .notSent("writing \(path) failed: \(error)") }
        }
    }

    private func rotateIfNeeded(adding count: UInt64) async throws {
        guard let size = try? await fileSystem.stat(path).size, size > 0, size + count > maxFileBytes else { return }
        if maxFiles == 0 {
            try await fileSystem.unlink(path)
            return
        }
        try? await fileSystem.unlink("\(path).\(maxFiles)")
        if maxFiles > 1 {
            for index in stride(from: maxFiles - 1, through: 1, by: -1) {
                try? await fileSystem.rename("\(path).\(index)", to: "\(path).\(index + 1)")
            }
        }
        try await fileSystem.rename(path, to: "\(path).1")
    }
}
