import AWSPluginsCore
import AWSS3StoragePlugin
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyStorageCore
import AmplifyTestKit
import Foundation
import LocalStoragePlugin
import Testing

/// The plugins the shared Storage behaviour runs against.
enum StorageBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case local
    case s3

    var testDescription: String { rawValue == "s3" ? "S3 on moto_server" : "local" }
}

/// A plugin of one backend on its own loop (and, for S3, its own moto_server with a bucket),
/// configured to go multipart above 16 MiB in 5 MiB parts.
final class StorageFixture: @unchecked Sendable {
    // @unchecked Sendable: set up in init, then only read; `close` is called once by the test.
    let loop: EventLoop
    /// The fixture's own Hub (the global one belongs to the lifecycle tests).
    let hub: DefaultHubPlugin
    let plugin: any StorageCategoryPlugin
    let backend: StorageBackend
    private let moto: MotoServer?
    /// moto's region (S3 only).
    var region: String? { moto?.region }
    private let root: String?

    /// Who the plugins see calling, for the access rules of the `rules` bucket.
    let caller = Locked(StorageAccessRules.Caller.guest)

    /// The block's named buckets: `main` (the default one), `other`, and `rules` with Gen 2
    /// access rules (guest read of `public/`, owner-only `private/{entity_id}/`, group
    /// `ADMINS` for `admin/`).
    static func buckets(region: String) -> JSONValue {
        [
            ["name": "main", "bucket_name": "behaviour-bucket", "aws_region": .string(region)],
            ["name": "other", "bucket_name": "other-bucket", "aws_region": .string(region)],
            [
                "name": "rules", "bucket_name": "rules-bucket", "aws_region": .string(region),
                "paths": [
                    "public/*": ["guest": ["get", "list"], "authenticated": ["read", "write", "delete"]],
                    "private/{entity_id}/*": ["entityidentity": ["read", "write", "delete"]],
                    "admin/*": ["groupsADMINS": ["read", "write", "delete"], "authenticated": ["get"]],
                ],
            ],
        ]
    }

    init(_ backend: StorageBackend, chunkSize: Int = 1 << 20) async throws {
        self.backend = backend
        loop = try EventLoop(name: "storage-\(backend.rawValue)")
        hub = DefaultHubPlugin(loop: loop)
        switch backend {
        case .local:
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("storage-behaviour-\(UUID().uuidString)").path
            let caller = caller
            let plugin = LocalStoragePlugin(loop: loop, identityId: { "identity-1" }, hub: hub, caller: { caller.value })
            try plugin.configure(
                using: [
                    "directory": .string(root), "chunkSizeBytes": .number(Double(chunkSize)), "buckets": Self.buckets(region: "us-east-1"),
                ] as JSONValue)
            self.plugin = plugin
            self.root = root
            moto = nil
        case .s3:
            let moto = try await MotoServer.start()
            try moto.seed(["buckets": ["behaviour-bucket", "other-bucket", "rules-bucket"]])
            let caller = caller
            let plugin = AWSS3StoragePlugin(
                loop: loop, credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "testing", secretAccessKey: "testing")),
                identityId: { "identity-1" }, hub: hub, caller: { caller.value })
            try plugin.configure(
                using: [
                    "bucket": "behaviour-bucket", "region": .string(moto.region), "endpoint": .string(moto.endpoint.absoluteString),
                    "multipartThresholdBytes": .number(Double(16 << 20)), "partSizeBytes": .number(Double(5 << 20)), "concurrentParts": 3,
                    "buckets": Self.buckets(region: moto.region),
                ] as JSONValue)
            self.plugin = plugin
            self.moto = moto
            root = nil
        }
    }

    func close() async throws {
        await plugin.reset()
        await hub.reset()
        try loop.shutdown()
        moto?.stop()
        if let root { try? FileManager.default.removeItem(atPath: root) }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed) &+ index >> 8) }
        return Data(bytes)
    }
}
