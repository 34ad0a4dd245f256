import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("LoopFileSystem")
struct LoopFileSystemTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "amplify-fs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("write, fsync, rename, read back, stat, list and remove a file through libuv")
    func roundTrip() async throws {
        let loop = try EventLoop()
        let fs = loop.fileSystem
        let folder = try temporaryDirectory()
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let temporary = folder + "/object.tmp"
        let final = folder + "/object"

        let writer = try await fs.open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        #expect(try await fs.write(writer, bytes, offset: 0) == bytes.count)
        try await fs.fsync(writer)
        try await fs.close(writer)
        try await fs.rename(temporary, to: final)

        let status = try await fs.stat(final)
        #expect(status.size == UInt64(bytes.count))
        #expect(status.isRegularFile)
        #expect(status.mode & 0o777 == 0o600)

        let reader = try await fs.open(final, flags: O_RDONLY)
        var readBack: [UInt8] = []
        while true {
            let chunk = try await fs.read(reader, count: 65_536, offset: Int64(readBack.count))
            if chunk.isEmpty { break }
            readBack += chunk
        }
        try await fs.close(reader)
        #expect(readBack == bytes)

        try await fs.mkdir(folder + "/sub")
        #expect(try await fs.stat(folder + "/sub").isDirectory)
        #expect(Set(try await fs.listDirectory(folder)) == ["object", "sub"])
        try await fs.unlink(final)
        try await fs.rmdir(folder + "/sub")
        #expect(try await fs.listDirectory(folder).isEmpty)
        try await fs.rmdir(folder)
        try loop.shutdown()
        #expect(loop.loopClosedCleanly)
    }

    @Test("a missing file fails with ENOENT and names the path")
    func missingFile() async throws {
        let loop = try EventLoop()
        let path = "/nonexistent-\(UUID().uuidString)"
        await #expect(
            throws: EventLoopError.fileSystem(
                operation: "open", path: path, code: -ENOENT, message: "no such file or directory")
        ) {
            _ = try await loop.fileSystem.open(path, flags: O_RDONLY)
        }
        try loop.shutdown()
    }

    @Test("lstat sees a symbolic link that stat follows")
    func lstatSeesLinks() async throws {
        let loop = try EventLoop()
        let folder = try temporaryDirectory()
        _ = FileManager.default.createFile(atPath: folder + "/target", contents: Data("x".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/target")
        #expect(try await loop.fileSystem.lstat(folder + "/link").isSymbolicLink)
        #expect(try await loop.fileSystem.stat(folder + "/link").isRegularFile)
        try loop.shutdown()
        try FileManager.default.removeItem(atPath: folder)
    }
}
