import AmplifyCrypto
import Testing

@Suite("Big numbers, HKDF and RS256 keys")
struct BigNumberAndRSATests {
    @Test("Modular arithmetic on BIGNUM matches values computed by Python's integers")
    func modularArithmetic() throws {
        let modulus = try BigNumber(hex: "7fffffffffffffffffffffffffffffff")  // 2^127 - 1
        let base = try BigNumber(3)
        let exponent = try BigNumber(hex: "ab54a98ceb1f0ad2")  // 12345678901234567890
        #expect(try base.power(exponent, modulo: modulus).description == "3c3c11518b27e838c9be19f4b7cb9612")
        let small = try BigNumber(5)
        let big = try BigNumber(hex: "7ffffffffffffffffffffffffffffffe")
        #expect(try small.subtracting(big, modulo: modulus).description == "6")
        #expect(try big.adding(small, modulo: modulus).description == "4")
        #expect(try big.multiplying(big, modulo: modulus).description == "1")
        #expect(try BigNumber(hex: "00ff").bytes == [0xFF])
        #expect(try BigNumber(bytes: []).isZero)
        #expect(try BigNumber(hex: "0102").bytes(paddedTo: 4) == [0, 0, 1, 2])
    }

    @Test("Non-hexadecimal text, an even modulus and too small a padding are errors, not crashes")
    func badInputIsAnError() throws {
        #expect(throws: CryptoError.self) { try BigNumber(hex: "12xz") }
        #expect(throws: CryptoError.self) { try BigNumber(hex: "") }
        #expect(throws: CryptoError.self) { try BigNumber(2).power(BigNumber(3), modulo: BigNumber(10)) }
        #expect(throws: CryptoError.self) { try BigNumber(hex: "010203").bytes(paddedTo: 2) }
    }

    @Test("HKDF-SHA256 matches RFC 5869 test case 1")
    func hkdfVector() throws {
        let key = [UInt8](repeating: 0x0B, count: 22)
        let salt: [UInt8] = Array(0x00...0x0C)
        let info: [UInt8] = Array(0xF0...0xF9)
        let output = try HKDF.sha256(key: key, salt: salt, info: info, length: 42)
        #expect(Digest.hex(output) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test("An RS256 signature verifies with the public key rebuilt from n and e, and not after tampering or with another key")
    func rs256RoundTrip() throws {
        let key = try RSAKey.generate()
        let message = Array("header.claims".utf8)
        let signature = try key.sign(message)
        let (n, e) = try key.publicComponents()
        #expect(e == [0x01, 0x00, 0x01])
        let publicKey = try RSAKey(modulus: n, exponent: e)
        #expect(!publicKey.isPrivate)
        #expect(publicKey.verify(signature: signature, of: message))
        #expect(!publicKey.verify(signature: signature, of: Array("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!publicKey.verify(signature: flipped, of: message))
        #expect(!publicKey.verify(signature: Array(signature.dropLast()), of: message))
        let other = try RSAKey.generate()
        #expect(!other.verify(signature: signature, of: message))
        #expect(throws: CryptoError.self) { try publicKey.sign(message) }
    }

    @Test("A key's prepared verifier keeps answering right after refusals, from many threads at once")
    func rs256VerifierReused() async throws {
        let key = try RSAKey.generate()
        let (n, e) = try key.publicComponents()
        let publicKey = try RSAKey(modulus: n, exponent: e)
        let messages = (0..<8).map { Array("header.claims-\($0)".utf8) }
        let signatures = try messages.map { try key.sign($0) }
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let message = messages[index % 8]
                    var flipped = signatures[index % 8]
                    flipped[index % flipped.count] ^= 0x40
                    // A refusal, a signature of another message, then the right one, on the same context.
                    return !publicKey.verify(signature: flipped, of: message)
                        && !publicKey.verify(signature: signatures[(index + 1) % 8], of: message)
                        && publicKey.verify(signature: signatures[index % 8], of: message)
                }
            }
            for await ok in group { #expect(ok) }
        }
    }

    @Test("A modulus under 2048 bits is refused")
    func shortModulusRefused() {
        #expect(throws: CryptoError.self) { try RSAKey(modulus: [UInt8](repeating: 0xFF, count: 128), exponent: [1, 0, 1]) }
    }
}
