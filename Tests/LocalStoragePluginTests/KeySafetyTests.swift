import Amplify
import AmplifyEventLoop
import Foundation
import LocalStoragePlugin
import Testing

/// Keys against the file system's view of them: bytes, links, metadata, failures.
@Suite("Local storage plugin: keys are bytes, links are never followed, metadata is out of reach")
struct KeySafetyTests {
    typealias Fixture = LocalStoragePluginTests.Fixture

    private func upload(_ fixture: Fixture, _ key: String, _ text: String, contentType: String? = nil) async throws {
        _ = try await fixture.plugin.uploadData(path: .fromString(key), data: Data(text.utf8), options: .init(contentType: contentType)).value
    }

    private func download(_ fixture: Fixture, _ key: String) async throws -> String {
        String(decoding: try await fixture.plugin.downloadData(path: .fromString(key), options: nil).value, as: UTF8.self)
    }

    private func isValidationError(_ error: any Error) -> Bool {
        if case StorageError.validation = error { return true }
        return false
    }

    @Test(
        "a '/' followed by a combining mark or U+200D is a separator, so the '..' or '.' before it is refused; so are segments that normalise to them",
        arguments: [
            "../\u{0301}x", "../\u{200D}x", "public/../\u{0301}../\u{0301}x", "./\u{0301}x", "\u{FF0E}\u{FF0E}/x", "a/\u{FF0F}b", "a/\u{FE52}/b",
        ])
    func separatorsAreBytes(_ key: String) async throws {
        let fixture = try Fixture()
        let parent = (fixture.root as NSString).deletingLastPathComponent
        await #expect { try await upload(fixture, key, "escaped") } throws: { isValidationError($0) }
        // Nothing appeared beside the objects, nor beside the root.
        let inRoot = Set((try? FileManager.default.contentsOfDirectory(atPath: fixture.root)) ?? [])
        #expect(inRoot.subtracting(["objects", "meta", "tmp", "index"]).isEmpty, "\(inRoot)")
        for name in ["\u{0301}x", "\u{0301}x.json", "\u{200D}x", "\u{200D}x.json"] {
            #expect(!FileManager.default.fileExists(atPath: parent + "/" + name), "\(name) escaped the root")
        }
        try await fixture.close()
    }

    @Test("get and rm through a planted link to a folder outside the root are refused, with the name behind a combining mark too")
    func plantedFolderLink() async throws {
        let fixture = try Fixture()
        try await upload(fixture, "public/seed.txt", "seed")
        let outside = fixture.root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        for name in ["\u{0301}x", "plain"] { try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/" + name)) }
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/objects/public/link", withDestinationPath: outside)
        for key in ["public/link/\u{0301}x", "public/link/plain"] {
            await #expect { _ = try await download(fixture, key) } throws: { isValidationError($0) }
            await #expect { _ = try await fixture.plugin.remove(path: .fromString(key), options: nil) } throws: { isValidationError($0) }
            await #expect { try await upload(fixture, key, "overwritten") } throws: { isValidationError($0) }
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: outside)) == ["\u{0301}x", "plain"])
        for name in ["\u{0301}x", "plain"] { #expect(FileManager.default.contents(atPath: outside + "/" + name) == Data("secret".utf8)) }
        try await fixture.close()
    }

    @Test("an object that is a planted link to a file outside is neither read nor removed, and the target is untouched")
    func plantedFileLink() async throws {
        let fixture = try Fixture()
        try await upload(fixture, "public/seed.txt", "seed")
        let outside = fixture.root + "-outside.txt"
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/objects/public/file-link", withDestinationPath: outside)
        await #expect(throws: StorageError.self) { _ = try await download(fixture, "public/file-link") }
        await #expect(throws: StorageError.self) { _ = try await fixture.plugin.remove(path: .fromString("public/file-link"), options: nil) }
        #expect(FileManager.default.contents(atPath: outside) == Data("secret".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: fixture.root + "/objects/public/file-link")) == outside)
        try await fixture.close()
    }

    @Test("keys that look like the metadata files live beside the objects they resemble: 'x' with 'x.json/b', 'y.json/b' with 'y'")
    func metadataOutOfReach() async throws {
        let fixture = try Fixture()
        try await upload(fixture, "x", "plain x", contentType: "text/x")
        try await upload(fixture, "x.json/b", "below x.json", contentType: "text/b")
        try await upload(fixture, "y.json/b", "below y.json", contentType: "text/yb")
        try await upload(fixture, "y", "plain y", contentType: "text/y")
        #expect(try await download(fixture, "x") == "plain x")
        #expect(try await download(fixture, "x.json/b") == "below x.json")
        #expect(try await download(fixture, "y") == "plain y")
        #expect(try await download(fixture, "y.json/b") == "below y.json")
        let listed = try await fixture.plugin.list(path: .fromString(""), options: nil).items
        #expect(listed.map(\.path) == ["x", "x.json/b", "y", "y.json/b"])
        #expect(listed.map(\.size) == [7, 12, 7, 12])
        try await fixture.close()
    }

    @Test("a put that fails after its folders or its temporary file were made leaves neither behind")
    func failedPutLeavesNothing() async throws {
        let fixture = try Fixture()
        try await upload(fixture, "public/seed.txt", "seed")
        // Reading the source fails after the temporary file exists (a folder is not readable as bytes).
        let source = URL(fileURLWithPath: fixture.root + "-source-dir")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: source) }
        await #expect(throws: (any Error).self) {
            _ = try await fixture.plugin.uploadFile(path: .fromString("fresh/deep/object.bin"), local: source, options: nil).value
        }
        // Below an existing object: refused.
        await #expect { try await upload(fixture, "public/seed.txt/below", "x") } throws: { isValidationError($0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/tmp").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/objects") == ["public"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/objects/public") == ["seed.txt"])
        try await fixture.close()
    }
}
