/// Percent-encoding as Signature Version 4 defines it: every byte except the unreserved
/// characters `A–Z a–z 0–9 - . _ ~` becomes `%XY` (upper-case hex); `/` is kept in paths.
public enum URIEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes `text` (UTF-8); keeps `/` when `keepingSlashes`.
    public static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var output = [UInt8]()
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `%XY` escapes (and leaves anything else as it is); `+` stays `+`.
    public static func decode(_ text: String) -> String {
        var output = [UInt8]()
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2,
                let high = hexValue(bytes[bytes.startIndex]), let low = hexValue(bytes[bytes.startIndex + 1])
            {
                output.append(high << 4 | low)
                bytes = bytes.dropFirst(2)
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `A–Z a–z 0–9 - . _ ~`, indexed by byte.
    private static let unreserved: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: return true
        default: return false
        }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool { unreserved[Int(byte)] }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }
}
