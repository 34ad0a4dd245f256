import AmplifyTestKit
import Foundation
import Testing

/// `amplify storage …` on the local plugin, each command its own process.
@Suite("amplify storage")
struct StorageCommandTests {
    private func folder() async throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"storage": {"plugins": {"localStoragePlugin": {"directory": "store"}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        return folder
    }

    @Test("put, ls, get to a file and to stdout, url, rm; with output piped there is no progress bar")
    func roundTrip() async throws {
        let folder = try await folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try content.write(to: folder.appendingPathComponent("photo.jpg"))
        let put = try await Tool.run(["storage", "put", "public/photos/cat.jpg", "photo.jpg"], in: folder)
        #expect(put.stdout == "Uploaded public/photos/cat.jpg (300000 bytes).\n")
        #expect(put.stderr.isEmpty)
        #expect(try await Tool.run(["storage", "put", "public/notes/n.txt", "-"], in: folder, input: "a note\n").exitCode == 0)
        #expect(
            try await Tool.run(["storage", "ls"], in: folder).stdout == "           7  public/notes/n.txt\n      300000  public/photos/cat.jpg\n")
        #expect(try await Tool.run(["storage", "ls", "public/photos/"], in: folder).stdout == "      300000  public/photos/cat.jpg\n")
        let get = try await Tool.run(["storage", "get", "public/photos/cat.jpg", "back.jpg"], in: folder)
        #expect(get.stdout == "Downloaded public/photos/cat.jpg to back.jpg (300000 bytes).\n")
        #expect(try Data(contentsOf: folder.appendingPathComponent("back.jpg")) == content)
        #expect(try await Tool.run(["storage", "get", "public/notes/n.txt", "-"], in: folder).stdout == "a note\n")
        let url = try await Tool.run(["storage", "url", "public/notes/n.txt"], in: folder).stdout
        #expect(url.hasPrefix("file:///") && url.hasSuffix("public/notes/n.txt\n"))
        #expect(try await Tool.run(["storage", "rm", "public/notes/n.txt"], in: folder).stdout == "Removed public/notes/n.txt.\n")
        let missing = try await Tool.run(["storage", "get", "public/notes/n.txt", "-"], in: folder)
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.hasPrefix("error: There is no object at 'public/notes/n.txt'."))
    }

    @Test("a key that could leave the root, a missing local file and a bad --expires are refused with the reason")
    func errors() async throws {
        let folder = try await folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("x".utf8).write(to: folder.appendingPathComponent("x.txt"))
        let escape = try await Tool.run(["storage", "put", "../outside.txt", "x.txt"], in: folder)
        #expect(escape.exitCode == 1)
        #expect(escape.stderr.contains("'..' segment"))
        let noFile = try await Tool.run(["storage", "put", "public/a.txt", "missing.txt"], in: folder)
        #expect(noFile.exitCode == 1)
        #expect(noFile.stderr.hasPrefix("error: There is no file missing.txt."))
        let expires = try await Tool.run(["storage", "url", "public/a.txt", "--expires", "0"], in: folder)
        #expect(expires.exitCode == 2)
        #expect(expires.stderr.hasPrefix("--expires takes 1 to 604800 seconds; got '0'."))
    }
}

/// `amplify storage …` on the S3 plugin against moto_server, from a CLI-shaped configuration with
/// an endpoint override.
@Suite("amplify storage on S3")
struct S3StorageCommandTests {
    @Test("put, ls, get and a presigned url that the curl tool downloads", .timeLimit(.minutes(10)))
    func s3RoundTrip() async throws {
        try await MotoServer.with { moto in
            try moto.seed(["buckets": ["cli-bucket"]])
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-s3-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let config =
                #"{"storage": {"plugins": {"awsS3StoragePlugin": {"bucket": "cli-bucket", "region": "us-east-1", "defaultAccessLevel": "guest", "endpoint": "\#(moto.endpoint.absoluteString)"}}}}"#
            try Data(config.utf8).write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
            try Data("hello, S3\n".utf8).write(to: folder.appendingPathComponent("hello.txt"))
            let keys = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"]
            #expect(
                try await Tool.run(["storage", "put", "public/hello.txt", "hello.txt"], in: folder, environment: keys).stdout
                    == "Uploaded public/hello.txt (10 bytes).\n")
            #expect(try await Tool.run(["storage", "ls", "public/"], in: folder, environment: keys).stdout == "          10  public/hello.txt\n")
            #expect(try await Tool.run(["storage", "get", "public/hello.txt", "-"], in: folder, environment: keys).stdout == "hello, S3\n")
            let url = try await Tool.run(["storage", "url", "public/hello.txt", "--expires", "300"], in: folder, environment: keys).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(url.contains("X-Amz-Expires=300"))
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            curl.arguments = ["curl", "-s", "-f", url]
            let output = Pipe()
            curl.standardOutput = output
            curl.standardError = FileHandle.nullDevice
            curl.standardInput = FileHandle.nullDevice
            try curl.runSerialized()
            let reading = output.fileHandleForReading
            let body = try await offThePool { reading.readDataToEndOfFile() }
            await curl.exited()
            #expect(String(decoding: body, as: UTF8.self) == "hello, S3\n")
            let missing = try await Tool.run(["storage", "rm", "public/nothing.txt"], in: folder, environment: keys)
            #expect(missing.exitCode == 1)
            #expect(missing.stderr.hasPrefix("error: There is no object at 'public/nothing.txt'."))
        }
    }

    @Test("--bucket NAME puts, lists, gets and removes in that bucket; url --put is refused by the local plugin; url --check needs the object")
    func bucketOption() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"{"storage": {"plugins": {"localStoragePlugin": {"directory": "store", "buckets": [{"name": "reports", "bucket_name": "reports-bucket", "aws_region": "us-east-1"}]}}}}"#
                .utf8
        )
        .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        #expect(try await Tool.run(["storage", "put", "q4.txt", "-", "--bucket", "reports"], in: folder, input: "q4").exitCode == 0)
        #expect(try await Tool.run(["storage", "ls", "--bucket", "reports"], in: folder).stdout == "           2  q4.txt\n")
        #expect(try await !Tool.run(["storage", "ls"], in: folder).stdout.contains("q4.txt"))
        #expect(try await Tool.run(["storage", "get", "q4.txt", "-", "--bucket", "reports"], in: folder).stdout == "q4")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("store/buckets/reports-bucket/objects/q4.txt").path))
        let unknown = try await Tool.run(["storage", "ls", "--bucket", "nope"], in: folder)
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr.hasPrefix("error: No bucket named 'nope' is in the Storage configuration; its buckets are reports."))
        let put = try await Tool.run(["storage", "url", "q4.txt", "--put", "--bucket", "reports"], in: folder)
        #expect(put.exitCode == 1)
        #expect(put.stderr.hasPrefix("error: The local storage plugin has no upload URLs"))
        #expect(try await Tool.run(["storage", "url", "gone.txt"], in: folder).exitCode == 0)
        #expect(try await Tool.run(["storage", "url", "gone.txt", "--check"], in: folder).exitCode == 1)
        #expect(try await Tool.run(["storage", "rm", "q4.txt", "--bucket", "reports"], in: folder).stdout == "Removed q4.txt.\n")
    }
}
