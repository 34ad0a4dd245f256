import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import LocalStoragePlugin
import Testing

/// The Storage behaviour every plugin must show, run here against the local plugin on its own
/// loop and folder.
@Suite("Local storage plugin: keys, links, temporary files")
struct LocalStoragePluginTests {
    final class Fixture: Sendable {
        let loop: EventLoop
        /// The fixture's own Hub (the global one belongs to the lifecycle tests).
        let hub: DefaultHubPlugin
        let plugin: LocalStoragePlugin
        let root: String

        init(chunkSize: Int = 1 << 20) throws {
            loop = try EventLoop(name: "storage-test")
            root = FileManager.default.temporaryDirectory.appendingPathComponent("local-storage-\(UUID().uuidString)").path
            hub = DefaultHubPlugin(loop: loop)
            plugin = LocalStoragePlugin(loop: loop, identityId: { "identity-1" }, hub: hub)
            try plugin.configure(using: ["directory": .string(root), "chunkSizeBytes": .number(Double(chunkSize))] as JSONValue)
        }

        func close() async throws {
            await hub.reset()
            try loop.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &+ index >> 8) }
        return Data(bytes)
    }

    @Test(
        "bad keys are refused before touching the disk",
        arguments: ["", "/etc/passwd", "../escape", "public/../../x", "a//b", "dir/", "nul\0byte", "./x"])
    func badKeys(_ key: String) async throws {
        let fixture = try Fixture()
        do {
            _ = try await fixture.plugin.uploadData(path: .fromString(key), data: Data("x".utf8), options: nil).value
            Issue.record("'\(key)' was accepted")
        } catch StorageError.validation(let field, let description, let suggestion, _) {
            #expect(field == "path")
            #expect(!description.isEmpty && !suggestion.isEmpty)
        }
        // Nothing was written: the key was refused before the store was even prepared.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.root + "/objects")) ?? []).isEmpty)
        try await fixture.close()
    }

    @Test("a path through a symbolic link out of the root is refused")
    func symlinkEscape() async throws {
        let fixture = try Fixture()
        _ = try await fixture.plugin.uploadData(path: .fromString("public/seed.txt"), data: Data("x".utf8), options: nil).value
        let outside = fixture.root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/objects/public/link", withDestinationPath: outside)
        await #expect(throws: StorageError.self) {
            try await fixture.plugin.uploadData(path: .fromString("public/link/evil.txt"), data: Data("x".utf8), options: nil).value
        }
        await #expect(throws: StorageError.self) {
            try await fixture.plugin.downloadData(path: .fromString("public/link/evil.txt"), options: nil).value
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        try await fixture.close()
    }

    @Test("a cancelled upload leaves the previous object whole, and no temporary file behind")
    func cancelKeepsOldObject() async throws {
        let fixture = try Fixture(chunkSize: 4096)
        let old = Self.bytes(5_000, seed: 1)
        _ = try await fixture.plugin.uploadData(path: .fromString("public/doc.bin"), data: old, options: nil).value
        let task = fixture.plugin.uploadData(path: .fromString("public/doc.bin"), data: Self.bytes(8 << 20, seed: 2), options: nil)
        for await update in task.progress where update.completedBytes > 0 {
            task.cancel()
            break
        }
        await #expect(throws: StorageError.self) { try await task.value }
        #expect(task.state == .cancelled)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await fixture.plugin.downloadData(path: .fromString("public/doc.bin"), options: nil).value == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/tmp").isEmpty)
        try await fixture.close()
    }

    @Test("a paused transfer stops moving and finishes byte-exact after resume")
    func pauseResume() async throws {
        let fixture = try Fixture(chunkSize: 4096)
        let data = Self.bytes(2 << 20)
        let task = fixture.plugin.uploadData(path: .fromString("public/paused.bin"), data: data, options: nil)
        var iterator = task.progress.makeAsyncIterator()
        while let update = await iterator.next(), update.completedBytes == 0 {}
        task.pause()
        #expect(task.state == .paused)
        // A chunk in flight when paused may still land: wait until the file has not grown for
        // 300 ms (a fixed 50 ms is too short on a loaded machine); after that it does not grow.
        let file = try Self.uploadInProgress(root: fixture.root)
        func size() throws -> Int? { try file.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } ?? nil }
        var sizeWhilePaused = try size()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(300))
            let now = try size()
            if now == sizeWhilePaused { break }
            sizeWhilePaused = now
        }
        try await Task.sleep(for: .milliseconds(100))
        let sizeLater = try file.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } ?? nil
        #expect(sizeWhilePaused != nil && sizeWhilePaused == sizeLater)
        task.resume()
        _ = try await task.value
        #expect(try await fixture.plugin.downloadData(path: .fromString("public/paused.bin"), options: nil).value == data)
        try await fixture.close()
    }
}

extension LocalStoragePluginTests {
    /// The file an upload is writing: a named file in `tmp/`, or a nameless one (`O_TMPFILE`)
    /// reached through this process's open descriptor of it.
    static func uploadInProgress(root: String) throws -> String? {
        if let name = try FileManager.default.contentsOfDirectory(atPath: root + "/tmp").first { return root + "/tmp/" + name }
        for descriptor in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            let link = "/proc/self/fd/" + descriptor
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link), target.hasPrefix(root + "/tmp/") { return link }
        }
        return nil
    }
}

@Suite("Local storage plugin: large files")
struct LocalStorageLargeFileTests {
    /// Measured in a process of its own (`StorageBenchmark --memory-check`): resident memory is
    /// per process, and other tests run at the same time.
    @Test("a 256 MiB upload and download stream in chunks: resident memory grows by less than 48 MiB")
    func memoryStaysFlat() async throws {
        let run = try await ProductRunner.run("StorageBenchmark", ["--memory-check", "256"])
        #expect(run.exitCode == 0, "\(run.stderr)")
        let growth = run.stdout.split(separator: "\n").compactMap { $0.hasPrefix("resident growth bytes: ") ? Int($0.dropFirst(23)) : nil }.first
        let bytes = try #require(growth)
        if !runningUnderSanitizer { #expect(bytes < 48 << 20, "resident memory grew by \(bytes >> 20) MiB") }
    }
}

@Suite("Local storage plugin: Hub events")
struct LocalStorageHubTests {
    @Test("an upload's progress and result reach the Hub through the one dispatch path")
    func hubEvents() async throws {
        let fixture = try LocalStoragePluginTests.Fixture(chunkSize: 4096)
        let key = "public/hub-\(UUID().uuidString).bin"
        let size: Int64 = 123_457
        let seen = Locked<[HubPayload]>([])
        let token = fixture.hub.listen(to: .storage, isIncluded: nil, file: #fileID, line: #line) { payload in
            if payload.data as? String == key || (payload.data as? StorageTransferProgress)?.totalBytes == size {
                seen.withLock { $0.append(payload) }
            }
        }
        _ = try await fixture.plugin.uploadData(path: .fromString(key), data: LocalStoragePluginTests.bytes(Int(size)), options: nil).value
        await fixture.hub.flush()
        fixture.hub.removeListener(token)
        let events = seen.value
        let progress = events.filter { $0.eventName == HubPayload.EventName.Storage.progress }
        #expect(progress.count > 1)
        #expect(progress.allSatisfy { $0.context as? String == HubPayload.EventName.Storage.uploadData })
        #expect((progress.last?.data as? StorageTransferProgress)?.completedBytes == size)
        #expect(events.last?.eventName == HubPayload.EventName.Storage.uploadData)
        try await fixture.close()
    }
}
