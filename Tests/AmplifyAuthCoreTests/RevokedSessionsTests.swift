import Amplify
import AmplifyAuthCore
import AmplifyConcurrency
import Foundation
import Testing

/// The deny list a server keeps of what it signed out.
@Suite("Revoked sessions")
struct RevokedSessionsTests {
    final class Clock: Sendable {
        let time = Locked<Double>(1_000_000)
        var now: Date { Date(timeIntervalSince1970: time.value) }
    }

    @Test("a session is refused by origin_jti (every token issued with its refresh token) until exp, then forgotten")
    func sessionUntilExpiry() {
        let clock = Clock()
        let revoked = RevokedSessions(now: { clock.now })
        let access: JSONValue = ["sub": "u", "origin_jti": "o1", "jti": "a1", "iat": 999_000, "exp": 1_000_600]
        let refreshed: JSONValue = ["sub": "u", "origin_jti": "o1", "jti": "a2", "iat": 999_500, "exp": 1_001_100]
        let other: JSONValue = ["sub": "u", "origin_jti": "o2", "jti": "b1", "iat": 999_000, "exp": 1_000_600]
        revoked.revokeSession(claims: access)
        #expect(revoked.isRevoked(claims: access))
        #expect(revoked.isRevoked(claims: refreshed))
        #expect(!revoked.isRevoked(claims: other))
        clock.time.withLock { $0 = 1_000_700 }
        // The next revocation prunes: the first session's tokens have expired (and a minute for clocks).
        revoked.revokeSession(claims: ["sub": "w", "origin_jti": "o3", "exp": 1_002_000])
        #expect(revoked.count == 1)
    }

    @Test("tokens without origin_jti are refused by jti; claims with neither, or already expired, change nothing")
    func jtiFallback() {
        let clock = Clock()
        let revoked = RevokedSessions(now: { clock.now })
        revoked.revokeSession(claims: ["sub": "u", "jti": "x", "exp": 1_000_100])
        #expect(revoked.isRevoked(claims: ["sub": "u", "jti": "x", "exp": 1_000_100]))
        revoked.revokeSession(claims: ["sub": "u", "exp": 1_000_100])
        revoked.revokeSession(claims: ["sub": "u", "jti": "old", "exp": 999_000])
        #expect(revoked.count == 1)
    }

    @Test("a user's revocation refuses tokens issued in earlier seconds only: a sign-in just after it is accepted")
    func userRevocation() {
        let clock = Clock()
        clock.time.withLock { $0 = 1_000_000.4 }
        let revoked = RevokedSessions(now: { clock.now })
        revoked.revokeUser(sub: "u")
        #expect(revoked.isRevoked(claims: ["sub": "u", "iat": 999_999, "exp": 1_003_000]))
        #expect(!revoked.isRevoked(claims: ["sub": "u", "iat": 1_000_000, "exp": 1_003_600]))
        #expect(!revoked.isRevoked(claims: ["sub": "v", "iat": 999_999, "exp": 1_003_000]))
    }

    @Test(
        "a revocation made here is observed, as the fleet shares it; one applied from elsewhere is refused here and bumps the counter, and is not observed (no echo)"
    )
    func sharedWithAFleet() {
        let clock = Clock()
        let revoked = RevokedSessions(now: { clock.now })
        let seen = Locked<[SessionRevocation]>([])
        revoked.observe { revocation in seen.withLock { $0.append(revocation) } }
        revoked.revokeSession(claims: ["sub": "u", "origin_jti": "o1", "exp": 1_000_600])
        revoked.revokeUser(sub: "w")
        #expect(seen.value == [.session(id: "o:o1", until: 1_000_660), .user(sub: "w", before: 1_000_000)])

        let elsewhere = RevokedSessions(now: { clock.now })
        let echoed = Locked(0)
        elsewhere.observe { _ in echoed.withLock { $0 += 1 } }
        let before = elsewhere.revocations.current
        for revocation in seen.value { elsewhere.apply(revocation) }
        #expect(elsewhere.isRevoked(claims: ["sub": "u", "origin_jti": "o1", "iat": 999_000, "exp": 1_000_600]))
        #expect(elsewhere.isRevoked(claims: ["sub": "w", "origin_jti": "o9", "iat": 999_999, "exp": 1_000_600]))
        #expect(!elsewhere.isRevoked(claims: ["sub": "w", "origin_jti": "o9", "iat": 1_000_001, "exp": 1_000_600]))
        #expect(elsewhere.revocations.current == before + 2)
        #expect(echoed.value == 0)
        // One whose time has passed changes nothing.
        elsewhere.apply(.session(id: "o:old", until: 999_000))
        #expect(elsewhere.count == 2)
    }
}
