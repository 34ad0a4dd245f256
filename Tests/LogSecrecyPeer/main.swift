import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import Logging

// The process LogSecrecyTests drive: every Amplify log record at every level (swift-log
// bootstrapped with a capturing handler at trace, Amplify's level at verbose) while it signs up,
// signs in (right and wrong passwords), refreshes, changes a password and signs out on the local
// pool; sends SigV4-signed requests (header and presigned URL) with a session token; and signs in
// to moto's Cognito (SRP, and the password flow with an app client secret), refreshes and verifies
// the tokens. Prints `SECRET <value>` for every password, code, token, key and signature it used
// or received, then `LOG <record>` for every record captured.

let logs = CapturedLogs()
LoggingSystem.bootstrap { label in logs.makeHandler(label: label) }
// Through the environment, so the Logging plugin Amplify.reset() puts back is at verbose too.
setenv("AMPLIFY_LOG_LEVEL", "verbose", 1)
Amplify.Logging.logLevel = .verbose

let secrets = Locked<[String]>([])
@Sendable func secret(_ value: String?) {
    guard let value, !value.isEmpty else { return }
    secrets.withLock { $0.append(value) }
}

/// The local pool through `Amplify.Auth`.
func localPool(folder: String) async throws {
    let plugin = LocalAuthPlugin()
    try Amplify.add(plugin: plugin)
    try Amplify.configure(
        AmplifyConfiguration(
            auth: CategoryConfiguration(plugins: [
                "localAuthPlugin": [
                    "directory": .string(folder), "passwordHashCost": 1024, "accessTokenLifetimeSeconds": 1,
                ]
            ])))
    let password = "Local-Passw0rd!"
    let wrong = "Wrong-Guess9!"
    let changed = "Changed-Passw0rd!"
    [password, wrong, changed].forEach(secret)
    _ = try await Amplify.Auth.signUp(
        username: "lou", password: password, options: .init(userAttributes: [AuthUserAttribute(.email, value: "lou@example.com")]))
    let code = try await plugin.outbox(for: "lou").last?.code ?? ""
    secret(code)
    _ = try await Amplify.Auth.confirmSignUp(for: "lou", confirmationCode: code)
    _ = try? await Amplify.Auth.signIn(username: "lou", password: wrong)
    _ = try await Amplify.Auth.signIn(username: "lou", password: password)
    func recordTokens() async throws {
        let session = try await Amplify.Auth.fetchAuthSession() as? LocalAuthSession
        secret(session?.tokens?.accessToken)
        secret(session?.tokens?.idToken)
        let store = try await CredentialStore(path: folder + "/credentials.sqlite")
        secret(try await store.load(for: LocalAuthPlugin.pluginKey)?.refreshToken)
        await store.close()
    }
    try await recordTokens()
    // The access token lives 1 s: the timer refreshes it, then a forced refresh.
    try await Task.sleep(for: .milliseconds(1_500))
    try await recordTokens()
    _ = try await Amplify.Auth.fetchAuthSession(options: .forceRefresh())
    try await recordTokens()
    try await Amplify.Auth.update(oldPassword: password, to: changed)
    _ = try await Amplify.Auth.resetPassword(for: "lou")
    let resetCode = try await plugin.outbox(for: "lou").last?.code ?? ""
    secret(resetCode)
    _ = await Amplify.Auth.signOut()
    await Amplify.reset()
}

