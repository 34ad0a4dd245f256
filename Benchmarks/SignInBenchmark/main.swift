// SignInBenchmark: the server's CPU per sign-in through the server-owned routes (`AuthRoutes`)
// and the hosted-UI stand-in, next to the token exchange alone, in one run.
//
//     swift run -c release SignInBenchmark [--quick] [--json]
//
// One sign-in is: `GET /auth/sign-in` (PKCE, state and nonce, the redirect), the stand-in's page
// (the browser and the identity provider: not the server's work, not counted), `GET
// /auth/sign-in-callback` (the state checked, the code exchanged at the stand-in's
// `/oauth2/token`, both tokens verified with the pool's JWKS, the cookies written) and the first
// authenticated request (`AmplifyAuthenticator` on the cookies, sharing the routes' cache). The
// baseline is the exchange alone: a code POSTed to `/oauth2/token` with the same HTTP client and
// its JSON answer parsed. CPU is this process's (the stand-in is another process) over rounds of
// 50; the browser's part (the stand-in's page played by the test kit, a cookie jar), measured
// alone in the same rounds, is subtracted from both.
import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
import Foundation

var report = BenchmarkReport("SignInBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let origin = "http://127.0.0.1:8080"
let callback = origin + "/auth/sign-in-callback"

let server = try await HostedUIServer.start(HostedUIServer.Options(callbackURLs: [callback], logoutURLs: [origin + "/auth/sign-out-callback"]))
let loop = try EventLoop(name: "sign-in-benchmark")
let hub = DefaultHubPlugin(loop: loop)
let plugin = AWSCognitoAuthPlugin(hub: hub, loop: loop, environment: [:])
var block = server.cognitoConfiguration(callbackURL: callback)
if case .object(var fields) = block {
    fields["credentialStore"] = .string(NSTemporaryDirectory() + "sign-in-benchmark-\(UUID().uuidString).sqlite")
    block = .object(fields)
}
try plugin.configure(using: block)
let cache = VerifiedTokenCache()
let routes = try AuthRoutes(plugin: plugin, configuration: .init(origin: origin, cache: cache))
let authenticator = AmplifyAuthenticator(plugin: plugin, cache: cache)
let http = try HTTPClient(loop: loop)

/// One sign-in through the routes, the browser's part (the cookie jar, the stand-in's page) included.
func signIn() async throws {
    var jar = CookieJar()
    guard let begin = await routes.handle(AuthRouteRequest(method: "GET", path: "/auth/sign-in", cookies: jar.headers)),
        let authorize = begin.location.flatMap(URL.init(string:))
    else { throw BenchmarkError("sign-in did not redirect") }
    jar.apply(begin.setCookies)
    let location = try await server.submitSignIn(at: authorize, username: "alice", password: "Passw0rd!")
    let query = AuthRouteRequest.formFields(String(location.split(separator: "?", maxSplits: 1).last ?? ""))
    guard let finish = await routes.handle(AuthRouteRequest(method: "GET", path: "/auth/sign-in-callback", query: query, cookies: jar.headers)),
        finish.status == 303
    else { throw BenchmarkError("the callback was refused") }
    jar.apply(finish.setCookies)
    let first = try await authenticator.authenticate(RequestCredentials(authorization: [], cookies: jar.headers))
    guard first.user?.username == "alice" else { throw BenchmarkError("the first request was not alice's") }
}

/// The browser's and the identity provider's part alone: a fresh code from the stand-in's page,
/// and the same cookie jar work.
func codeOnly() async throws -> (code: String, verifier: String) {
    let verifier = Base64URL.encode(try Digest.randomBytes(32))
    let challenge = Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    let authorize =
        "\(server.baseURL.absoluteString)/oauth2/authorize?response_type=code&client_id=\(HostedUIServer.defaultClientId)"
        + "&redirect_uri=\(callback.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&scope=openid%20email%20profile&state=s"
        + "&code_challenge=\(challenge)&code_challenge_method=S256&nonce=n"
    guard let url = URL(string: authorize) else { throw BenchmarkError("bad authorize URL") }
    let location = try await server.submitSignIn(at: url, username: "alice", password: "Passw0rd!")
    var jar = CookieJar()
    jar.apply(["a=b; Path=/auth; Max-Age=300; HttpOnly", "c=d; Path=/auth; Max-Age=300; HttpOnly"])
    guard let code = AuthRouteRequest.formFields(String(location.split(separator: "?", maxSplits: 1).last ?? ""))["code"] else {
        throw BenchmarkError("no code")
    }
    return (code, verifier)
}

/// The exchange alone: a fresh code POSTed to `/oauth2/token` with the same HTTP client, its JSON parsed.
func exchangeAlone() async throws {
    let (code, verifier) = try await codeOnly()
    guard let token = URL(string: server.baseURL.absoluteString + "/oauth2/token") else { throw BenchmarkError("bad URL") }
    let form = [
        ("grant_type", "authorization_code"), ("client_id", HostedUIServer.defaultClientId), ("code", code), ("redirect_uri", callback),
        ("code_verifier", verifier),
    ].map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
    let response = try await http.send(
        HTTPRequest(
            method: "POST", url: token, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: .bytes(Array(form.utf8))))
    let answer = try JSONValue(parsing: response.body)
    guard response.status == 200, answer["access_token"]?.stringValue != nil else { throw BenchmarkError("the exchange failed") }
}

/// CPU seconds per call of `body` over `count` calls.
func cpuPerCall(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
    let start = cpuSeconds()
    for _ in 0..<count { try await body() }
    return (cpuSeconds() - start) / Double(count)
}

try await signIn()  // warm-up: the JWKS fetched, code paged in
try await exchangeAlone()
// Rounds take turns so drift weighs on all three alike; the browser's part is subtracted from both.
let rounds = quick ? 2 : 6
let perRound = quick ? 25 : 50
var signIns: [Double] = []
var exchanges: [Double] = []
var browserParts: [Double] = []
for _ in 0..<rounds {
    signIns.append(try await cpuPerCall(perRound) { try await signIn() })
    exchanges.append(try await cpuPerCall(perRound) { try await exchangeAlone() })
    browserParts.append(try await cpuPerCall(perRound) { _ = try await codeOnly() })
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let browserCPU = median(browserParts)
let signInCPU = median(signIns) - browserCPU
let exchangeCPU = median(exchanges) - browserCPU
print("Sign-in benchmark: \(rounds * perRound) sign-ins through AuthRoutes and the hosted-UI stand-in, as many bare token exchanges")
print(
    String(
        format: "server CPU per sign-in: %.0f µs = %.2f× the token exchange alone (%.0f µs); the browser's part subtracted from both: %.0f µs",
        signInCPU * 1e6, signInCPU / exchangeCPU, exchangeCPU * 1e6, browserCPU * 1e6))
report.figure(
    "server CPU per sign-in (routes, exchange, verification, cookies, first request)", signInCPU * 1e6, unit: "µs", limit: exchangeCPU * 1e6,
    limitName: "the token exchange alone", higherIsBetter: false)
report.goal("a sign-in's server CPU at most 1.3× the token exchange alone", signInCPU <= 1.3 * exchangeCPU)

await http.shutdown()
await plugin.reset()
await hub.reset()
try loop.shutdown()
server.stop()
report.finish()
