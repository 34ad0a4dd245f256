import AmplifyTestKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `amplify storage put` killed in the middle of an upload.
@Suite("amplify storage: a killed upload")
struct StorageKillTests {
    @Test("a put killed mid-upload (SIGKILL) leaves no tmp/<uuid> file and no object")
    func killedPutLeavesNoTemporaryFile() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-storage-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"storage": {"plugins": {"localStoragePlugin": {"directory": "store", "chunkSizeBytes": 65536}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        // 1 GiB, sparse: made at once, and the upload takes seconds to copy it.
        let source = folder.appendingPathComponent("big.bin")
        _ = FileManager.default.createFile(atPath: source.path, contents: nil)
        #expect(truncate(source.path, 1 << 30) == 0)

        let process = Process()
        process.executableURL = ProductRunner.url(of: "amplify")
        process.arguments = ["storage", "put", "public/big.bin", source.path]
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "AMPLIFY_CONFIG")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runSerialized()
        // Kill it once it has written 16 MiB (of 1024) into the store. The wait blocks (no
        // suspension), so a busy task pool cannot make it miss the moment.
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, Self.bytesWritten(process.processIdentifier) < 16 << 20, ContinuousClock.now < deadline {
            usleep(1000)
        }
        let killedMidway = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        #expect(killedMidway, "the upload finished before it could be killed")
        let temporary = folder.appendingPathComponent("store/tmp").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("store/objects/public/big.bin").path))
    }

    /// `wchar` of /proc/PID/io: bytes the process has written so far.
    private static func bytesWritten(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
