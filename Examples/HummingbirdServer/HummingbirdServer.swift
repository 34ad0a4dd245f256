#if AmplifyHummingbird
    import Amplify
    import AmplifyAuthCore
    import AmplifyHummingbird
    import ExampleServerSupport
    import Foundation
    import Hummingbird
    import HummingbirdAuth

    /// A JSON API on Hummingbird 2 whose requests run as their users, on the embedded default (or
    /// the file `--config` names):
    ///
    /// - `GET /health` — no user needed.
    /// - `GET /me` — the user's username, sub and groups.
    /// - `GET /me/files`, `PUT /me/files/NAME` — the user's own files, through `Amplify.Storage`.
    /// - `GET /admin` — members of the group `admins` only.
    /// - `/auth/sign-in`, `/auth/sign-up`, `/auth/sign-out`, … — sign-in that the server owns
    ///   (`AuthRoutes`): the local pool's pages, or the hosted UI when the file configures one;
    ///   `GET /` links to them.
    ///
    ///     swift run --traits AmplifyHummingbird HummingbirdServer [--config PATH] [--port N] [--origin URL]
    @main
    struct HummingbirdServer {
        typealias Context = BasicAuthRequestContext<AuthenticatedUser>

        static func main() async {
            await ExampleServer.runReportingErrors {
                var options = ExampleServer.commandLineOptions()
                options.port = try ExampleServer.resolvedPort(options.port)
                let auth = try ExampleServer.configure(options)
                let port = options.port
                let app = Application(
                    router: router(try ExampleServer.signIn(auth, options)), configuration: .init(address: .hostname("127.0.0.1", port: port)),
                    onServerRunning: { channel in ExampleServer.announce(port: channel.localAddress?.port ?? port) })
                try await app.runService()
                await Amplify.reset()
            }
        }

        static func router(_ signIn: ExampleServer.SignIn) -> Router<Context> {
            let router = Router(context: Context.self)
            router.get("/health") { _, _ in json(ExampleServer.health) }
            router.get("/") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: ExampleServer.homePage)))
            }
            router.addAuthRoutes(signIn.routes)
            let users = router.group().add(middleware: AmplifyAuthMiddleware(signIn.authenticator))
            users.get("/me") { _, context in json(try await ExampleServer.me(try context.requireUser())) }
            users.get("/me/files") { _, context in
                _ = try context.requireUser()
                return json(try await ExampleServer.files())
            }
            users.put("/me/files/:name") { request, context in
                _ = try context.requireUser()
                let body = try await request.body.collect(upTo: 1 << 20)
                return json(try await ExampleServer.upload(name: context.parameters.get("name") ?? "", data: Data(buffer: body)))
            }
            users.group("/admin").add(middleware: AmplifyAccessMiddleware(.group("admins")))
                .get { _, context in json(ExampleServer.admin(try context.requireUser())) }
            return router
        }

        static func json(_ value: JSONValue) -> Response {
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: ExampleServer.bytes(value))))
        }
    }
#else
    import Foundation

    @main
    enum HummingbirdServer {
        static func main() {
            FileHandle.standardError.write(
                Data("This example needs the AmplifyHummingbird trait: swift run --traits AmplifyHummingbird HummingbirdServer\n".utf8))
            exit(2)
        }
    }
#endif
