/// Text from outside the process (a request's header or cookie, a token's claim, a
/// configuration file's key or value), made safe to print in a log line, a terminal, an error
/// message or a response body: every control character and every code point that would change
/// how the rest of the line reads is written as an escape, so the outside cannot add a line,
/// move the cursor, ring the bell or reverse the text of what follows.
///
/// Escaped: C0 controls (`\n`, `\r`, `\t` as such, the others as `\u{1B}`), DEL and the C1
/// controls, the line and paragraph separators U+2028 and U+2029, and the text-direction
/// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). A backslash is doubled only
/// when the text has something to escape, so ordinary text prints unchanged.
///
/// ```swift
/// log.warning("refused the cookie of \(PrintableText(username))")
/// ```
public struct PrintableText: CustomStringConvertible, Sendable, Equatable {
    /// The escaped text.
    public let description: String

    /// `raw`, escaped; with `limit`, cut to that many characters (and `…`) first.
    public init(_ raw: some StringProtocol, limit: Int? = nil) {
        let text = String(raw)
        if let limit, limit >= 0, text.count > limit {
            description = Self.escape(String(text.prefix(limit))) + "…"
        } else {
            description = Self.escape(text)
        }
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ raw: String) -> String {
        guard raw.unicodeScalars.contains(where: needsEscape) else { return raw }
        var escaped = ""
        escaped.reserveCapacity(raw.utf8.count + 16)
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\\": escaped += "\\\\"
            default:
                if needsEscape(scalar) {
                    escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}
