import AWSPluginsCore
import Foundation
import Testing

/// AWS's published Signature Version 4 test suite (a copy with its LICENSE and NOTICE is in
/// Vectors/): for every case, the canonical request, the string to sign and the Authorization
/// header must match AWS's to the byte.
@Suite("SigV4: AWS test suite")
struct SigV4TestSuiteTests {
    static let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Vectors/aws-sig-v4-test-suite/aws-sig-v4-test-suite")
    static let token =
        "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

    /// Errata of the suite, found by hashing variants of the request: the request its .sts and
    /// .authz were really made for.
    static let errata: [String: @Sendable (SignableRequest) -> SignableRequest] = [
        "post-x-www-form-urlencoded/post-x-www-form-urlencoded": { request in
            var variant = request
            variant.headers.removeAll { $0.name.lowercased() == "content-length" }
            return variant
        },
        "post-x-www-form-urlencoded-parameters/post-x-www-form-urlencoded-parameters": { request in
            var variant = request
            variant.headers.removeAll { $0.name.lowercased() == "content-length" }
            variant.setHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf8")
            return variant
        },
    ]

    static let cases: [String] = {
        let enumerator = FileManager.default.enumerator(atPath: suite.path)
        var names: [String] = []
        while let item = enumerator?.nextObject() as? String {
            if item.hasSuffix(".req") { names.append(String(item.dropLast(4))) }
        }
        return names.sorted()
    }()

    @Test("the suite is all there")
    func suiteIsPresent() {
        #expect(Self.cases.count == 31)
    }

    @Test("canonical request, string to sign and Authorization match AWS's", arguments: cases)
    func vector(_ name: String) throws {
        let base = Self.suite.appendingPathComponent(name)
        let raw = try String(contentsOf: base.appendingPathExtension("req"), encoding: .utf8)
        let (request, body) = try #require(RawRequest.parse(raw))
        let sessionToken = name.contains("post-sts") ? Self.token : nil
        var signer = SigV4Signer(
            credentials: AWSCredentials(
                accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: sessionToken),
            region: "us-east-1", service: "service")
        signer.signsSecurityToken = !name.hasSuffix("post-sts-header-after")
        let payload = SigV4Payload.bytes(Array(body.utf8))

        let (canonical, _) = signer.canonicalRequest(request, payloadHash: Digest256.hex(body))
        let expectedCanonical = try String(contentsOf: base.appendingPathExtension("creq"), encoding: .utf8)
        let expectedStringToSign = try String(contentsOf: base.appendingPathExtension("sts"), encoding: .utf8)
        let expectedAuthorization = try String(contentsOf: base.appendingPathExtension("authz"), encoding: .utf8)
        #expect(canonical == expectedCanonical)

        let timestamp = "20150830T123600Z"
        var signable = request
        if let erratum = Self.errata[name] {
            // The suite's .sts and .authz for this case were made for a slightly different
            // request than its .req and .creq; prove the files disagree, then sign that request.
            #expect(Digest256.hex(expectedCanonical) != expectedStringToSign.components(separatedBy: "\n").last)
            signable = erratum(request)
        }
        let (signedCanonical, _) = signer.canonicalRequest(signable, payloadHash: Digest256.hex(body))
        #expect(signer.stringToSign(canonicalRequest: signedCanonical, timestamp: timestamp) == expectedStringToSign)

        var signed = signable
        signer.sign(&signed, payload: payload, date: Date(timeIntervalSince1970: 1_440_938_160))
        let authorization = signed.header("Authorization") ?? ""
        #expect(authorization.components(separatedBy: "Signature=").last == expectedAuthorization.components(separatedBy: "Signature=").last)
        if name != "post-x-www-form-urlencoded-parameters/post-x-www-form-urlencoded-parameters" {
            // (That case's .authz even lists content-length among headers it did not sign.)
            #expect(authorization == expectedAuthorization)
        }
        if let sessionToken { #expect(signed.header("X-Amz-Security-Token") == sessionToken) }
    }
}

/// Splits the suite's raw HTTP requests (test data, not a production parser).
enum RawRequest {
    static func parse(_ text: String) -> (SignableRequest, String)? {
        let parts = text.components(separatedBy: "\n\n")
        var lines = parts[0].components(separatedBy: "\n")
        let body = parts.dropFirst().joined(separator: "\n\n")
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count >= 3 else { return nil }
        let target = requestLine.dropFirst().dropLast().joined(separator: " ")
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [(name: String, value: String)] = []
        if pathAndQuery.count == 2, !pathAndQuery[1].isEmpty {
            for pair in pathAndQuery[1].split(separator: "&") {
                let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append((URIEncoding.decode(String(nameAndValue[0])), nameAndValue.count > 1 ? URIEncoding.decode(String(nameAndValue[1])) : ""))
            }
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            if line.first == " " || line.first == "\t", let last = headers.last {
                // The suite reads a folded line as one more value of the same header.
                headers.append((last.name, line))
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
        }
        return (SignableRequest(method: String(requestLine[0]), path: String(pathAndQuery[0]), query: query, headers: headers), body)
    }
}
