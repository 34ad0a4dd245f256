import Amplify
import AmplifyAuthCore
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import LocalStoragePlugin
import Testing

@Suite("Storage paths in server contexts")
struct ContextStoragePathTests {
    @Test(".fromIdentityID paths of the local Storage plugin are the context user's: two users in one process write under their own ids")
    func identityPathsPerContext() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let storage = LocalStoragePlugin(loop: fixture.loop, hub: fixture.hub)
        try storage.configure(using: JSONValue.object(["directory": .string(fixture.folder + "/storage")]))
        let ann = try await ServerContextTests.contextUser(plugin, fixture, "ann")
        let ben = try await ServerContextTests.contextUser(plugin, fixture, "ben")
        let path: IdentityIDStoragePath = .fromIdentityID { "private/\($0)/note.txt" }
        let annKey = try await ann.run { try await storage.uploadData(path: path, data: Data("ann".utf8), options: nil).value }
        let benKey = try await ben.run { try await storage.uploadData(path: path, data: Data("ben".utf8), options: nil).value }
        #expect(annKey == "private/\(ann.user?.userId ?? "?")/note.txt")
        #expect(benKey == "private/\(ben.user?.userId ?? "?")/note.txt")
        let read = try await ben.run { try await storage.downloadData(path: path, options: nil).value }
        #expect(read == Data("ben".utf8))
        // Outside any context nobody is signed in (Amplify.Auth is not even configured here).
        await #expect(throws: (any Error).self) { _ = try await storage.uploadData(path: path, data: Data(), options: nil).value }
        await storage.reset()
        try await fixture.close(plugin)
    }
}
