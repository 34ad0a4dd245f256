import AmplifyCrypto
import Testing

@Suite("scrypt: costs whose memory does not fit in 64 bits")
struct ScryptRangeTests {
    @Test("a cost whose memory need overflows UInt64 is refused with an error instead of a trap")
    func overflowingCostThrows() {
        #expect(throws: CryptoError.self) { try Scrypt(n: 1 << 60, r: 8, p: 1).derive(password: [1], salt: [1]) }
        #expect(throws: CryptoError.self) { try Scrypt(n: 1 << 10, r: .max, p: .max).derive(password: [1], salt: [1]) }
    }
}
