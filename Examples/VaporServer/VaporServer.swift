#if AmplifyVapor
    import Amplify
    import AmplifyAuthCore
    import AmplifyVapor
    import ExampleServerSupport
    import Foundation
    import Synchronization
    import Vapor

    /// A JSON API on Vapor 4 whose requests run as their users, on the embedded default (or the file
    /// `--config` names): the same routes as the Hummingbird example.
    ///
    /// - `GET /health` — no user needed.
    /// - `GET /me` — the user's username, sub and groups.
    /// - `GET /me/files`, `PUT /me/files/NAME` — the user's own files, through `Amplify.Storage`.
    /// - `GET /admin` — members of the group `admins` only.
    /// - `/auth/sign-in`, `/auth/sign-up`, `/auth/sign-out`, … — sign-in that the server owns
    ///   (`AuthRoutes`); `GET /` links to them.
    ///
    ///     swift run --traits AmplifyVapor VaporServer [--config PATH] [--port N] [--origin URL]
    @main
    struct VaporServer {
        static func main() async {
            await ExampleServer.runReportingErrors {
                var options = ExampleServer.commandLineOptions()
                options.port = try ExampleServer.resolvedPort(options.port)
                let auth = try ExampleServer.configure(options)
                // Vapor's own command line is not used: the options above are the example's.
                let app = try await Application.make(Environment(name: "production", arguments: ["vapor"]))
                app.http.server.configuration.hostname = "127.0.0.1"
                app.http.server.configuration.port = options.port
                routes(app, try ExampleServer.signIn(auth, options))
                try await app.server.start(address: .hostname("127.0.0.1", port: options.port))
                ExampleServer.announce(port: app.http.server.shared.localAddress?.port ?? options.port)
                await waitForTermination()
                await app.server.shutdown()
                try await app.asyncShutdown()
                await Amplify.reset()
            }
        }

        static func routes(_ app: Application, _ signIn: ExampleServer.SignIn) {
            app.get("health") { _ in json(ExampleServer.health) }
            app.get { _ in
                Response(status: .ok, headers: ["Content-Type": "text/html; charset=utf-8"], body: .init(string: ExampleServer.homePage))
            }
            app.addAuthRoutes(signIn.routes)
            let users = app.grouped(AmplifyAuthMiddleware(signIn.authenticator))
            users.get("me") { req in json(try await ExampleServer.me(try req.amplify.requireUser())) }
            users.get("me", "files") { req in
                _ = try req.amplify.requireUser()
                return json(try await ExampleServer.files())
            }
            users.on(.PUT, "me", "files", ":name", body: .collect(maxSize: "1mb")) { req in
                _ = try req.amplify.requireUser()
                let data = req.body.data.map { Data(buffer: $0) } ?? Data()
                return json(try await ExampleServer.upload(name: req.parameters.get("name") ?? "", data: data))
            }
            users.grouped(AmplifyAccessMiddleware(.group("admins"))).get("admin") { req in
                json(ExampleServer.admin(try req.amplify.requireUser()))
            }
        }

        static func json(_ value: JSONValue) -> Response {
            Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(data: ExampleServer.bytes(value)))
        }

        /// Returns on SIGINT or SIGTERM.
        static func waitForTermination() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let once = SignalOnce(continuation)
                for signalNumber in [SIGINT, SIGTERM] {
                    signal(signalNumber, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                    source.setEventHandler { once.resume() }
                    source.resume()
                    once.keep(source)
                }
            }
        }
    }

    /// Resumes a continuation once, from whichever signal comes first; keeps the signal sources alive.
    final class SignalOnce: Sendable {
        private let state: Mutex<(continuation: CheckedContinuation<Void, Never>?, sources: [any DispatchSourceSignal])>

        init(_ continuation: CheckedContinuation<Void, Never>) { state = Mutex((continuation, [])) }

        func keep(_ source: any DispatchSourceSignal) {
            state.withLock { $0.sources.append(source) }
        }

        func resume() {
            let pending = state.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
            pending?.resume()
        }
    }
#else
    import Foundation

    @main
    enum VaporServer {
        static func main() {
            FileHandle.standardError.write(Data("This example needs the AmplifyVapor trait: swift run --traits AmplifyVapor VaporServer\n".utf8))
            exit(2)
        }
    }
#endif
