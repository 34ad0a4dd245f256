import Amplify
import Foundation

/// The tokens a request brings: an access token (from `Authorization: Bearer` or Amplify JS's
/// cookies), optionally the ID and refresh tokens.
public struct AuthRequestTokens: Sendable, Equatable {
    /// The access token (JWT).
    public var accessToken: String
    /// The ID token (JWT), if sent.
    public var idToken: String?
    /// The refresh token, if sent (needed to refresh inside the context, or to accept an expired access token).
    public var refreshToken: String?
    /// The username the cookies name (`LastAuthUser`), if they came from cookies.
    public var username: String?

    /// Tokens.
    public init(accessToken: String, idToken: String? = nil, refreshToken: String? = nil, username: String? = nil) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.username = username
    }

    /// The tokens of an `Authorization` header value (`Bearer <access token>`, the scheme in any case).
    /// - Throws: ``AmplifyJSCookies/CookieError`` `.malformed` when it is not a bearer token.
    public init(authorization: String, idToken: String? = nil, refreshToken: String? = nil) throws(AmplifyJSCookies.CookieError) {
        let trimmed = Substring(authorization).trimmingOWS()
        guard trimmed.utf8.count <= AmplifyJSCookies.maximumHeaderLength else {
            throw .oversized(
                "The Authorization header is \(trimmed.utf8.count) bytes, more than the \(AmplifyJSCookies.maximumHeaderLength) accepted.")
        }
        guard let space = trimmed.utf8.firstIndex(of: UInt8(ascii: " ")), trimmed[..<space].utf8.count == 6,
            trimmed.hasASCIIPrefix(caseInsensitive: "bearer")
        else {
            throw .malformed("The Authorization header is not 'Bearer <token>'.")
        }
        let token = trimmed[space...].trimmingOWS()
        guard !token.isEmpty, !token.utf8.contains(where: Substring.isOWS) else {
            throw .malformed("The Authorization header's bearer token is empty or has spaces.")
        }
        self.init(accessToken: String(token), idToken: idToken, refreshToken: refreshToken)
    }
}

/// Amplify JS's token cookies: reading them from a request's `Cookie` header(s), and writing the
/// `Set-Cookie` values that Amplify JS (`aws-amplify` in the browser, or its server adapters)
/// reads back.
///
/// Names are `CognitoIdentityServiceProvider.<clientId>.LastAuthUser` (the username) and
/// `CognitoIdentityServiceProvider.<clientId>.<username>.<key>` for `accessToken`, `idToken`,
/// `refreshToken`, `clockDrift`, `signInDetails`, …; names and values are URL-encoded the way
/// js-cookie does. Written cookies carry `Path=/`, `Secure`, `SameSite=Lax` and a year's `Max-Age`
/// unless ``Attributes`` say otherwise.
///
/// Hostile input is refused with a ``CookieError``, never a crash: headers over
/// ``maximumHeaderLength`` (all together), more than ``maximumCookieCount`` cookies, control
/// characters, an Amplify cookie without `=`, or with a value that is not valid URL encoding, and
/// an Amplify cookie sent twice with different values. Cookies of other applications are passed
/// over (a pair without `=` among them is ignored, as RFC 6265 says).
public enum AmplifyJSCookies {
    /// The prefix of every Amplify JS Auth cookie.
    public static let prefix = "CognitoIdentityServiceProvider"
    /// The most bytes of `Cookie` headers read (all headers together): 32 KiB.
    public static let maximumHeaderLength = 32 * 1024
    /// The most cookies read from one request.
    public static let maximumCookieCount = 256
    /// js-cookie's default lifetime, a year.
    public static let defaultMaxAge = 31_536_000

    /// Why cookies were refused.
    public enum CookieError: Error, Equatable, AmplifyError {
        /// The header is not well formed (the reason says where).
        case malformed(String)
        /// Too many bytes or cookies.
        case oversized(String)
        /// One cookie sent twice with different values.
        case duplicated(String)
        /// The Amplify cookies are incomplete (a `LastAuthUser` without its access token, say).
        case incomplete(String)

        /// What is wrong.
        public var errorDescription: String {
            switch self {
            case .malformed(let reason), .oversized(let reason), .duplicated(let reason), .incomplete(let reason): reason
            }
        }

