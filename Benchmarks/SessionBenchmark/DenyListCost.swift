import Amplify
import AmplifyAuthCore
import Foundation

/// `SessionBenchmark --deny-list`: what `RevokedSessions` adds to each Cognito request in a
/// server context (one look-up of the access token's claims), empty and holding 100,000
/// signed-out sessions and 10,000 users, next to what the rest of the verification costs
/// (about 50 µs, mostly the RSA-2048 verify: CognitoBenchmark).
enum DenyListCost {
    static func run() {
        let claims: JSONValue = [
            "sub": "8d3c0f2e-0000-4000-8000-000000000000", "origin_jti": "b6a1c7e2-0000-4000-8000-000000000000",
            "jti": "0f5d2c1a-0000-4000-8000-000000000000", "iat": .number(Date().timeIntervalSince1970.rounded(.down)),
            "exp": .number(Date().timeIntervalSince1970.rounded(.down) + 3600),
        ]
        func nanoseconds(_ revoked: RevokedSessions) -> Double {
            var samples: [Double] = []
            var hits = 0
            for _ in 0..<15 {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<100_000 where revoked.isRevoked(claims: claims) { hits += 1 }
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 100_000)
            }
            if hits != 0 { print("  (the benchmark's claims were revoked: the figure is wrong)") }
            return samples.sorted()[samples.count / 2]
        }
        let empty = RevokedSessions()
        let full = RevokedSessions()
        let exp = JSONValue.number(Date().timeIntervalSince1970 + 3600)
        for index in 0..<100_000 { full.revokeSession(claims: ["origin_jti": .string("session-\(index)"), "exp": exp]) }
        for index in 0..<10_000 { full.revokeUser(sub: "user-\(index)") }
        let bytesBefore = residentBytes()
        let sized = RevokedSessions()
        for _ in 0..<100_000 { sized.revokeSession(claims: ["origin_jti": .string("s-\(UUID().uuidString)"), "exp": exp]) }
        let perEntry = Double(residentBytes() - bytesBefore) / 100_000
        print("deny list (RevokedSessions), per request look-up, median of 15 × 100,000:")
        print(
            String(
                format: "  empty: %.0f ns; 100,000 sessions and 10,000 users: %.0f ns; memory per signed-out session ≈ %.0f B", nanoseconds(empty),
                nanoseconds(full), perEntry))
        _ = sized.count
    }
}
