import AmplifyAuthCore
import AmplifyConcurrency
import Foundation
import Testing

@Suite("The verified-token cache")
struct VerifiedTokenCacheTests {
    let tenant = AuthTenant(pool: "pool-a", clientId: "client-a", issuer: "https://issuer/a")
    let entry = VerifiedTokenCache.Entry(username: "ann", sub: "sub-ann", groups: ["admins"], scopes: ["openid"], expiresAt: 1_000)

    final class Clock: Sendable {
        let time = Locked<Double>(100)
        var now: @Sendable () -> Double { { [time] in time.value } }
        func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    }

    @Test("a hit needs the same tokens, pool and revocation count, before exp and maximumAge")
    func hitRules() {
        let clock = Clock()
        let cache = VerifiedTokenCache(capacity: 100, maximumAge: 60, now: clock.now)
        let key = VerifiedTokenCache.Key(accessToken: "access-1", idToken: "id-1")
        cache.insert(entry, for: key, tenant: tenant, revocations: 3)
        #expect(cache.lookup(key, tenant: tenant, revocations: 3) == entry)
        // Another ID token, no ID token, another access token: other keys.
        #expect(cache.lookup(VerifiedTokenCache.Key(accessToken: "access-1", idToken: "id-2"), tenant: tenant, revocations: 3) == nil)
        #expect(cache.lookup(VerifiedTokenCache.Key(accessToken: "access-1", idToken: nil), tenant: tenant, revocations: 3) == nil)
        #expect(cache.lookup(VerifiedTokenCache.Key(accessToken: "access-2", idToken: "id-1"), tenant: tenant, revocations: 3) == nil)
        // Another pool or client.
        let other = AuthTenant(pool: "pool-a", clientId: "client-b", issuer: "https://issuer/a")
        #expect(cache.lookup(key, tenant: other, revocations: 3) == nil)
        // A revocation since: the entry is gone for good.
        #expect(cache.lookup(key, tenant: tenant, revocations: 4) == nil)
        #expect(cache.lookup(key, tenant: tenant, revocations: 3) == nil)
    }

    @Test("entries die at the tokens' exp and after maximumAge")
    func expiry() {
        let clock = Clock()
        let cache = VerifiedTokenCache(capacity: 100, maximumAge: 60, now: clock.now)
        let key = VerifiedTokenCache.Key(accessToken: "a", idToken: nil)
        cache.insert(entry, for: key, tenant: tenant, revocations: 0)
        clock.advance(59)
        #expect(cache.lookup(key, tenant: tenant, revocations: 0) != nil)
        clock.advance(1)
        #expect(cache.lookup(key, tenant: tenant, revocations: 0) == nil)

        var short = entry
        short.expiresAt = 200
        cache.insert(short, for: key, tenant: tenant, revocations: 0)
        clock.time.withLock { $0 = 199.9 }
        #expect(cache.lookup(key, tenant: tenant, revocations: 0) != nil)
        clock.time.withLock { $0 = 200 }
        #expect(cache.lookup(key, tenant: tenant, revocations: 0) == nil)
        #expect(cache.statistics.hits == 2)
    }

    @Test("the cache never holds more than its capacity, and keeps what is used")
    func bounded() {
        let cache = VerifiedTokenCache(capacity: 100, maximumAge: 60, now: { 100 })
        let hot = VerifiedTokenCache.Key(accessToken: "hot", idToken: nil)
        cache.insert(entry, for: hot, tenant: tenant, revocations: 0)
        for index in 0..<10_000 {
            cache.insert(entry, for: VerifiedTokenCache.Key(accessToken: "token-\(index)", idToken: nil), tenant: tenant, revocations: 0)
            #expect(cache.count <= 100)
            if index % 25 == 0 { #expect(cache.lookup(hot, tenant: tenant, revocations: 0) != nil) }
        }
        #expect(cache.lookup(hot, tenant: tenant, revocations: 0) != nil)
        #expect(cache.lookup(VerifiedTokenCache.Key(accessToken: "token-0", idToken: nil), tenant: tenant, revocations: 0) == nil)
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test("a revocation counter only goes up, from any thread")
    func counter() async {
        let counter = RevocationCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<1_000 { counter.bump() } } }
        }
        #expect(counter.current == 8_000)
    }
}
