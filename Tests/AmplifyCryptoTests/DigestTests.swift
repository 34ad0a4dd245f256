import AmplifyCrypto
import Testing

@Suite("Digests, random bytes and encodings")
struct DigestTests {
    @Test("SHA-256 and HMAC-SHA256 match the published vectors (FIPS 180-2, RFC 4231 case 2)")
    func knownAnswers() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Digest.hex(Digest.hmacSHA256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("scrypt matches RFC 7914's vector, and different salts give different keys")
    func scryptVector() throws {
        let key = try Scrypt(n: 1024, r: 8, p: 16, keyLength: 64).derive(password: Array("password".utf8), salt: Array("NaCl".utf8))
        #expect(
            Digest.hex(key)
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
        let cheap = Scrypt(n: 1024, r: 8, p: 1)
        #expect(try cheap.derive(password: [1], salt: [1]) != cheap.derive(password: [1], salt: [2]))
    }

    @Test("scrypt refuses parameters OpenSSL cannot use, with an error instead of a crash")
    func scryptBadParameters() {
        #expect(throws: CryptoError.self) { try Scrypt(n: 1000, r: 8, p: 1).derive(password: [1], salt: [1]) }
    }

    @Test("random bytes have the asked length and do not repeat")
    func randomBytes() throws {
        let first = try Digest.randomBytes(32)
        #expect(first.count == 32)
        #expect(try Digest.randomBytes(32) != first)
        #expect(try Digest.randomBytes(0).isEmpty)
    }

    @Test("constant-time comparison says equal only for equal bytes")
    func constantTime() {
        #expect(Digest.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEquals([1, 2], [1, 2, 3]))
        #expect(Digest.constantTimeEquals([], []))
    }

    @Test("base64url round-trips without padding and rejects padded or foreign text")
    func base64URL() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x00, 0x10]
        let text = Base64URL.encode(bytes)
        #expect(text == "-__-ABA")
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("-__-ABA=") == nil)
        #expect(Base64URL.decode("not base64!") == nil)
    }
}
