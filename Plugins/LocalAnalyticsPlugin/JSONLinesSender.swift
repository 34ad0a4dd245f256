import Amplify
import AmplifyAnalyticsCore
import AmplifyConcurrency
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
/// Each line is ``QueuedRecord/jsonLine()``, which carries the queue's id of the record.
///
/// Delivery is idempotent across a crash between the append+fsync and the queue's delete of the
/// batch: the lines themselves, synced with the batch, record what was delivered. The sender
/// remembers the lines it last appended, and a new one (a new process) reads them from the end
/// of the file (its last ``tailWindow`` bytes); a record whose line is already there, byte for
/// byte, is reported accepted without being written again. Matching the whole line, not only
/// the id, keeps a new queue (whose ids start again at 1) from being mistaken for the old one.
struct JSONLinesSender: AnalyticsEventSender {
    let path: String
    let maxFileBytes: UInt64
    let maxFiles: Int
    let fileSystem: LoopFileSystem
    /// The lines last delivered, by record id (`nil` until read from the file).
    private let delivered = Locked<[Int64: [UInt8]]?>(nil)

    /// How much of the file's end a new sender reads to learn what was delivered.
    static let tailWindow = 1 << 20

    init(path: String, maxFileBytes: UInt64, maxFiles: Int, fileSystem: LoopFileSystem) {
        self.path = path
        self.maxFileBytes = maxFileBytes
        self.maxFiles = maxFiles
        self.fileSystem = fileSystem
    }

    func send(_ batch: [QueuedRecord]) async -> [RecordOutcome] {
        let lines = batch.map { $0.jsonLine() }
        if delivered.value == nil {
            let known = await lastDeliveredLines()
            delivered.withLock { $0 = known }
        }
        let already = delivered.withLock { known in lines.enumerated().map { known?[batch[$0.offset].id] == $0.element } }
        let fresh = batch.indices.filter { !already[$0] }
        guard !fresh.isEmpty else { return batch.map { _ in .accepted } }
        let bytes = fresh.flatMap { lines[$0] }
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
            delivered.withLock { known in
                known = Dictionary(fresh.map { (batch[$0].id, lines[$0]) }, uniquingKeysWith: { _, last in last })
            }
            return batch.map { _ in .accepted }
        } catch {
            return batch.indices.map { already[$0] ? .accepted : .notSent("writing \(path) failed: \(error)") }
        }
    }

    /// The complete lines in the last ``tailWindow`` bytes of the file (or of the newest
    /// rotated one when the file is missing or empty), by the id they carry.
    private func lastDeliveredLines() async -> [Int64: [UInt8]] {
        for candidate in [path, "\(path).1"] {
            guard let size = try? await fileSystem.stat(candidate).size, size > 0 else { continue }
            guard let descriptor = try? await fileSystem.open(candidate, flags: O_RDONLY | O_CLOEXEC) else { return [:] }
            let start = size > UInt64(Self.tailWindow) ? size - UInt64(Self.tailWindow) : 0
            let tail = (try? await fileSystem.read(descriptor, count: Int(size - start), offset: Int64(start))) ?? []
            try? await fileSystem.close(descriptor)
            return Self.linesByID(tail, cutAtStart: start > 0)
        }
        return [:]
    }

    /// Each complete line (ending in a newline) of `bytes` that is a JSON object with an
    /// integer `id`; the first line is skipped when the window cut into it.
    static func linesByID(_ bytes: [UInt8], cutAtStart: Bool) -> [Int64: [UInt8]] {
        var found: [Int64: [UInt8]] = [:]
        var lineStart = 0
        var first = true
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            defer {
                lineStart = index + 1
                first = false
            }
            if first && cutAtStart { continue }
            let line = Array(bytes[lineStart...index])
            guard let object = try? JSONValue(parsing: Array(line.dropLast())), let id = object["id"]?.intValue else { continue }
            found[Int64(id)] = line
        }
        return found
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
