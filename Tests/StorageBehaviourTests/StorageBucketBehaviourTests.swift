import AWSPluginsCore
import Amplify
import AmplifyStorageCore
import Foundation
import Testing

/// Per-call buckets, upload URLs and Gen 2 access rules, on both plugins.
@Suite("Storage buckets and access rules, local and S3")
struct StorageBucketBehaviourTests {
    @Test(
        "a call's bucket option targets that bucket: .fromOutputs(name:) and .fromBucketInfo reach the same bucket, and the default bucket stays apart",
        arguments: StorageBackend.allCases)
    func perCallBucket(_ backend: StorageBackend) async throws {
        let fixture = try await StorageFixture(backend)
        let plugin = fixture.plugin
        let other = OutputsStorageBucket.fromOutputs(name: "other")
        _ = try await plugin.uploadData(path: .fromString("public/a.txt"), data: Data("other".utf8), options: .init(bucket: other)).value
        _ = try await plugin.uploadData(path: .fromString("public/a.txt"), data: Data("default".utf8), options: nil).value
        let region = backend == .s3 ? try #require(fixture.region) : "us-east-1"
        let byInfo = ResolvedStorageBucket.fromBucketInfo(BucketInfo(bucketName: "other-bucket", region: region))
        #expect(try await plugin.downloadData(path: .fromString("public/a.txt"), options: .init(bucket: byInfo)).value == Data("other".utf8))
        #expect(try await plugin.downloadData(path: .fromString("public/a.txt"), options: nil).value == Data("default".utf8))
        #expect(try await plugin.list(path: .fromString("public/"), options: .init(bucket: other)).items.map(\.path) == ["public/a.txt"])
        _ = try await plugin.remove(path: .fromString("public/a.txt"), options: .init(bucket: other))
        #expect(try await plugin.list(path: .fromString("public/"), options: .init(bucket: other)).items.isEmpty)
        #expect(try await plugin.list(path: .fromString("public/"), options: nil).items.map(\.path) == ["public/a.txt"])
        do {
            _ = try await plugin.list(path: .fromString("public/"), options: .init(bucket: .fromOutputs(name: "nope")))
            Issue.record("an unknown bucket name was accepted")
        } catch StorageError.validation(let field, let description, _, _) {
            #expect(field == "bucket")
            #expect(description == "No bucket named 'nope' is in the Storage configuration; its buckets are main, other, rules.")
        }
        try await fixture.close()
    }

    @Test("getURL makes a URL without checking the object unless validateObjectExistence is set", arguments: StorageBackend.allCases)
    func urlWithoutValidation(_ backend: StorageBackend) async throws {
        let fixture = try await StorageFixture(backend)
        let url = try await fixture.plugin.getURL(path: .fromString("public/not-yet.txt"), options: nil)
        #expect(url.absoluteString.contains("public/not-yet.txt"))
        try await fixture.close()
    }

    @Test("S3: getURL with method .put gives a presigned PUT that uploads the object; the local plugin refuses .put")
    func uploadURL() async throws {
        for backend in StorageBackend.allCases {
            let fixture = try await StorageFixture(backend)
            let options = StorageGetURLRequest.Options(expires: 600, pluginOptions: AWSStorageGetURLOptions(method: .put))
            if backend == .local {
                await #expect(throws: StorageError.self) { try await fixture.plugin.getURL(path: .fromString("public/put.txt"), options: options) }
                try await fixture.close()
                continue
            }
            let url = try await fixture.plugin.getURL(path: .fromString("public/put.txt"), options: options)
            #expect(url.absoluteString.contains("X-Amz-Signature="))
            let http = try HTTPClient(loop: fixture.loop)
            let response = try await http.send(
                HTTPRequest(method: "PUT", url: url, headers: [("Content-Type", "text/plain")], body: .bytes(Array("uploaded by URL".utf8))))
            #expect(response.status == 200)
            await http.shutdown()
            #expect(try await fixture.plugin.downloadData(path: .fromString("public/put.txt"), options: nil).value == Data("uploaded by URL".utf8))
            try await fixture.close()
        }
    }

    @Test("Gen 2 access rules are enforced before a call, with an error naming the rule", arguments: StorageBackend.allCases)
    func accessRules(_ backend: StorageBackend) async throws {
        let fixture = try await StorageFixture(backend)
        let plugin = fixture.plugin
        let rules = OutputsStorageBucket.fromOutputs(name: "rules")
        // A guest may read public/ but not write it.
        do {
            _ = try await plugin.uploadData(path: .fromString("public/x.txt"), data: Data("x".utf8), options: .init(bucket: rules)).value
            Issue.record("a guest wrote public/")
        } catch StorageError.accessDenied(let description, _, _) {
            #expect(
                description
                    == "The access rule `public/*` of bucket 'rules' lets authenticated write 'public/x.txt'; the caller is not signed in (a guest).")
        }
        _ = try await plugin.list(path: .fromString("public/"), options: .init(bucket: rules))
        // Signed in: public/ is writable, one's own private/ folder too, another's is not.
        fixture.caller.withLock { $0 = StorageAccessRules.Caller(isAuthenticated: true) }
        _ = try await plugin.uploadData(path: .fromString("public/x.txt"), data: Data("x".utf8), options: .init(bucket: rules)).value
        _ = try await plugin.uploadData(path: .fromString("private/identity-1/mine.txt"), data: Data("m".utf8), options: .init(bucket: rules)).value
        await #expect(throws: StorageError.self) {
            try await plugin.downloadData(path: .fromString("private/identity-2/theirs.txt"), options: .init(bucket: rules)).value
        }
        // admin/: get for everyone signed in, write only for ADMINS; a path under no rule is refused.
        await #expect(throws: StorageError.self) {
            try await plugin.uploadData(path: .fromString("admin/report.txt"), data: Data("r".utf8), options: .init(bucket: rules)).value
        }
        fixture.caller.withLock { $0 = StorageAccessRules.Caller(isAuthenticated: true, groups: ["ADMINS"]) }
        _ = try await plugin.uploadData(path: .fromString("admin/report.txt"), data: Data("r".utf8), options: .init(bucket: rules)).value
        _ = try await plugin.remove(path: .fromString("admin/report.txt"), options: .init(bucket: rules))
        do {
            _ = try await plugin.list(path: .fromString("elsewhere/"), options: .init(bucket: rules))
            Issue.record("a path under no rule was listed")
        } catch StorageError.accessDenied(let description, _, _) {
            #expect(description.hasPrefix("'elsewhere/' in bucket 'rules' is under none of its access rules"))
        }
        // The buckets without paths are not checked.
        fixture.caller.withLock { $0 = .guest }
        _ = try await plugin.uploadData(
            path: .fromString("anywhere/x.txt"), data: Data("x".utf8), options: .init(bucket: .fromOutputs(name: "other"))
        ).value
        try await fixture.close()
    }
}
