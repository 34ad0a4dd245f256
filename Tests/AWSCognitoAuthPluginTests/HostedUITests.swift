import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyConcurrency
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

/// The hosted UI flow against the test server's authorization-server stand-in, with the test
/// playing the browser: it opens the sign-in URL, follows the redirect to the plugin's loopback
/// listener.
@Suite("Hosted UI: authorization code with PKCE on a loopback redirect")
struct HostedUITests {
    final class Setup: Sendable {
        let server: LocalHTTPServer?
        let loop: EventLoop
        let hub: DefaultHubPlugin
        let events: HubEventRecorder
        let plugin: AWSCognitoAuthPlugin
        let browser: HTTPClient
        let redirect: String
        let folder = NSTemporaryDirectory() + "cognito-hosted-\(UUID().uuidString)"

        init(mode: String = "", redirectHost: String = "127.0.0.1") async throws {
            let server = try await LocalHTTPServer.start()
            self.server = server
            loop = try EventLoop(name: "hosted-ui")
            hub = DefaultHubPlugin(loop: loop)
            events = HubEventRecorder(channel: .auth, hub: hub)
            browser = try HTTPClient(loop: loop)
            redirect = "http://\(redirectHost):\(try RedisServer.freePort())/callback"
            _ = try await browser.send(HTTPRequest(method: "PUT", url: server.url("/stored/hosted-ui-mode"), body: .bytes(Array(mode.utf8))))
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
            try plugin.configure(
                using: [
                    "CognitoUserPool": [
                        "Default": [
                            "PoolId": "us-east-1_Hosted1", "AppClientId": "hostedclient", "Region": "us-east-1",
                            "Endpoint": .string(server.url("/replay").absoluteString),
                        ]
                    ],
                    "Auth": [
                        "Default": [
                            "OAuth": [
                                "WebDomain": .string(server.url("").absoluteString), "AppClientId": "hostedclient",
                                "SignInRedirectURI": .string("myapp://callback/," + redirect), "Scopes": ["openid", "email"],
                            ]
                        ]
                    ],
                    "credentialStore": .string(folder + "/credentials.sqlite"),
                ] as JSONValue)
        }

        /// What a browser does with the sign-in URL: GET it, then follow its redirect.
        func open(_ url: URL) async throws -> HTTPResponse {
            let authorize = try await browser.send(HTTPRequest(url: url))
            guard authorize.status == 302, let location = authorize.header("Location"), let next = URL(string: location) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            return try await browser.send(HTTPRequest(url: next))
        }

        func close() async throws {
            await plugin.reset()
            await browser.shutdown()
            await hub.reset()
            try loop.shutdown()
            server?.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test("The sign-in URL carries an S256 challenge and state; the redirect's code with the verifier signs in")
    func codeFlowSignsIn() async throws {
        let setup = try await Setup()
        let opened = Locked<URL?>(nil)
        let page = Locked<HTTPResponse?>(nil)
        let result = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in
            opened.withLock { $0 = url }
            Task {
                let answer = try? await setup.open(url)
                page.withLock { $0 = answer }
            }
        }
        #expect(result.isSignedIn)
        let url = try #require(opened.value)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(url.path == "/oauth2/authorize")
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
        let challenge = query.first { $0.name == "code_challenge" }?.value ?? ""
        #expect(challenge.count == 43)
        #expect(query.first { $0.name == "redirect_uri" }?.value == setup.redirect)
        #expect(query.first { $0.name == "scope" }?.value == "openid email")
        let user = try await setup.plugin.getCurrentUser()
        #expect(user.username == "carol")
        #expect(user.userId == "hosted-sub")
        await setup.hub.flush()
        #expect(setup.events.eventNames == [HubPayload.EventName.Auth.webUISignInAPI, HubPayload.EventName.Auth.signedIn])
        // The browser got the page the listener answered with.
        let deadline = ContinuousClock.now + .seconds(60)
        while page.value == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let shown = try #require(page.value)
        #expect(shown.status == 200)
        #expect(String(decoding: shown.body, as: UTF8.self).contains("Signed in."))
        try await setup.close()
    }

