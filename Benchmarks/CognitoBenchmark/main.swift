import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Cognito benchmark: RS256 token verifications per second (our CognitoTokenVerifier against a
// cached JWKS, next to PyJWT verifying the same token with the same key), and the client CPU of an
// SRP sign-in (A = g^a mod N plus the PASSWORD_VERIFIER claim, next to pycognito's AWSSRP), in the
// same run on the same machine. The Python peers run from the test tools' venv
// (scripts/install-test-tools.sh, which this runs first). Run with
//   swift run -c release CognitoBenchmark            (about half a minute)
//   swift run -c release CognitoBenchmark --quick    (a smoke run)

let quick = CommandLine.arguments.contains("--quick")
let verifications = quick ? 2_000 : 20_000
let signIns = quick ? 50 : 300
let rounds = quick ? 1 : 3
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// CPU seconds (user + system) of this process.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Runs `executable arguments` and returns its standard output.
func run(_ executable: URL, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
    return String(decoding: data, as: UTF8.self)
}

/// The Python peer's CPU seconds for `count` repetitions of `mode`.
func peerSeconds(_ mode: String, work: URL, count: Int) throws -> Double {
    let python = root.appendingPathComponent(".build/test-tools/venv/bin/python")
    let line = try run(python, [root.appendingPathComponent("Benchmarks/CognitoBenchmark/peers.py").path, mode, work.path, String(count)])
    guard let seconds = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))["seconds"]?.doubleValue else {
        throw BenchmarkError("peers.py \(mode) printed \(line)")
    }
    return seconds
}

func write(_ value: JSONValue, to url: URL) throws {
    try JSONEncoder().encode(value).write(to: url)
}

_ = try run(URL(fileURLWithPath: "/bin/bash"), [root.appendingPathComponent("scripts/install-test-tools.sh").path])
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cognito-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }

print("Cognito benchmark: \(verifications) token verifications and \(signIns) SRP sign-ins per round, median of \(rounds) round(s)")

// MARK: Token verification

let issuer = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Benchmark"
let key = try RSAKey.generate()
let (modulus, exponent) = try key.publicComponents()
let jwk: JSONValue = [
    "kty": "RSA", "alg": "RS256", "use": "sig", "kid": "bench-key",
    "n": .string(Base64URL.encode(modulus)), "e": .string(Base64URL.encode(exponent)),
]
let now = Date().timeIntervalSince1970.rounded()
let claims: JSONValue = [
    "sub": "7d8e9f00-1111-4222-8333-944455556666", "aud": "benchmarkclient", "iss": .string(issuer), "token_use": "id",
    "cognito:username": "alice", "email": "alice@example.com", "email_verified": true,
    "auth_time": .number(now), "iat": .number(now), "exp": .number(now + 3600), "jti": "0f0e0d0c-0b0a-4909-8807-060504030201",
    "origin_jti": "01020304-0506-4708-890a-0b0c0d0e0f10", "event_id": "a1b2c3d4-e5f6-4789-8abc-def012345678",
]
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
let signingInput = Base64URL.encode(try encoder.encode(["alg": "RS256", "kid": "bench-key"] as JSONValue)) + "." + Base64URL.encode(try encoder.encode(claims))
let token = signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8)))
let tokenWork = scratch.appendingPathComponent("jwt.json")
try write(["jwk": jwk, "token": .string(token), "issuer": .string(issuer), "audience": "benchmarkclient"], to: tokenWork)

let server = try await LocalHTTPServer.start()
defer { server.stop() }
let loop = try EventLoop(name: "cognito-benchmark")
let http = try HTTPClient(loop: loop)
let jwksURL = server.url("/stored/jwks")
_ = try await http.send(HTTPRequest(method: "PUT", url: jwksURL, body: .bytes(Array(try JSONEncoder().encode(["keys": [jwk]] as JSONValue)))))
let verifier = CognitoTokenVerifier(issuer: issuer, jwksURL: jwksURL, clientIds: ["benchmarkclient"], http: http)
_ = try await verifier.verify(token, as: .id)  // fetches and caches the JWKS

var ours: [Double] = []
var pyjwt: [Double] = []
for _ in 0..<rounds {
    let start = cpuSeconds()
    for _ in 0..<verifications { _ = try await verifier.verify(token, as: .id) }
    ours.append(Double(verifications) / (cpuSeconds() - start))
    pyjwt.append(Double(verifications) / (try peerSeconds("jwt", work: tokenWork, count: verifications)))
}
let verifyRatio = median(ours) / median(pyjwt)
print(String(
    format: "token verification (RS256, 2048-bit key, JWKS cached), per CPU second: ours %.0f/s, PyJWT %.0f/s, ratio %.2f× (higher is better)",
    median(ours), median(pyjwt), verifyRatio))
await http.shutdown()
try loop.shutdown()

// MARK: SRP sign-in

// A server's B for a real verifier (k·v + g^b mod N), as in the tests' first known-answer vector.
let vectors = try JSONDecoder().decode(
    JSONValue.self, from: Data(contentsOf: root.appendingPathComponent("Tests/AWSCognitoAuthPluginTests/Vectors/srp_vectors.json")))
guard let vector = vectors["cases"]?.asArray?.first, let salt = vector["salt"]?.stringValue, let serverB = vector["B"]?.stringValue,
      let block = vector["secretBlock"]?.stringValue, let poolId = vector["poolId"]?.stringValue,
      let userId = vector["userIdForSrp"]?.stringValue, let password = vector["password"]?.stringValue
else { throw BenchmarkError("srp_vectors.json has no first case") }
let srpWork = scratch.appendingPathComponent("srp.json")
try write([
    "username": .string(userId), "password": .string(password), "poolId": .string(poolId),
    "challenge": ["USER_ID_FOR_SRP": .string(userId), "SALT": .string(salt), "SRP_B": .string(serverB), "SECRET_BLOCK": .string(block), "USERNAME": .string(userId)],
], to: srpWork)

var oursSRP: [Double] = []
var pycognito: [Double] = []
for _ in 0..<rounds {
    let start = cpuSeconds()
    for _ in 0..<signIns {
        let ephemeral = try CognitoSRP.start()
        _ = try CognitoSRP.passwordClaim(
            poolId: poolId, userIdForSRP: userId, password: password, ephemeral: ephemeral, saltHex: salt,
            serverPublicHex: serverB, secretBlock: block, timestamp: CognitoSRP.timestamp(Date()))
    }
    oursSRP.append((cpuSeconds() - start) / Double(signIns) * 1000)
    pycognito.append(try peerSeconds("srp", work: srpWork, count: signIns) / Double(signIns) * 1000)
}
print(String(
    format: "SRP sign-in client CPU (A = g^a mod N, then the PASSWORD_VERIFIER claim): ours %.2f ms, pycognito %.2f ms, ratio %.2f× (lower is better)",
    median(oursSRP), median(pycognito), median(oursSRP) / median(pycognito)))

