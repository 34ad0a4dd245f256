import AmplifyCrypto
import Testing

@Suite("RSA public keys: weak exponents and oversized moduli")
struct RSAKeyExponentTests {
    @Test(
        "an exponent that is even or below 3 is refused; 3 and 65537 are accepted",
        arguments: [
            ([1] as [UInt8], false), ([2], false), ([4], false), ([0x01, 0x00, 0x00], false), ([0, 1], false),
            ([3], true), ([0x01, 0x00, 0x01], true),
        ])
    func exponents(_ exponent: [UInt8], _ accepted: Bool) throws {
        let (modulus, _) = try RSAKey.generate().publicComponents()
        let made = try? RSAKey(modulus: modulus, exponent: exponent)
        #expect((made != nil) == accepted)
    }

    @Test("a modulus over 16384 bits or an exponent over 64 bits is refused (verification cost)")
    func oversized() throws {
        let (modulus, _) = try RSAKey.generate().publicComponents()
        #expect(throws: CryptoError.self) { try RSAKey(modulus: [0xFF] + [UInt8](repeating: 0x01, count: 2048), exponent: [0x01, 0x00, 0x01]) }
        #expect(throws: CryptoError.self) { try RSAKey(modulus: modulus, exponent: [UInt8](repeating: 0xFF, count: 9)) }
    }
}
