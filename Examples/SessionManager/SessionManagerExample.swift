import Amplify
import AmplifyAuthCore
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

/// The session-manager flow as library code: sign up, confirm, sign in, let the session expire on
/// its own, sign in again, sign out, while a SessionManager follows the Hub.
///
///     swift run SessionManager
@main
enum SessionManagerExample {
    static func main() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("session-manager-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = AmplifyConfiguration(
            auth: CategoryConfiguration(plugins: [
                "localAuthPlugin": [
                    "directory": .string(folder.path), "accessTokenLifetimeSeconds": 1, "refreshTokenLifetimeSeconds": 2, "passwordHashCost": 16384,
                ]
            ]))

        Amplify.registerBuiltInPlugins()
        try Amplify.configure(configuration)
        let manager = SessionManager()
        let printer = await manager.printChanges()
        let pool = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin

        try await manager.register("sam", email: "sam@example.com", password: "Sess1on-Manager") {
            try await pool?.outbox(for: "sam").last?.code ?? ""
        }
        try await manager.ensureSignedIn("sam", password: "Sess1on-Manager")
        print("expired on its own: \(await manager.wait(for: .signedOut(.sessionExpired)))")
        try await manager.ensureSignedIn("sam", password: "Sess1on-Manager")
        _ = await Amplify.Auth.signOut()
        print("signed out: \(await manager.wait(for: .signedOut(.signedOut)))")
        await manager.state.stop()
        await printer.value
        await Amplify.reset()
    }
}