    @Test(
        "A refused sign-in (error=access_denied with the right state) is notAuthorized; a redirect with a forged state is answered 400 and does not end the sign-in; nobody is signed in"
    )
    func refusals() async throws {
        let setup = try await Setup(mode: "deny")
        await #expect(throws: AuthError.self) {
            _ = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in Task { _ = try? await setup.open(url) } }
        }
        do {
            _ = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in Task { _ = try? await setup.open(url) } }
            Issue.record("deny: signed in")
        } catch AuthError.notAuthorized(let description, _, _) {
            #expect(description.contains("access_denied"))
        }
        await #expect(throws: AuthError.self) { _ = try await setup.plugin.getCurrentUser() }
        try await setup.close()

        // Only a forged redirect comes: the browser is told off, the sign-in waits on and ends
        // by its timeout, nobody is signed in.
        let forged = try await Setup(mode: "forge-state")
        let shown = Locked<HTTPResponse?>(nil)
        do {
            _ = try await forged.plugin.signInWithWebUI(timeout: .seconds(10)) { url in
                Task {
                    let answer = try? await forged.open(url)
                    shown.withLock { $0 = answer }
                }
            }
            Issue.record("forge-state: signed in")
        } catch AuthError.service(let description, _, _) {
            #expect(description.contains("No sign-in came back"), "\(description)")
        }
        #expect(shown.value?.status == 400)
        await #expect(throws: AuthError.self) { _ = try await forged.plugin.getCurrentUser() }
        try await forged.close()
    }

    @Test(
        "Forged redirects (a wrong state, an error with a wrong state) reaching the listener first are answered 400; the real redirect after them signs in"
    )
    func forgedRedirectsDoNotAbortTheSignIn() async throws {
        let setup = try await Setup()
        let answers = Locked<[Int]>([])
        let result = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in
            Task {
                for forged in ["?code=evil&state=forged", "?error=access_denied&error_description=gotcha&state=forged"] {
                    if let target = URL(string: setup.redirect + forged), let answer = try? await setup.browser.send(HTTPRequest(url: target)) {
                        answers.withLock { $0.append(answer.status) }
                    }
                }
                _ = try? await setup.open(url)
            }
        }
        #expect(result.isSignedIn)
        #expect(answers.value == [400, 400])
        #expect(try await setup.plugin.getCurrentUser().username == "carol")
        try await setup.close()
    }

    @Test("An error redirect's description is escaped before it reaches a message: no terminal escape or control character survives")
    func errorDescriptionIsEscaped() async throws {
        let setup = try await Setup(mode: "deny-escape")
        do {
            _ = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in Task { _ = try? await setup.open(url) } }
            Issue.record("signed in")
        } catch AuthError.notAuthorized(let description, _, _) {
            #expect(description.contains("access_denied"))
            #expect(!description.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(description.debugDescription)")
            #expect(description.contains("\\u{1B}[2J"), "\(description.debugDescription)")
            #expect(description.contains("bye"))
        }
        try await setup.close()
    }

    @Test("A [::1] redirect URI is received on ::1")
    func ipv6Redirect() async throws {
        let setup = try await Setup(redirectHost: "[::1]")
        let result = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in Task { _ = try? await setup.open(url) } }
        #expect(result.isSignedIn)
        #expect(try await setup.plugin.getCurrentUser().username == "carol")
        try await setup.close()
    }

    @Test("Nobody opening the URL times out with a service error, and the port is free again afterwards")
    func timeout() async throws {
        let setup = try await Setup()
        await #expect { _ = try await setup.plugin.signInWithWebUI(timeout: .milliseconds(300)) { _ in } } throws: { error in
            if case AuthError.service = error { return true }
            return false
        }
        // The listener is closed: a second attempt can bind the same port and complete.
        let result = try await setup.plugin.signInWithWebUI(timeout: .seconds(20)) { url in Task { _ = try? await setup.open(url) } }
        #expect(result.isSignedIn)
        try await setup.close()
    }

    @Test("A redirect URI that is not loopback http is a configuration error")
    func nonLoopbackRedirect() async throws {
        let setup = try await Setup()
        let plugin = AWSCognitoAuthPlugin(hub: setup.hub, loop: setup.loop, environment: [:])
        try plugin.configure(
            using: [
                "CognitoUserPool": ["Default": ["PoolId": "us-east-1_Hosted1", "AppClientId": "hostedclient"]],
                "Auth": [
                    "Default": [
                        "OAuth": [
                            "WebDomain": "example.auth.us-east-1.amazoncognito.com", "SignInRedirectURI": "myapp://callback/", "Scopes": ["openid"],
                        ]
                    ]
                ],
                "credentialStore": .string(setup.folder + "/other.sqlite"),
            ] as JSONValue)
        await #expect { _ = try await plugin.signInWithWebUI { _ in } } throws: { error in
            if case AuthError.configuration = error { return true }
            return false
        }
        await plugin.reset()
        try await setup.close()
    }
}
