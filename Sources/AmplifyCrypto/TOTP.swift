import Foundation

/// Time-based one-time passwords (RFC 6238, over RFC 4226's HOTP), with OpenSSL's HMAC: the codes
/// authenticator apps show, and their check.
public struct TOTP: Sendable, Equatable {
    /// The shared secret.
    public let secret: [UInt8]
    /// Digits per code (6 by default; 6 to 8).
    public let digits: Int
    /// Seconds per time step (30 by default).
    public let period: Int
    /// The HMAC hash (SHA-1 by default, as authenticator apps assume).
    public let hash: Digest.HMACHash

    /// A generator for `secret`; `digits` is kept within 6 to 8 and `period` at least 1.
    public init(secret: [UInt8], digits: Int = 6, period: Int = 30, hash: Digest.HMACHash = .sha1) {
        self.secret = secret
        self.digits = min(max(digits, 6), 8)
        self.period = max(period, 1)
        self.hash = hash
    }

    /// A new random 20-byte (160-bit) secret, RFC 4226's recommended length.
    /// - Throws: ``CryptoError`` if the generator fails.
    public static func makeSecret() throws -> [UInt8] {
        try Digest.randomBytes(20)
    }

    /// The time step `date` falls in.
    public func counter(at date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970
        return seconds <= 0 ? 0 : UInt64(seconds / Double(period))
    }

    /// The code for time step `counter` (RFC 4226's HOTP with dynamic truncation).
    public func code(counter: UInt64) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * (7 - $0))) }
        let mac = Digest.hmac(hash, key: secret, message)
        guard let last = mac.last else { return String(repeating: "0", count: digits) }
        let offset = Int(last & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The code at `date`.
    public func code(at date: Date = Date()) -> String {
        code(counter: counter(at: date))
    }

    /// The time step `code` belongs to, if it is the code of the step at `date` or of one within
    /// `window` steps of it (clock drift), compared in constant time; `nil` otherwise.
    public func matchingCounter(_ code: String, at date: Date = Date(), window: Int = 1) -> UInt64? {
        let candidate = Array(code.utf8)
        guard candidate.count == digits, candidate.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let now = Int64(clamping: counter(at: date))
        var found: UInt64?
        for step in max(0, now - Int64(window))...(now + Int64(max(window, 0))) {
            // Every step is compared, whether or not one matched already, so timing says nothing.
            if Digest.constantTimeEquals(Array(self.code(counter: UInt64(step)).utf8), candidate), found == nil { found = UInt64(step) }
        }
        return found
    }
}

/// RFC 4648 base 32 (the alphabet `A`–`Z`, `2`–`7`), as TOTP secrets are written.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base 32, without padding (as `otpauth://` URIs carry it).
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes (case-insensitive; `=` padding, spaces and hyphens ignored), or
    /// `nil` for a character outside the alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for scalar in text.uppercased().utf8 where scalar != UInt8(ascii: "=") && scalar != UInt8(ascii: " ") && scalar != UInt8(ascii: "-") {
            guard let index = alphabet.firstIndex(of: scalar) else { return nil }
            buffer = (buffer << 5) | UInt32(index)
            bits += 5
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return output
    }
}