        /// What to do.
        public var recoverySuggestion: String {
            switch self {
            case .malformed, .duplicated: "Send the cookies Amplify JS wrote, once each; sign in again if they were altered."
            case .oversized: "Send fewer or smaller cookies."
            case .incomplete: "Sign in again, so Amplify JS writes all of its cookies."
            }
        }

        /// Always `nil`.
        public var underlyingError: (any Error)? { nil }
    }

    /// The attributes written cookies carry.
    public struct Attributes: Sendable, Equatable {
        /// `Max-Age` in seconds (default a year).
        public var maxAge: Int
        /// `Domain`, if any.
        public var domain: String?
        /// `Path` (default `/`).
        public var path: String
        /// `Secure` (default on).
        public var secure: Bool
        /// `HttpOnly` (default off: Amplify JS in the browser reads them).
        public var httpOnly: Bool
        /// `SameSite` (default `Lax`).
        public var sameSite: String

        /// Amplify JS's defaults, or others.
        public init(
            maxAge: Int = AmplifyJSCookies.defaultMaxAge, domain: String? = nil, path: String = "/", secure: Bool = true, httpOnly: Bool = false,
            sameSite: String = "Lax"
        ) {
            self.maxAge = maxAge
            self.domain = domain
            self.path = path
            self.secure = secure
            self.httpOnly = httpOnly
            self.sameSite = sameSite
        }
    }

    // MARK: Reading

    /// The cookies of `headers` (every `Cookie` header of a request; HTTP/2 may send several),
    /// names and values URL-decoded; cookies of other applications are included as sent.
    /// - Throws: ``CookieError``.
    public static func parse(_ headers: [String]) throws(CookieError) -> [String: String] {
        var total = 0
        for header in headers { total += header.utf8.count }
        guard total <= maximumHeaderLength else {
            throw .oversized("The Cookie headers are \(total) bytes, more than the \(maximumHeaderLength) accepted.")
        }
        var cookies: [String: String] = [:]
        var count = 0
        for header in headers {
            if let control = header.utf8.first(where: { $0 < 0x20 && $0 != UInt8(ascii: "\t") || $0 == 0x7F }) {
                throw .malformed("The Cookie header has a control character (U+\(String(control, radix: 16, uppercase: true))).")
            }
            for piece in header.utf8.split(separator: UInt8(ascii: ";")) {
                let pair = Substring(piece).trimmingOWS()
                if pair.isEmpty { continue }
                count += 1
                guard count <= maximumCookieCount else {
                    throw .oversized("The request has more than \(maximumCookieCount) cookies.")
                }
                guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else {
                    if pair.hasPrefix(prefix) { throw .malformed("The cookie '\(printable(String(pair)))' has no '='.") }
                    continue
                }
                let rawName = String(pair[..<equals].trimmingOWS())
                var rawValue = pair[pair.utf8.index(after: equals)...].trimmingOWS()
                if rawValue.utf8.count >= 2, rawValue.utf8.first == UInt8(ascii: "\""), rawValue.utf8.last == UInt8(ascii: "\"") {
                    rawValue = rawValue[rawValue.utf8.index(after: rawValue.utf8.startIndex)..<rawValue.utf8.index(before: rawValue.utf8.endIndex)]
                }
                let amplify = rawName.hasPrefix(prefix)
                guard let name = decode(rawName) else {
                    if amplify { throw .malformed("The cookie name '\(printable(rawName))' is not valid URL encoding.") }
                    continue
                }
                guard let value = decode(String(rawValue)) else {
                    if amplify { throw .malformed("The value of the cookie '\(printable(name))' is not valid URL encoding.") }
                    continue
                }
                if let earlier = cookies[name] {
                    if earlier != value, name.hasPrefix(prefix) {
                        throw .duplicated("The cookie '\(printable(name))' is sent twice with different values.")
                    }
                    continue
                }
                cookies[name] = value
            }
        }
        return cookies
    }

    /// The tokens Amplify JS's cookies hold for the app client `clientId`, or `nil` when the
    /// request has none of its cookies (nobody signed in).
    /// - Throws: ``CookieError``: malformed headers, or a `LastAuthUser` without its access token.
    public static func tokens(in headers: [String], clientId: String) throws(CookieError) -> AuthRequestTokens? {
        try tokens(in: parse(headers), clientId: clientId)
    }

