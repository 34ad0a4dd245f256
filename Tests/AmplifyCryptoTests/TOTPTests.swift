import AmplifyCrypto
import Foundation
import Testing

/// RFC 6238's test vectors (Appendix B) and RFC 4648's base 32 vectors.
@Suite("TOTP")
struct TOTPTests {
    static let sha1Seed = Array("12345678901234567890".utf8)
    static let sha256Seed = Array("12345678901234567890123456789012".utf8)
    static let sha512Seed = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    /// Time, and the 8-digit codes for SHA-1, SHA-256 and SHA-512.
    static let vectors: [(Double, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test("RFC 6238 Appendix B: every vector for SHA-1, SHA-256 and SHA-512, 8 digits, 30-second steps")
    func rfc6238Vectors() {
        for (time, sha1, sha256, sha512) in Self.vectors {
            let date = Date(timeIntervalSince1970: time)
            #expect(TOTP(secret: Self.sha1Seed, digits: 8, hash: .sha1).code(at: date) == sha1)
            #expect(TOTP(secret: Self.sha256Seed, digits: 8, hash: .sha256).code(at: date) == sha256)
            #expect(TOTP(secret: Self.sha512Seed, digits: 8, hash: .sha512).code(at: date) == sha512)
        }
    }

    @Test("a 6-digit code is the last six digits; a code of the step before or after is accepted within the window, not beyond")
    func sixDigitsAndWindow() {
        let totp = TOTP(secret: Self.sha1Seed)
        let date = Date(timeIntervalSince1970: 1_111_111_111)
        #expect(totp.code(at: date) == "050471")
        let previous = totp.code(at: date.addingTimeInterval(-30))
        #expect(totp.matchingCounter(previous, at: date) == totp.counter(at: date) - 1)
        #expect(totp.matchingCounter(totp.code(at: date.addingTimeInterval(-90)), at: date) == nil)
        #expect(totp.matchingCounter("12345", at: date) == nil)
        #expect(totp.matchingCounter("abcdef", at: date) == nil)
    }

    @Test("base 32 round-trips RFC 4648's vectors, without padding, case-insensitively")
    func base32() {
        let vectors = ["": "", "f": "MY", "fo": "MZXQ", "foo": "MZXW6", "foob": "MZXW6YQ", "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI"]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded.lowercased()) == Array(plain.utf8))
        }
        #expect(Base32.decode("MZXW6YQ=") == Array("foob".utf8))
        #expect(Base32.decode("MZ1") == nil)
    }
}
