import AWSAPIPlugin
import AWSCognitoAuthPlugin
import AWSPluginsCore
import AWSS3StoragePlugin
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyWebSocket
import Foundation
import RedisHubBridgePlugin

/// One harness per parser that reads outside input: each takes arbitrary bytes, runs them
/// through the parser as the package does with what arrives from a file, a server or a browser,
/// and checks what must hold whatever the input (nothing may trap; where a property is checked,
/// a violation is a `fatalError`, which libFuzzer reports as a crash).
public enum FuzzHarnesses {
    /// The harnesses by name: the name is `AMPLIFY_FUZZ_TARGET` and the folder of the seed
    /// corpus under `Fuzz/Corpus/`.
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "json": json, "configuration": configuration, "jwt": jwt, "jwks": jwks, "s3xml": s3XML, "redirect": redirect, "redis": redis,
        "websocket": webSocket, "appsync": appSync,
        "cookies": cookies, "authform": authForm,
    ]

    /// A form body or query string as the sign-in routes read it (`AuthRouteRequest.formFields`):
    /// whatever it decodes to, encoded again, reads back the same.
    static func authForm(_ bytes: [UInt8]) {
        let fields = AuthRouteRequest.formFields(String(decoding: bytes, as: UTF8.self))
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let text = fields.sorted { $0.key < $1.key }.map { "\(encoded($0.key))=\(encoded($0.value))" }.joined(separator: "&")
        let again = AuthRouteRequest.formFields(text)
        if again != fields { fatalError("form fields \(fields) encoded as \(text) read back as \(again)") }
    }

    /// Amplify JS's cookies from a request's `Cookie` headers (the input split into headers at
    /// newlines): parsing, the tokens for a client, and the written cookies of what was read
    /// must read back to the same tokens.
    static func cookies(_ bytes: [UInt8]) {
        let headers = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let parsed = try? AmplifyJSCookies.parse(headers) else { return }
        for name in parsed.keys where name.hasPrefix(AmplifyJSCookies.prefix + ".") && name.hasSuffix(".LastAuthUser") {
            let clientId = String(name.dropFirst(AmplifyJSCookies.prefix.count + 1).dropLast(".LastAuthUser".count))
            guard let tokens = try? AmplifyJSCookies.tokens(in: parsed, clientId: clientId) else { continue }
            let session = StoredSession(
                username: tokens.username ?? "", userId: "", idToken: tokens.idToken ?? "", accessToken: tokens.accessToken,
                refreshToken: tokens.refreshToken ?? "", accessTokenExpiresAt: Date(), refreshTokenExpiresAt: nil)
            let written = AmplifyJSCookies.setCookies(clientId: clientId, session: session).map { String($0.prefix { $0 != ";" }) }
            guard let back = try? AmplifyJSCookies.tokens(in: [written.joined(separator: "; ")], clientId: clientId) else {
                fatalError("cookies written for \(clientId) do not parse back: \(written)")
            }
            if back.accessToken != tokens.accessToken || back.username != tokens.username {
                fatalError("cookie round trip changed \(tokens) into \(back)")
            }
        }
    }

    /// `JSONValue(parsing:)`; what parses must encode and parse back to the same value.
    static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes) else { return }
        guard let encoded = try? JSONEncoder().encode(value) else { return }
        guard let again = try? JSONValue(parsing: Array(encoded)) else {
            fatalError("JSONValue encoded \(value) as \(String(decoding: encoded, as: UTF8.self)), which it cannot parse back")
        }
        if again != value { fatalError("JSONValue round trip changed \(value) into \(again)") }
        // The direct writer must agree: what it writes parses back to the same value.
        guard let written = try? value.jsonBytes(), let reread = try? JSONValue(parsing: written) else {
            fatalError("jsonBytes() wrote \(value) as text JSONValue cannot parse")
        }
        if reread != value { fatalError("jsonBytes() round trip changed \(value) into \(reread)") }
    }

    /// The configuration path from bytes: parse once, recognise the shape, translate, check.
    /// The first byte picks how the bytes arrived (from memory, a Gen 1 file, a Gen 2 file, or
    /// `configure(with:)` requiring Gen 2).
    static func configuration(_ bytes: [UInt8]) {
        guard let mode = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let file: URL? =
            switch mode % 3 {
            case 1: URL(fileURLWithPath: "/fuzz/amplifyconfiguration.json")
            case 2: URL(fileURLWithPath: "/fuzz/amplify_outputs.json")
            default: nil
            }
        guard let configuration = try? ConfigurationDocument.configuration(from: rest, file: file, requireGen2: mode & 0x80 != 0) else { return }
        // What configured must also read back through its own JSON.
        _ = configuration.json
        _ = configuration.findings.map(\.message)
    }

    static let es256 = try? ES256Key.generate()

    /// JWT splitting and claims: `JSONWebToken(parsing:)`, the time claims, and ES256
    /// verification of whatever signature the token carries.
    static func jwt(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let token = try? JSONWebToken(parsing: text) {
            for claim in ["exp", "nbf", "iat", "auth_time"] { _ = try? token.time(claim) }
            _ = token.string("iss")
            _ = token.expiresAt
        }
        if let es256 { _ = try? JSONWebToken.verify(text, key: es256, now: Date(), leeway: 60) }
    }

    /// A JWKS document: the verifier's key parsing (RSA keys made from the document's `n` and
    /// `e`), then a signature check with each key it accepted.
    static func jwks(_ bytes: [UInt8]) {
        guard let document = try? JSONValue(parsing: bytes), let list = document["keys"]?.asArray else { return }
        for key in CognitoTokenVerifier.parse(list).values {
            _ = key.verify(signature: Array(bytes.prefix(512)), of: bytes)
        }
    }

    /// S3's XML: the element tree, the error reader (`<Error>`, `<ErrorResponse>`), the
    /// ListObjectsV2 reader, and the JSON error reader for the same bytes.
    static func s3XML(_ bytes: [UInt8]) {
        let data = Data(bytes)
        if let tree = try? XMLElementTree.parse(data) {
            let listing = S3Operations.listing(from: tree)
            _ = listing.items.count + listing.commonPrefixes.count
        }
        _ = AWSXMLError.parse(status: 400, body: data)
        _ = AWSXMLError.parse(status: 200, body: data)
        _ = AWSJSONError.parse(status: 400, body: data, errorTypeHeader: nil)
    }

    /// The redirect listener's request parsing: the head scanner fed in chunks (sizes from the
    /// first byte), the decision on the head, the code and error of a redirect, and the
    /// printable form of its texts, which must hold no control or format character.
    static func redirect(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let chunk = 1 + Int(first % 64)
        var scanner = RequestHeadScanner()
        var index = 1
        var complete = false
        while index < bytes.count, !complete {
            let end = min(bytes.count, index + chunk)
            switch scanner.append(Array(bytes[index..<end])) {
            case .incomplete: break
            case .complete: complete = true
            case .tooLarge: return
            }
            index = end
        }
        guard complete else { return }
        if case .redirect(let target) = LoopbackRedirectReceiver.decide(scanner.buffer, path: "/callback", expectedState: "fuzz-state") {
            _ = try? HostedUISignIn.code(from: target, expectedState: "fuzz-state")
        }
        let shown = HostedUISignIn.printable(String(decoding: bytes, as: UTF8.self))
        if shown.unicodeScalars.contains(where: { [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
        {
            fatalError("printable(_:) let a control or format character through: \(shown.debugDescription)")
        }
    }

    /// A registered payload type, so the bridge's typed decoding runs too.
    struct Registered: Codable, Sendable {
        var name: String
        var count: Int
        var tags: [String]?
    }

    static let registered: Void = { HubPayloadCodec.register(Registered.self) }()

    /// The Redis bridge's wire message: the versioned JSON event, then its data and context
    /// decoded as a receiving bridge does.
    static func redis(_ bytes: [UInt8]) {
        _ = registered
        guard let event = try? JSONDecoder().decode(HubWireEvent.self, from: Data(bytes)) else { return }
        _ = HubPayloadCodec.decode(event.data, type: event.dataType)
        _ = HubPayloadCodec.decode(event.context, type: event.contextType)
        _ = HubPayloadCodec.decode(event.data, type: HubPayloadCodec.typeName(Registered.self))
    }

    /// What a WebSocket server sends a client: the handshake answer, then frames read in chunks
    /// (sizes from the first byte) and joined into messages, as `WebSocketClient` reads them.
    /// A decoded frame must respect the limits the decoder was given.
    static func webSocket(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let chunk = 1 + Int(first % 32)
        let handshake = WebSocketHandshake(url: URL(fileURLWithPath: "/"), subprotocols: ["graphql-ws"], key: "dGhlIHNhbXBsZSBub25jZQ==")
        var stream = Array(bytes.dropFirst())
        if first & 0x80 != 0 {
            guard let response = try? handshake.parseResponse(stream) else { return }
            stream = response.remainder
        }
        var decoder = WebSocketFrameDecoder(maximumFrameSize: 4096, expectsMaskedFrames: first & 0x40 != 0)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: 8192)
        var index = 0
        while index < stream.count {
            let end = min(stream.count, index + chunk)
            decoder.append(stream[index..<end])
            index = end
            do {
                while let frame = try decoder.nextFrame() {
                    if frame.payload.count > 4096 { fatalError("the decoder returned a \(frame.payload.count)-byte frame over its 4096-byte limit") }
                    if case .text(let text) = try assembler.receive(frame), text.utf8.count > 8192 {
                        fatalError("the assembler returned a \(text.utf8.count)-byte message over its 8192-byte limit")
                    }
                }
            } catch {
                return  // A broken stream is refused; nothing more is read from it.
            }
        }
    }

    /// A decodable type with optional, nested and numeric members, as an app's model is.
    struct Model: Codable, Sendable, Equatable {
        var id: String
        var count: Int?
        var tags: [String]?
        var nested: [String: Double]?
    }

    /// AppSync's answers: a GraphQL response body and a real-time `data` message, decoded to
    /// raw JSON, to text and to a model, at a decode path picked by the first byte.
    static func appSync(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let path: String? =
            switch first % 4 {
            case 1: "getTodo"
            case 2: "a.b"
            case 3: "."
            default: nil
            }
        _ = try? GraphQLResponseDecoder.decode(rest, as: JSONValue.self, decodePath: path)
        _ = try? GraphQLResponseDecoder.decode(rest, as: String.self, decodePath: path)
        _ = try? GraphQLResponseDecoder.decode(rest, as: Model.self, decodePath: path)
        _ = try? GraphQLResponseDecoder.decodeDataMessage(rest, as: JSONValue.self, decodePath: path)
        _ = try? GraphQLResponseDecoder.decodeDataMessage(rest, as: Model.self, decodePath: path)
        // The span decoder must give what JSONDecoder gives wherever it decides.
        let spans = JSONSpans(rest)
        if let root = spans.root() {
            if let value = JSONSpanDecoder.decode(JSONValue.self, from: spans, at: root),
                value != (try? JSONDecoder().decode(JSONValue.self, from: Data(rest)))
            {
                fatalError(
                    "the span decoder read \(value), JSONDecoder \(String(describing: try? JSONDecoder().decode(JSONValue.self, from: Data(rest))))")
            }
            if let model = JSONSpanDecoder.decode(Model.self, from: spans, at: root),
                model != (try? JSONDecoder().decode(Model.self, from: Data(rest)))
            {
                fatalError("the span decoder read \(model), JSONDecoder another model")
            }
        }
        // The routing scan must agree with a full parse wherever both read the message.
        if let header = RealtimeMessageHeader(scanning: rest), let json = try? JSONValue(parsing: rest) {
            if json["type"]?.stringValue != header.type {
                fatalError("the header scan read type \(header.type), the parser \(String(describing: json["type"]))")
            }
            if let id = json["id"]?.stringValue, id != header.id {
                fatalError("the header scan read id \(String(describing: header.id)), the parser \(id)")
            }
        }
    }
}
