import Amplify
import AmplifyEventLoop
import Foundation
import AmplifyTestKit
import LocalStoragePlugin
import Testing

/// The Storage behaviour every plugin must show, run here against the local plugin on its own
/// loop and folder.
@Suite("Local storage plugin: storage behaviour")
struct StorageBehaviourTests {
    final class Fixture: Sendable {
        let loop: EventLoop
        let plugin: LocalStoragePlugin
        let root: String

        init(chunkSize: Int = 1 << 20) throws {
            loop = try EventLoop(name: "storage-test")
            root = FileManager.default.temporaryDirectory.appendingPathComponent("local-storage-\(UUID().uuidString)").path
            plugin = LocalStoragePlugin(loop: loop, identityId: { "identity-1" })
            try plugin.configure(using: ["directory": .string(root), "chunkSizeBytes": .number(Double(chunkSize))] as JSONValue)
        }

        func close() throws {
            try loop.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &+ index >> 8) }
        return Data(bytes)
    }

    @Test("uploads and downloads round-trip byte-exact from 0 bytes to 64 MiB", arguments: [0, 1, 4095, (1 << 20) + 1, 64 << 20])
    func roundTrip(_ size: Int) async throws {
        let fixture = try Fixture()
        let data = Self.bytes(size)
        let key = try await fixture.plugin.uploadData(path: .fromString("public/blob-\(size).bin"), data: data, options: nil).value
        #expect(key == "public/blob-\(size).bin")
        let back = try await fixture.plugin.downloadData(path: .fromString(key), options: nil).value
        #expect(back.count == size)
        #expect(back == data)
        try fixture.close()
    }

    @Test("uploadFile and downloadFile stream through files; the downloaded file equals the source")
    func fileRoundTrip() async throws {
        let fixture = try Fixture(chunkSize: 64 << 10)
        let source = URL(fileURLWithPath: fixture.root + "-source.bin")
        let target = URL(fileURLWithPath: fixture.root + "-target.bin")
        defer { [source, target].forEach { try? FileManager.default.removeItem(at: $0) } }
        let data = Self.bytes(3 << 20 + 17)
        try data.write(to: source)
        _ = try await fixture.plugin.uploadFile(path: .fromString("private/identity-1/video.mp4"), local: source, options: nil).value
        try await fixture.plugin.downloadFile(path: .fromIdentityID { "private/\($0)/video.mp4" }, local: target, options: nil).value
        #expect(try Data(contentsOf: target) == data)
        let url = try await fixture.plugin.getURL(path: .fromString("private/identity-1/video.mp4"), options: nil)
        #expect(url.isFileURL)
        #expect(try Data(contentsOf: url) == data)
        try fixture.close()
    }

    @Test("progress rises monotonically and ends at the total")
    func progress() async throws {
        let fixture = try Fixture(chunkSize: 4096)
        let data = Self.bytes(100_000)
        let task = fixture.plugin.uploadData(path: .fromString("public/progress.bin"), data: data, options: nil)
        var seen: [Int64] = []
        for await update in task.progress {
            seen.append(update.completedBytes)
            #expect(update.totalBytes == 100_000)
        }
        _ = try await task.value
        #expect(seen == seen.sorted())
        #expect(seen.last == 100_000)
        let download = fixture.plugin.downloadData(path: .fromString("public/progress.bin"), options: nil)
        var last: Int64 = -1
        for await update in download.progress {
            #expect(update.completedBytes >= last)
            last = update.completedBytes
        }
        #expect(try await download.value == data)
        #expect(last == 100_000)
        try fixture.close()
    }

    @Test("ranges return exactly the asked bytes; a range outside the object is a clear error")
    func ranges() async throws {
        let fixture = try Fixture(chunkSize: 4096)
        let data = Self.bytes(10_000)
        _ = try await fixture.plugin.uploadData(path: .fromString("public/r.bin"), data: data, options: nil).value
        let middle = try await fixture.plugin.downloadData(path: .fromString("public/r.bin"), options: .init(pluginOptions: StorageByteRange(start: 100, end: 5_099))).value
        #expect(middle == data[100...5_099])
        let tail = try await fixture.plugin.downloadData(path: .fromString("public/r.bin"), options: .init(pluginOptions: StorageByteRange(start: 9_990))).value
        #expect(tail == data[9_990...])
        await #expect(throws: StorageError.self) {
            try await fixture.plugin.downloadData(path: .fromString("public/r.bin"), options: .init(pluginOptions: StorageByteRange(start: 10_000))).value
        }
        try fixture.close()
    }

    @Test("list pages through keys in order with nextToken, and groups sub-paths with a delimiter")
    func listing() async throws {
        let fixture = try Fixture()
        let keys = (1...7).map { "public/photos/p\($0).jpg" } + ["public/photos/2026/a.jpg", "public/photos/2026/b.jpg", "public/other.txt"]
        for key in keys { _ = try await fixture.plugin.uploadData(path: .fromString(key), data: Data(key.utf8), options: nil).value }
        var pages: [[String]] = []
        var token: String?
        repeat {
            let page = try await fixture.plugin.list(path: .fromString("public/photos/"), options: .init(pageSize: 3, nextToken: token))
            pages.append(page.items.map(\.path))
            token = page.nextToken
        } while token != nil
        #expect(pages.flatMap { $0 } == keys.filter { $0.hasPrefix("public/photos/") }.sorted())
        #expect(pages.map(\.count) == [3, 3, 3])
        let grouped = try await fixture.plugin.list(path: .fromString("public/photos/"), options: .init(subpathStrategy: .exclude()))
        #expect(grouped.items.map(\.path) == (1...7).map { "public/photos/p\($0).jpg" })
        #expect(grouped.excludedSubpaths == ["public/photos/2026/"])
        #expect(grouped.items.first?.size == "public/photos/p1.jpg".utf8.count)
        await #expect(throws: StorageError.self) { try await fixture.plugin.list(path: .fromString("public/"), options: .init(nextToken: "%%%")) }
        try fixture.close()
    }

    @Test("remove deletes the object; a missing object is keyNotFound for download, getURL and remove")
    func removeAndMissing() async throws {
        let fixture = try Fixture()
        _ = try await fixture.plugin.uploadData(path: .fromString("public/gone.txt"), data: Data("x".utf8), options: nil).value
        #expect(try await fixture.plugin.remove(path: .fromString("public/gone.txt"), options: nil) == "public/gone.txt")
        for call in ["download", "url", "remove"] {
            do {
                switch call {
                case "download": _ = try await fixture.plugin.downloadData(path: .fromString("public/gone.txt"), options: nil).value
                case "url": _ = try await fixture.plugin.getURL(path: .fromString("public/gone.txt"), options: nil)
                default: _ = try await fixture.plugin.remove(path: .fromString("public/gone.txt"), options: nil)
                }
                Issue.record("\(call) of a missing object succeeded")
            } catch StorageError.keyNotFound(let key, _, _, _) {
                #expect(key == "public/gone.txt")
            }
        }
        try fixture.close()
    }

    @Test("bad keys are refused before touching the disk", arguments: ["", "/etc/passwd", "../escape", "public/../../x", "a//b", "dir/", "nul\0byte", "./x"])
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
        try fixture.close()
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
        await #expect(throws: StorageError.self) { try await fixture.plugin.downloadData(path: .fromString("public/link/evil.txt"), options: nil).value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        try fixture.close()
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
        try fixture.close()
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
        try await Task.sleep(for: .milliseconds(50))
        let file = try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/tmp").first.map { fixture.root + "/tmp/" + $0 }
        let sizeWhilePaused = try file.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } ?? nil
        try await Task.sleep(for: .milliseconds(100))
        let sizeLater = try file.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } ?? nil
        #expect(sizeWhilePaused != nil && sizeWhilePaused == sizeLater)
        task.resume()
        _ = try await task.value
        #expect(try await fixture.plugin.downloadData(path: .fromString("public/paused.bin"), options: nil).value == data)
        try fixture.close()
    }
}

