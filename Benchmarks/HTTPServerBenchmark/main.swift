// HTTPServerBenchmark: a Cognito-verified `GET /me` on Hummingbird, driven by `wrk` from another
// process, next to the same server's bare route and OpenSSL's raw RSA-2048 verify, all in one run.
//
//     swift run -c release --traits AmplifyHummingbird HTTPServerBenchmark [--seconds N] [--json]
//
// Requests per second and server CPU per request (this process's CPU over wrk's request count)
// for: the bare route (no authentication), with the bearer header and with the cookie set; `/me`
// with one repeated bearer token; with one repeated Amplify JS cookie set; with a fresh
// verification each request (1,000 distinct tokens cycled through middleware without a cache).
// The runs take turns three times and each keeps its best round. Then `authenticate()` alone. The JWKS is served by the test kit's HTTP server on
// 127.0.0.1. Then the verified-token cache alone: memory per entry and the cost of a hit.
#if AmplifyHummingbird
    import AWSCognitoAuthPlugin
    import AWSPluginsCore
    import Amplify
    import AmplifyAuthCore
    import AmplifyCrypto
    import AmplifyEventLoop
    import AmplifyHummingbird
    import AmplifyTestKit
    import BenchmarkReport
    import Foundation
    import Hummingbird
    import HummingbirdAuth

    #if canImport(Glibc)
        import Glibc
    #endif

    var report = BenchmarkReport("HTTPServerBenchmark")
    let arguments = CommandLine.arguments
    let quick = arguments.contains("--quick")
    let seconds = arguments.firstIndex(of: "--seconds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? (quick ? 3 : 8)

    guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        FileHandle.standardError.write(Data("wrk is not installed: apt-get install wrk\n".utf8))
        exit(2)
    }

    // MARK: A pool of our own: an RSA key, its JWKS on the test kit's HTTP server, RS256 tokens as Cognito writes them.

    let poolId = "us-east-1_Bench"
    let clientId = "benchclient"
    let issuer = "https://cognito-idp.us-east-1.amazonaws.com/\(poolId)"
    let key = try RSAKey.generate()
    let (modulus, exponent) = try key.publicComponents()
    let jwk: JSONValue = [
        "kty": "RSA", "alg": "RS256", "use": "sig", "kid": "bench-key", "n": .string(Base64URL.encode(modulus)),
        "e": .string(Base64URL.encode(exponent)),
    ]
    let jwksServer = try await LocalHTTPServer.start()
    defer { jwksServer.stop() }
    let loop = try EventLoop(name: "http-server-benchmark")
    let http = try HTTPClient(loop: loop)
    let endpoint = jwksServer.url("/stored")
    _ = try await http.send(
        AWSPluginsCore.HTTPRequest(
            method: "PUT", url: jwksServer.url("/stored/\(poolId)/.well-known/jwks.json"),
            body: .bytes(Array(try JSONEncoder().encode(["keys": [jwk]] as JSONValue)))))

    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let header = Base64URL.encode(try encoder.encode(["alg": "RS256", "kid": "bench-key"] as JSONValue))
    let now = Date().timeIntervalSince1970.rounded()
    func token(_ index: Int, use: String) throws -> String {
        let sub = String(format: "7d8e9f00-1111-4222-8333-%012d", index)
        var claims: [String: JSONValue] = [
            "sub": .string(sub), "iss": .string(issuer), "token_use": .string(use), "auth_time": .number(now), "iat": .number(now),
            "exp": .number(now + 3600), "jti": .string(UUID().uuidString.lowercased()), "origin_jti": .string(UUID().uuidString.lowercased()),
            "event_id": .string(UUID().uuidString.lowercased()),
        ]
        if use == "access" {
            claims["client_id"] = .string(clientId)
            claims["username"] = .string("user\(index)")
            claims["scope"] = "aws.cognito.signin.user.admin"
            claims["cognito:groups"] = ["readers"]
        } else {
            claims["aud"] = .string(clientId)
            claims["cognito:username"] = .string("user\(index)")
            claims["email"] = .string("user\(index)@example.com")
        }
        let input = header + "." + Base64URL.encode(try encoder.encode(JSONValue.object(claims)))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
    let access = try token(0, use: "access")
    let id = try token(0, use: "id")
    let distinct = try (1...1_000).map { try token($0, use: "access") }
    print("HTTP server benchmark: \(seconds) s per run, best of \(quick ? 1 : 3) rounds, wrk -t1 -c16; access token \(access.utf8.count) bytes")

    let plugin = AWSCognitoAuthPlugin()
    try plugin.configure(
        using: [
            "CognitoUserPool": [
                "Default": [
                    "PoolId": .string(poolId), "AppClientId": .string(clientId), "Region": "us-east-1", "Endpoint": .string(endpoint.absoluteString),
                ]
            ]
        ] as JSONValue)

    // MARK: The server: the bare route, /me with the cache, /fresh/me without one.

    typealias Context = BasicAuthRequestContext<AuthenticatedUser>
    let router = Router(context: Context.self)
    let body = ByteBuffer(string: #"{"username":"bare"}"#)
    router.get("/bare") { _, _ in Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body)) }
    @Sendable func me(_ context: Context) throws -> Response {
        let user = try context.requireUser()
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"username":"\#(user.username)"}"#)))
    }
    let cache = VerifiedTokenCache()
    router.group().add(middleware: AmplifyAuthMiddleware(AmplifyAuthenticator(plugin: plugin, cache: cache))).get("/me") { _, context in
        try me(context)
    }
    router.group().add(middleware: AmplifyAuthMiddleware(AmplifyAuthenticator(plugin: plugin, cache: nil))).get("/fresh/me") { _, context in
        try me(context)
    }

    let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) })
    let serverTask = Task { try await app.runService(gracefulShutdownSignals: []) }
    guard let port = await portStream.first(where: { _ in true }), port > 0 else { throw BenchmarkError("the server did not start") }

    // MARK: wrk runs

    struct Run {
        let requestsPerSecond: Double
        let cpuPerRequest: Double  // seconds
        let errors: Int
    }

    func runWrk(_ path: String, headers: [String] = [], script: String? = nil) throws -> Run {
        var arguments = ["-t1", "-c16", "-d\(seconds)s", "--latency"]
        for header in headers { arguments += ["-H", header] }
        if let script { arguments += ["-s", script] }
        arguments.append("http://127.0.0.1:\(port)\(path)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        let cpuBefore = cpuSeconds()
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let cpu = cpuSeconds() - cpuBefore
        func number(after label: String) -> Double? {
            guard let range = text.range(of: label) else { return nil }
            return Double(text[range.upperBound...].trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "." })
        }
        let total = text.split(separator: "\n").first { $0.contains("requests in") }.flatMap {
            Double($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        }
        guard let rps = number(after: "Requests/sec:"), let total, total > 0 else { throw BenchmarkError("wrk printed no figures:\n\(text)") }
        let non2xx = Int(number(after: "Non-2xx or 3xx responses:") ?? 0)
        return Run(requestsPerSecond: rps, cpuPerRequest: cpu / total, errors: non2xx)
    }

    let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("http-server-benchmark-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let luaTokens = distinct.map { "\"\($0)\"" }.joined(separator: ",\n")
    let lua = scratch.appendingPathComponent("fresh.lua")
    try """
    local tokens = {\(luaTokens)}
    local counter = 0
    request = function()
        counter = counter + 1
        return wrk.format("GET", "/fresh/me", {["Authorization"] = "Bearer " .. tokens[counter % #tokens + 1]})
    end
    """.write(to: lua, atomically: true, encoding: .utf8)
    let cookies = AmplifyJSCookies.setCookies(
        clientId: clientId,
        session: StoredSession(
            username: "user0", userId: "", idToken: id, accessToken: access, refreshToken: "opaque-refresh-token", accessTokenExpiresAt: Date(),
            refreshTokenExpiresAt: nil)
    ).map { $0.components(separatedBy: ";")[0] }.joined(separator: "; ")

    _ = try runWrk("/me", headers: ["Authorization: Bearer \(access)"])  // warm-up: keys fetched, code paged in
    // Two cores shared with wrk make single runs noisy: the runs take turns, `rounds` times, and
    // each keeps its best round (the most requests per second, and its CPU per request).
    let rounds = quick ? 1 : 3
    var best: [String: Run] = [:]
    for _ in 0..<rounds {
        let runs = [
            ("bare", try runWrk("/bare", headers: ["Authorization: Bearer \(access)"])),
            ("bare with cookies", try runWrk("/bare", headers: ["Cookie: \(cookies)"])),
            ("repeated bearer", try runWrk("/me", headers: ["Authorization: Bearer \(access)"])),
            ("repeated cookies", try runWrk("/me", headers: ["Cookie: \(cookies)"])),
            ("fresh tokens", try runWrk("/fresh/me", script: lua.path)),
        ]
        for (name, run) in runs {
            guard run.errors == 0 else { throw BenchmarkError("\(name): \(run.errors) responses were not 2xx") }
            if run.requestsPerSecond > best[name]?.requestsPerSecond ?? 0 { best[name] = run }
        }
    }
    guard let bare = best["bare"], let bareCookies = best["bare with cookies"], let repeated = best["repeated bearer"],
        let cookied = best["repeated cookies"], let fresh = best["fresh tokens"]
    else { throw BenchmarkError("a run is missing") }

    let tokenParts = access.split(separator: ".")
    guard tokenParts.count == 3, let accessSignature = Base64URL.decode(String(tokenParts[2])) else { throw BenchmarkError("bad token") }
    let rawVerify = try RawRSAVerify(
        modulus: modulus, exponent: exponent, signature: accessSignature, signedBytes: Array((tokenParts[0] + "." + tokenParts[1]).utf8)
    ).secondsPerVerify(quick ? 5_000 : 20_000)

    /// The authenticator alone (no HTTP), CPU seconds per call: each of the distinct tokens verified
    /// without a cache, and one token again and again through the cache.
    func authenticateSeconds(_ authenticator: AmplifyAuthenticator, tokens: [String], count: Int) async throws -> Double {
        let start = cpuSeconds()
        for index in 0..<count {
            let request = try await authenticator.authenticate(
                RequestCredentials(authorization: ["Bearer \(tokens[index % tokens.count])"], cookies: []))
            guard request.user != nil else { throw BenchmarkError("authenticate let a token through without a user") }
        }
        return (cpuSeconds() - start) / Double(count)
    }
    let coreFresh = try await authenticateSeconds(AmplifyAuthenticator(plugin: plugin, cache: nil), tokens: distinct, count: quick ? 2_000 : 10_000)
    let coreCached = try await authenticateSeconds(
        AmplifyAuthenticator(plugin: plugin, cache: VerifiedTokenCache()), tokens: [access], count: quick ? 20_000 : 100_000)

    func microseconds(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
    print(String(format: "bare route:        %8.0f req/s, %@ CPU per request", bare.requestsPerSecond, microseconds(bare.cpuPerRequest)))
    print(
        String(
            format: "repeated bearer:   %8.0f req/s (%.2f× bare), %@ CPU per request", repeated.requestsPerSecond,
            repeated.requestsPerSecond / bare.requestsPerSecond, microseconds(repeated.cpuPerRequest)))
    print(
        String(
            format: "bare with cookies: %8.0f req/s, %@ CPU per request (the same Cookie header, no authentication)",
            bareCookies.requestsPerSecond, microseconds(bareCookies.cpuPerRequest)))
    print(
        String(
            format: "repeated cookies:  %8.0f req/s (%.2f× bare with cookies), %@ CPU per request", cookied.requestsPerSecond,
            cookied.requestsPerSecond / bareCookies.requestsPerSecond, microseconds(cookied.cpuPerRequest)))
    let freshLimit = bare.cpuPerRequest + rawVerify
    print(
        String(
            format: "fresh token:       %8.0f req/s, %@ CPU per request = %.2f× (bare %@ + raw RSA-2048 verify %@)", fresh.requestsPerSecond,
            microseconds(fresh.cpuPerRequest), fresh.cpuPerRequest / freshLimit, microseconds(bare.cpuPerRequest), microseconds(rawVerify)))
    print(
        String(
            format: "authenticate() alone: %@ per fresh token, %@ per cached token (no HTTP)", microseconds(coreFresh), microseconds(coreCached)))
    report.figure(
        "GET /me, repeated bearer token, requests/s", repeated.requestsPerSecond, unit: "1/s", limit: bare.requestsPerSecond, limitName: "bare route")
    report.figure(
        "GET /me, repeated cookie set, requests/s", cookied.requestsPerSecond, unit: "1/s", limit: bareCookies.requestsPerSecond,
        limitName: "bare route, same cookies")
    report.figure(
        "GET /me, fresh token each request, CPU per request", fresh.cpuPerRequest * 1e6, unit: "µs", limit: freshLimit * 1e6,
        limitName: "bare route + raw RSA-2048 verify", higherIsBetter: false)
    report.goal("a repeated token at least 0.85× the bare route's requests per second", repeated.requestsPerSecond >= 0.85 * bare.requestsPerSecond)
    report.goal("a fresh token each request at most 1.25× (bare CPU per request + one raw RSA-2048 verify)", fresh.cpuPerRequest <= 1.25 * freshLimit)

    serverTask.cancel()
    await http.shutdown()
    try loop.shutdown()

    // MARK: The cache alone

    let tenant = AuthTenant(pool: poolId, clientId: clientId, issuer: issuer)
    let entries = quick ? 20_000 : 100_000
    let keys = (0..<entries).map { VerifiedTokenCache.Key(accessToken: "\(access)\($0)", idToken: nil) }
    let memoryCache = VerifiedTokenCache(capacity: entries * 2, maximumAge: 3600)
    let before = residentBytes()
    for (index, cacheKey) in keys.enumerated() {
        memoryCache.insert(
            VerifiedTokenCache.Entry(
                username: "user\(index)", sub: String(format: "7d8e9f00-1111-4222-8333-%012d", index), groups: ["readers"],
                scopes: ["aws.cognito.signin.user.admin"], expiresAt: now + 3600),
            for: cacheKey, tenant: tenant, revocations: 0)
    }
    let after = residentBytes()
    let bytesPerEntry = Double(after - before) / Double(entries)
    let lookups = quick ? 200_000 : 1_000_000
    let hitCache = VerifiedTokenCache()
    let hitKey = VerifiedTokenCache.Key(accessToken: access, idToken: nil)
    hitCache.insert(
        VerifiedTokenCache.Entry(username: "user0", sub: "s", groups: [], scopes: [], expiresAt: now + 3600), for: hitKey, tenant: tenant,
        revocations: 0)
    var found = 0
    var start = cpuSeconds()
    for _ in 0..<lookups where hitCache.lookup(hitKey, tenant: tenant, revocations: 0) != nil { found += 1 }
    let lookupOnly = (cpuSeconds() - start) / Double(lookups)
    start = cpuSeconds()
    for _ in 0..<lookups where hitCache.lookup(VerifiedTokenCache.Key(accessToken: access, idToken: nil), tenant: tenant, revocations: 0) != nil {
        found += 1
    }
    let hashedHit = (cpuSeconds() - start) / Double(lookups)
    start = cpuSeconds()
    let bothKey = VerifiedTokenCache.Key(accessToken: access, idToken: id)
    hitCache.insert(
        VerifiedTokenCache.Entry(username: "user0", sub: "s", groups: [], scopes: [], expiresAt: now + 3600), for: bothKey, tenant: tenant,
        revocations: 0)
    for _ in 0..<lookups where hitCache.lookup(VerifiedTokenCache.Key(accessToken: access, idToken: id), tenant: tenant, revocations: 0) != nil {
        found += 1
    }
    let cookieHit = (cpuSeconds() - start) / Double(lookups)
    guard found == 3 * lookups else { throw BenchmarkError("the cache missed") }
    print(String(format: "cache: %.0f B per entry (%d entries, resident growth)", bytesPerEntry, entries))
    print(
        String(
            format: "cache hit: %.0f ns with the key made (SHA-256 of a %d-byte token), %.0f ns look-up alone, %.0f ns with an ID token too",
            hashedHit * 1e9, access.utf8.count, lookupOnly * 1e9, cookieHit * 1e9))
    report.figure("verified-token cache, bytes per entry", bytesPerEntry, unit: "B", limit: 512, limitName: "goal", higherIsBetter: false)
    report.figure(
        "verified-token cache hit, key made from the access token", hashedHit * 1e9, unit: "ns", limit: 1000, limitName: "goal", higherIsBetter: false
    )
    report.goal("the cache at most 512 B per entry", bytesPerEntry <= 512)
    report.goal("a cache hit at most 1 µs (the key hashed from the request's access token)", hashedHit <= 1e-6)
    report.finish()
#else
    import Foundation

    FileHandle.standardError.write(
        Data("HTTPServerBenchmark needs the AmplifyHummingbird trait: swift run -c release --traits AmplifyHummingbird HTTPServerBenchmark\n".utf8))
    exit(2)
#endif