    /// The tokens for `clientId` among parsed cookies (see ``parse(_:)``), or `nil` without a `LastAuthUser`.
    /// - Throws: ``CookieError/incomplete(_:)`` when the user's access token is missing.
    public static func tokens(in cookies: [String: String], clientId: String) throws(CookieError) -> AuthRequestTokens? {
        guard let username = cookies["\(prefix).\(clientId).LastAuthUser"], !username.isEmpty else { return nil }
        let base = "\(prefix).\(clientId).\(username)."
        guard let access = cookies[base + "accessToken"], !access.isEmpty else {
            throw .incomplete("The cookies name '\(printable(username))' as the last user of \(clientId) but carry no access token.")
        }
        return AuthRequestTokens(
            accessToken: access, idToken: cookies[base + "idToken"].flatMap { $0.isEmpty ? nil : $0 },
            refreshToken: cookies[base + "refreshToken"].flatMap { $0.isEmpty ? nil : $0 }, username: username)
    }

    // MARK: Writing

    /// The `Set-Cookie` values for `session` of `clientId`: `LastAuthUser`, `accessToken`,
    /// `idToken`, `refreshToken` and `clockDrift` (0), with `attributes`.
    public static func setCookies(clientId: String, session: StoredSession, attributes: Attributes = Attributes()) -> [String] {
        let base = "\(prefix).\(clientId).\(session.username)."
        let pairs: [(String, String)] = [
            ("\(prefix).\(clientId).LastAuthUser", session.username),
            (base + "accessToken", session.accessToken),
            (base + "idToken", session.idToken),
            (base + "refreshToken", session.refreshToken),
            (base + "clockDrift", "0"),
        ]
        return pairs.map { cookie(name: $0.0, value: $0.1, maxAge: attributes.maxAge, attributes) }
    }

    /// The `Set-Cookie` values that delete `username`'s cookies of `clientId` (`Max-Age=0`).
    public static func clearingCookies(clientId: String, username: String, attributes: Attributes = Attributes()) -> [String] {
        let base = "\(prefix).\(clientId).\(username)."
        let names =
            ["\(prefix).\(clientId).LastAuthUser"] + ["accessToken", "idToken", "refreshToken", "clockDrift", "signInDetails"].map { base + $0 }
        return names.map { cookie(name: $0, value: "", maxAge: 0, attributes) }
    }

    /// One `Set-Cookie` value, name and value encoded as js-cookie encodes them.
    public static func cookie(name: String, value: String, maxAge: Int, _ attributes: Attributes) -> String {
        var text = "\(encodeName(name))=\(encodeValue(value)); Path=\(attributes.path); Max-Age=\(maxAge)"
        if maxAge == 0 { text += "; Expires=Thu, 01 Jan 1970 00:00:00 GMT" }
        if let domain = attributes.domain { text += "; Domain=\(domain)" }
        if attributes.secure { text += "; Secure" }
        if attributes.httpOnly { text += "; HttpOnly" }
        text += "; SameSite=\(attributes.sameSite)"
        return text
    }

    /// A cookie name as js-cookie writes it: `encodeURIComponent`, then `# $ & + ^ \` |` left as they are.
    public static func encodeName(_ name: String) -> String {
        encode(name, keeping: nameKept)
    }

    /// A cookie value as js-cookie writes it: `encodeURIComponent`, then
    /// `# $ & + / : < = > ? @ [ ] ^ \` { | }` left as they are.
    public static func encodeValue(_ value: String) -> String {
        encode(value, keeping: valueKept)
    }

    /// `encodeURIComponent`'s unreserved characters, and what js-cookie keeps besides, as tables
    /// indexed by byte.
    static let nameKept = keptTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()" + "#$&+^`|")
    static let valueKept = keptTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()" + "#$&+/:<=>?@[]^`{|}")

    static func keptTable(_ characters: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for byte in characters.utf8 { table[Int(byte)] = true }
        return table
    }

    /// `text` with every byte not in `kept` as `%XX`. A token (base64url and dots) needs no
    /// escape and is returned as it is.
    static func encode(_ text: String, keeping kept: [Bool]) -> String {
        guard !text.utf8.allSatisfy({ kept[Int($0)] }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if kept[Int(byte)] {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-decoding (`nil` for a bad escape or bytes that are not UTF-8).
    static func decode(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// At most 80 characters of `text`, for messages.
    private static func printable(_ text: String) -> String {
        PrintableText(text, limit: 80).description
    }
}
