import AmplifyCrypto
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    private func bytes(_ hex: String) -> [UInt8] {
        var output: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            output.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return output
    }

    @Test("the GCM specification's test case 16 (256-bit key, associated data, 60 bytes): the same ciphertext and tag, and it opens")
    func knownAnswer() throws {
        let key = bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce = bytes("cafebabefacedbaddecaf888")
        let plaintext = bytes(
            "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let associated = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: associated)
        #expect(
            Digest.hex(sealed)
                == "cafebabefacedbaddecaf888"
                + "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
                + "76fc6ece0f4e1768cddf8853bb2d551b")
        #expect(try AESGCM.open(sealed, key: key, associatedData: associated) == plaintext)
    }

    @Test("a random nonce each time; a wrong key, other associated data, a changed byte or a short box is refused, never half-opened")
    func refusals() throws {
        let key = try Digest.randomBytes(32)
        let message = Array("refresh-token-of-alice".utf8)
        let first = try AESGCM.seal(message, key: key, associatedData: Array("alice".utf8))
        let second = try AESGCM.seal(message, key: key, associatedData: Array("alice".utf8))
        #expect(first != second)
        #expect(first.count == 12 + message.count + 16)
        #expect(try AESGCM.open(first, key: key, associatedData: Array("alice".utf8)) == message)
        #expect(throws: CryptoError.self) { try AESGCM.open(first, key: try Digest.randomBytes(32), associatedData: Array("alice".utf8)) }
        #expect(throws: CryptoError.self) { try AESGCM.open(first, key: key, associatedData: Array("mallory".utf8)) }
        var changed = first
        changed[14] ^= 1
        #expect(throws: CryptoError.self) { try AESGCM.open(changed, key: key, associatedData: Array("alice".utf8)) }
        #expect(throws: CryptoError.self) { try AESGCM.open(Array(first.prefix(27)), key: key) }
        #expect(throws: CryptoError.self) { try AESGCM.seal(message, key: Array(key.prefix(16))) }
        #expect(try AESGCM.open(try AESGCM.seal([], key: key), key: key) == [])
    }
}
