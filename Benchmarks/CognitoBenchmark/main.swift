import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import AmplifyCrypto
import AmplifyEventLoop
import AmplifyTestKit
import BenchmarkReport
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
//   … --json                                         (the text on standard error, JSON on standard output)
// The limit for verification is OpenSSL's own RSA-2048 verify in this process, as `openssl speed
// rsa2048` measures it: one prepared EVP_PKEY_CTX, the SHA-256 digest computed once, only the
// signature check per iteration.

var report = BenchmarkReport("CognitoBenchmark")
let quick = CommandLine.arguments.contains("--quick")
let verifications = quick ? 2_000 : 20_000
let signIns = quick ? 50 : 300
let rounds = quick ? 1 : 3
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
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
// 64 distinct tokens (each its own `jti`, so its own signature), verified in turn by both sides.
let tokenHeader = Base64URL.encode(try encoder.encode(["alg": "RS256", "kid": "bench-key"] as JSONValue))
let tokens = try (0..<64).map { index -> String in
    var distinct = claims.asObject ?? [:]
    distinct["jti"] = .string(String(format: "0f0e0d0c-0b0a-4909-8807-%012d", index))
    let input = tokenHeader + "." + Base64URL.encode(try encoder.encode(JSONValue.object(distinct)))
    return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
}
let token = tokens[0]
let signingInput = String(token[..<(token.lastIndex(of: ".") ?? token.endIndex)])
let tokenWork = scratch.appendingPathComponent("jwt.json")
try write(["jwk": jwk, "tokens": .array(tokens.map { .string($0) }), "issuer": .string(issuer), "audience": "benchmarkclient"], to: tokenWork)

let server = try await LocalHTTPServer.start()
defer { server.stop() }
let loop = try EventLoop(name: "cognito-benchmark")
let http = try HTTPClient(loop: loop)
let jwksURL = server.url("/stored/jwks")
_ = try await http.send(HTTPRequest(method: "PUT", url: jwksURL, body: .bytes(Array(try JSONEncoder().encode(["keys": [jwk]] as JSONValue)))))
let verifier = CognitoTokenVerifier(issuer: issuer, jwksURL: jwksURL, clientIds: ["benchmarkclient"], http: http)
_ = try await verifier.verify(token, as: .id)  // fetches and caches the JWKS

// `--verify-only N`: only N verifications of ours, for profiling.
if let flag = CommandLine.arguments.firstIndex(of: "--verify-only"), flag + 1 < CommandLine.arguments.count,
    let count = Int(CommandLine.arguments[flag + 1])
{
    let start = cpuSeconds()
    for index in 0..<count { _ = try await verifier.verify(tokens[index & 63], as: .id) }
    print(String(format: "ours %.0f verifications per CPU second", Double(count) / (cpuSeconds() - start)))
    exit(0)
}

/// OpenSSL's raw RSA-2048 PKCS#1 v1.5 verifications per CPU second of the token's signature over
/// its SHA-256 digest (computed once), on one prepared context: the limit of any verifier.
@MainActor func rawVerifications(_ count: Int) throws -> Double {
    let parts = token.utf8.split(separator: UInt8(ascii: "."))
    guard parts.count == 3, let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else { throw BenchmarkError("bad token") }
    let raw = try RawRSAVerify(modulus: modulus, exponent: exponent, signature: signature, signedBytes: Array(signingInput.utf8))
    return 1 / (try raw.secondsPerVerify(count))
}

var ours: [Double] = []
var pyjwt: [Double] = []
var raw: [Double] = []
for _ in 0..<rounds {
    raw.append(try rawVerifications(verifications))
    let start = cpuSeconds()
    for index in 0..<verifications { _ = try await verifier.verify(tokens[index & 63], as: .id) }
    ours.append(Double(verifications) / (cpuSeconds() - start))
    pyjwt.append(Double(verifications) / (try peerSeconds("jwt", work: tokenWork, count: verifications)))
}
let verifyRatio = median(ours) / median(pyjwt)
let rawRatio = median(ours) / median(raw)
print(
    String(
        format:
            "token verification (RS256, 2048-bit key, 64 distinct tokens, JWKS cached), per CPU second: ours %.0f/s, PyJWT %.0f/s, ratio %.2f× (higher is better)",
        median(ours), median(pyjwt), verifyRatio))
print(String(format: "OpenSSL raw RSA-2048 verify (the limit), per CPU second: %.0f/s; ours %.2f× of it", median(raw), rawRatio))
report.figure(
    "token verifications per CPU second vs raw RSA-2048 verify", median(ours), unit: "1/s", limit: median(raw), limitName: "OpenSSL raw verify")
report.figure("token verifications per CPU second vs PyJWT", median(ours), unit: "1/s", limit: median(pyjwt), limitName: "PyJWT")
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
try write(
    [
        "username": .string(userId), "password": .string(password), "poolId": .string(poolId),
        "challenge": [
            "USER_ID_FOR_SRP": .string(userId), "SALT": .string(salt), "SRP_B": .string(serverB), "SECRET_BLOCK": .string(block),
            "USERNAME": .string(userId),
        ],
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
print(
    String(
        format:
            "SRP sign-in client CPU (A = g^a mod N, then the PASSWORD_VERIFIER claim): ours %.2f ms, pycognito %.2f ms, ratio %.2f× (lower is better)",
        median(oursSRP), median(pycognito), median(oursSRP) / median(pycognito)))
report.figure("SRP sign-in client CPU", median(oursSRP), unit: "ms", limit: median(pycognito), limitName: "pycognito", higherIsBetter: false)
print("")
report.goal("token verification at least 0.6× OpenSSL's raw RSA-2048 verify", rawRatio >= 0.6)
report.goal("token verification at least 2× PyJWT", verifyRatio >= 2)
report.finish()
