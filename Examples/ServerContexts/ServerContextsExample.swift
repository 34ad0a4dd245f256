import Amplify
import AmplifyAuthCore
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

/// Request handling in each user's server context, on the embedded local pool. Reads one request
/// per line of standard input as JSON (`{"method", "path", "headers": [[name, value], …], "body"}`)
/// and writes one response per line (`{"status", "headers": [[name, value], …], "body"}`), so a
/// test (or a shell) plays the browser. The pool has two users, `ann@example.com` and `ben`
/// (password `Context-Passw0rd`).
///
///     echo '{"method":"POST","path":"/sign-in","body":{"username":"ben","password":"Context-Passw0rd"}}' | swift run ServerContexts [POOL-FOLDER]
@main
enum ServerContextsExample {
    static func main() async throws {
        // The pool's folder: the first argument (kept, so several runs share the pool), or a
        // temporary one removed at the end.
        let given = CommandLine.arguments.dropFirst().first
        let folder =
            given.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("server-contexts-\(UUID().uuidString.prefix(8))")
        defer { if given == nil { try? FileManager.default.removeItem(at: folder) } }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        Amplify.registerBuiltInPlugins()
        try Amplify.configure(
            AmplifyConfiguration(
                auth: CategoryConfiguration(plugins: [
                    "localAuthPlugin": [
                        "directory": .string(folder.path), "signUpRequiresConfirmation": false, "passwordHashCost": 16384,
                    ]
                ])))
        guard let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin else { return }
        for (name, email) in [("ann@example.com", "ann@example.com"), ("ben", "ben@example.com")] {
            // Already there when a previous run made the pool.
            _ = try? await Amplify.Auth.signUp(
                username: name, password: "Context-Passw0rd", options: .init(userAttributes: [AuthUserAttribute(.email, value: email)]))
        }
        let handler = AuthRequestHandler(plugin: plugin)
        while let line = readLine() {
            guard let request = decode(line) else {
                emit(Response(status: 400, body: ["error": "not a request line"]))
                continue
            }
            emit(await handler.handle(request))
        }
        await Amplify.reset()
    }

    static func decode(_ line: String) -> Request? {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else { return nil }
        let headers = (json["headers"]?.asArray ?? []).compactMap { pair -> (name: String, value: String)? in
            guard let name = pair.asArray?.first?.stringValue, let value = pair.asArray?.last?.stringValue else { return nil }
            return (name: name, value: value)
        }
        return Request(
            method: json["method"]?.stringValue ?? "GET", path: json["path"]?.stringValue ?? "/", headers: headers, body: json["body"] ?? .null)
    }

    static func emit(_ response: Response) {
        let json: JSONValue = [
            "status": .number(Double(response.status)),
            "headers": .array(response.headers.map { .array([.string($0.name), .string($0.value)]) }), "body": response.body,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // One write per response, straight to the descriptor: print() would block-buffer a pipe,
        // and a client that waits for each answer would wait forever.
        if let data = try? encoder.encode(json) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
    }
}
