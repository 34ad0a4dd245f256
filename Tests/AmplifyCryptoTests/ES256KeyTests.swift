import AmplifyCrypto
import Testing

@Suite("ES256 keys")
struct ES256KeyTests {
    @Test("RFC 7515 appendix A.3's ES256 signature verifies with its public key, and a changed message does not")
    func rfc7515Vector() throws {
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let signature = try #require(Base64URL.decode("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"))
        let signingInput = Array(
            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ".utf8)
        let key = try ES256Key(publicX: x, y: y)
        #expect(key.verify(signature: signature, of: signingInput))
        #expect(!key.verify(signature: signature, of: signingInput + [0x20]))
        #expect(throws: CryptoError.self) { try key.sign([1]) }
    }

    /// (RFC 7515 A.3's signature is high-S: 0xC50A… > n/2.)
    @Test("lowSOnly refuses a high-S signature, and this key's own signatures are always low-S")
    func lowS() throws {
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let signature = try #require(Base64URL.decode("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"))
        let signingInput = Array(
            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ".utf8)
        #expect(!(try ES256Key(publicX: x, y: y)).verify(signature: signature, of: signingInput, lowSOnly: true))
        let key = try ES256Key.generate()
        // Unnormalised ECDSA makes a high-S signature half the time: 64 in a row low-S by chance is 2^-64.
        for index in 0..<64 {
            let message = Array("message \(index)".utf8)
            #expect(key.verify(signature: try key.sign(message), of: message, lowSOnly: true))
        }
    }

    @Test("a generated key signs, its public coordinates verify, and its PEM restores it")
    func generatedKeyRoundTrip() throws {
        let key = try ES256Key.generate()
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.verify(signature: signature, of: message))
        let (x, y) = try key.publicCoordinates()
        let publicKey = try ES256Key(publicX: x, y: y)
        #expect(publicKey.verify(signature: signature, of: message))
        let restored = try ES256Key(privateKeyPEM: try key.privateKeyPEM())
        #expect(restored.verify(signature: try restored.sign(message), of: message))
        #expect(try restored.publicCoordinates().x == x)
        let other = try ES256Key.generate()
        #expect(!other.verify(signature: signature, of: message))
        var tampered = signature
        tampered[10] ^= 1
        #expect(!key.verify(signature: tampered, of: message))
    }

    @Test("bad key material fails with an error, never a crash")
    func badInput() {
        #expect(throws: CryptoError.self) { try ES256Key(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.self) { try ES256Key(publicX: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32)) }
        #expect(throws: CryptoError.self) { try ES256Key(publicX: [1], y: [2]) }
    }
}