@Suite("Local storage plugin: large files")
struct LocalStorageLargeFileTests {
    @Test("a 256 MiB upload and download stream in chunks: resident memory grows by less than 48 MiB")
    func memoryStaysFlat() async throws {
        let fixture = try StorageBehaviourTests.Fixture()
        let source = fixture.root + "-large.bin"
        let target = fixture.root + "-large-back.bin"
        defer { [source, target].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source, isDirectory: false).createdEmpty())
        let block = [UInt8](repeating: 0x5A, count: 1 << 20)
        for _ in 0..<256 { try handle.write(contentsOf: block) }
        try handle.close()
        let before = residentMemoryBytes()
        _ = try await fixture.plugin.uploadFile(path: .fromString("public/large.bin"), local: URL(fileURLWithPath: source), options: nil).value
        try await fixture.plugin.downloadFile(path: .fromString("public/large.bin"), local: URL(fileURLWithPath: target), options: nil).value
        let growth = residentMemoryBytes() - before
        #expect(try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int == 256 << 20)
        if !runningUnderSanitizer { #expect(growth < 48 << 20, "resident memory grew by \(growth >> 20) MiB") }
        try fixture.close()
    }
}

extension URL {
    /// Creates an empty file here and returns the URL.
    func createdEmpty() -> URL {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return self
    }
}