/// SigV4 with a session token: a signed JSON call, a signed REST call and a presigned URL, all
/// fetched through the HTTP client.
func signedRequests() async throws {
    let server = try await LocalHTTPServer.start()
    defer { server.stop() }
    let loop = try EventLoop(name: "secrecy-http")
    let http = try HTTPClient(loop: loop)
    let keys = AWSCredentials(
        accessKeyId: "AKIDSECRECYTEST", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRET", sessionToken: "FQoGZXIvYXdzSESSIONTOKENsecrecy")
    secret(keys.secretAccessKey)
    secret(keys.sessionToken)
    let credentials = StaticCredentialsProvider(keys)
    let json = AWSJSONClient(http: http, endpoint: server.url("/json"), region: "us-east-1", signingName: "cognito-idp", credentials: credentials)
    let echo = try await json.call("Test.Echo", ["key": "secrecy", "Password": "Body-Passw0rd!"])
    secret("Body-Passw0rd!")
    let authorization = echo["authorization"]?.stringValue ?? ""
    secret(authorization.components(separatedBy: "Signature=").last)
    let rest = AWSRESTClient(http: http, endpoint: server.url("/"), region: "us-east-1", credentials: credentials)
    _ = try? await rest.send(AWSRESTRequest(method: "GET", path: "/rest/denied", query: [("key", "secrecy")]))
    let presigned = try await rest.presignedURL(path: "/echo", expires: 300)
    let query = URLComponents(url: presigned, resolvingAgainstBaseURL: false)?.queryItems ?? []
    secret(query.first { $0.name == "X-Amz-Signature" }?.value)
    _ = try await http.send(HTTPRequest(url: presigned))
    await http.shutdown()
    try loop.shutdown()
}

/// moto's Cognito: SRP sign-in, the password flow with an app client secret, a forced refresh,
/// token verification and sign-out, with the plugin on a loop of its own.
func cognito(folder: String) async throws {
    try await MotoServer.with { moto in
        let password = "Cognito-Passw0rd!"
        secret(password)
        let user: JSONValue = ["username": "cara", "password": .string(password), "attributes": ["email": "cara@example.com"]]
        for (name, flow, withSecret) in [("srp", "USER_SRP_AUTH", false), ("secret", "USER_PASSWORD_AUTH", true)] {
            let seeded = try moto.seed(["userPool": ["name": .string(name), "clientSecret": .boolean(withSecret), "users": [user]]])
            secret(seeded["clientSecret"]?.stringValue)
            var pool: [String: JSONValue] = [
                "PoolId": seeded["userPoolId"] ?? "", "AppClientId": seeded["clientId"] ?? "", "Region": "us-east-1",
                "Endpoint": .string(moto.endpoint.absoluteString),
            ]
            if let clientSecret = seeded["clientSecret"] { pool["AppClientSecret"] = clientSecret }
            let loop = try EventLoop(name: "secrecy-cognito")
            let hub = DefaultHubPlugin(loop: loop)
            let plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop)
            try plugin.configure(
                using: JSONValue.object([
                    "CognitoUserPool": ["Default": .object(pool)], "Auth": ["Default": ["authenticationFlowType": .string(flow)]],
                    "credentialStore": .string("\(folder)/cognito-\(name).sqlite"),
                ]))
            secret("Wrong-Cognito9!")
            // moto's SRP does not check the password; the password flow refuses it.
            if (try? await plugin.signIn(username: "cara", password: "Wrong-Cognito9!", options: nil))?.isSignedIn == true {
                _ = await plugin.signOut(options: nil)
            }
            _ = try await plugin.signIn(username: "cara", password: password, options: nil)
            for options in [nil, AuthFetchSessionRequest.Options.forceRefresh()] {
                let tokens = try (try await plugin.fetchAuthSession(options: options) as? AWSAuthCognitoSession)?.getCognitoTokens().get()
                secret(tokens?.accessToken)
                secret(tokens?.idToken)
                secret(tokens?.refreshToken)
            }
            let tokens = try (try await plugin.fetchAuthSession(options: nil) as? AWSAuthCognitoSession)?.getCognitoTokens().get()
            _ = try await plugin.tokenVerifier().verify(tokens?.accessToken ?? "", as: .access)
            _ = await plugin.signOut(options: nil)
            await plugin.reset()
            await hub.reset()
            try loop.shutdown()
        }
    }
}

let folder = NSTemporaryDirectory() + "log-secrecy-\(UUID().uuidString.prefix(8))"
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
try await localPool(folder: folder + "/local")
try await signedRequests()
try await cognito(folder: folder)
try? FileManager.default.removeItem(atPath: folder)
for value in secrets.value { print("SECRET \(value)") }
for record in logs.records { print("LOG \(record.line.replacingOccurrences(of: "\n", with: "\\n"))") }
