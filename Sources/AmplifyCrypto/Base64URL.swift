/// Base64url without padding (RFC 4648 §5), as JWTs and JWKs use it: a direct byte-table codec
/// (Foundation's base64 plus string replacement cost several times more on every token).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 6-bit value of each byte of the alphabet; 0xFF for bytes outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Encodes `bytes`.
    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let remaining = input.count - index
        if remaining == 1 {
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        } else if remaining == 2 {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text`, or returns `nil` if it is not unpadded base64url (a character outside the
    /// alphabet, padding, a length of 1 mod 4, or stray bits in the last character).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(bytes: $0) }
    }

    /// Decodes base64url bytes (see ``decode(_:)``): four characters at a time into an output
    /// of the exact length, then the two or three left over.
    public static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        let count = input.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        return values.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var read = 0
                var written = 0
                // Any byte outside the alphabet maps to 0xFF, so OR-ing the four values shows it.
                while read + 4 <= input.count {
                    let a = table[Int(input[read])]
                    let b = table[Int(input[read + 1])]
                    let c = table[Int(input[read + 2])]
                    let d = table[Int(input[read + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else {
                        valid = false
                        break
                    }
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[written] = UInt8(truncatingIfNeeded: chunk >> 16)
                    buffer[written + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    buffer[written + 2] = UInt8(truncatingIfNeeded: chunk)
                    read += 4
                    written += 3
                }
                if valid, remainder >= 2 {
                    let a = table[Int(input[read])]
                    let b = table[Int(input[read + 1])]
                    let c = remainder == 3 ? table[Int(input[read + 2])] : 0
                    // Leftover bits must be zero (canonical encoding).
                    if (a | b | c) & 0xC0 != 0 || (remainder == 2 ? b & 0x0F : c & 0x03) != 0 {
                        valid = false
                    } else {
                        let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                        buffer[written] = UInt8(truncatingIfNeeded: chunk >> 16)
                        written += 1
                        if remainder == 3 {
                            buffer[written] = UInt8(truncatingIfNeeded: chunk >> 8)
                            written += 1
                        }
                    }
                }
                // Bytes left uninitialized on failure are UInt8 (trivial), so the count is honest.
                initialized = valid ? written : 0
            }
            return valid ? output : nil
        }
    }
}
