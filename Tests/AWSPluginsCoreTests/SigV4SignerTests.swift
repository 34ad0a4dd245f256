import AWSPluginsCore
import AmplifyCrypto
import Foundation
import Testing

/// Hex SHA-256 of a string, for expected payload hashes.
enum Digest256 {
    static func hex(_ text: String) -> String { Digest.hex(Digest.sha256(Array(text.utf8))) }
}

@Suite("SigV4 signer")
struct SigV4SignerTests {
    private let credentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    private let date = Date(timeIntervalSince1970: 1_440_938_160)

    @Test("S3 keeps the wire path as it is (no normalization, no second encoding) and signs x-amz-content-sha256")
    func s3Rules() {
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        var request = SignableRequest(method: "PUT", path: "/bucket/my%20folder//photo.png", headers: [("Host", "127.0.0.1:5000")])
        signer.sign(&request, payload: .unsigned, date: date)
        let (canonical, signedHeaders) = signer.canonicalRequest(request, payloadHash: "UNSIGNED-PAYLOAD")
        #expect(canonical.components(separatedBy: "\n")[1] == "/bucket/my%20folder//photo.png")
        #expect(signedHeaders == "host;x-amz-content-sha256;x-amz-date")
        #expect(request.header("x-amz-content-sha256") == "UNSIGNED-PAYLOAD")
        let standard = SigV4Signer(credentials: credentials, region: "us-east-1", service: "service")
        #expect(standard.canonicalRequest(request, payloadHash: "").0.components(separatedBy: "\n")[1] == "/bucket/my%2520folder/photo.png")
    }

    @Test("a presigned URL carries the algorithm, credential scope, expiry, token and a signature over them")
    func presign() {
        let temporary = AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token/+=")
        let signer = SigV4Signer(credentials: temporary, region: "eu-west-1", service: "s3")
        let request = SignableRequest(method: "GET", path: "/bucket/key", headers: [("host", "bucket.s3.amazonaws.com")])
        let query = signer.presign(request, expires: 900, date: date)
        let names = query.map(\.name)
        #expect(
            names == [
                "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Security-Token",
                "X-Amz-Signature",
            ])
        #expect(query[1].value == "ASIAEXAMPLE/20150830/eu-west-1/s3/aws4_request")
        #expect(query[3].value == "900")
        #expect(query[4].value == "host")
        let signature = query[6].value
        #expect(signature.count == 64)
        // The signature covers every other parameter: recomputing it over them gives the same.
        var unsigned = request
        unsigned.query = Array(query.dropLast())
        let (canonical, _) = signer.canonicalRequest(unsigned, payloadHash: "UNSIGNED-PAYLOAD")
        #expect(signer.signature(canonicalRequest: canonical, timestamp: "20150830T123600Z") == signature)
        #expect(signer.presign(request, expires: 10_000_000, date: date)[3].value == "604800")
    }

    @Test("the presigned GET of AWS's S3 documentation example gets its published signature (botocore computes the same)")
    func presignKnownAnswer() {
        let keys = AWSCredentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let signer = SigV4Signer(credentials: keys, region: "us-east-1", service: "s3")
        let request = SignableRequest(method: "GET", path: "/test.txt", headers: [("Host", "examplebucket.s3.amazonaws.com")])
        let query = signer.presign(request, expires: 86_400, date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(query.first { $0.name == "X-Amz-Date" }?.value == "20130524T000000Z")
        #expect(query.last?.name == "X-Amz-Signature")
        #expect(query.last?.value == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test("credentials never print their secret or token")
    func redactedDescription() {
        let temporary = AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "very-secret", sessionToken: "session-token")
        #expect(!"\(temporary)".contains("very-secret"))
        #expect(!"\(temporary)".contains("session-token"))
        #expect("\(temporary)".contains("ASIAEXAMPLE"))
    }

    @Test("percent-encoding keeps only the unreserved characters, and decoding undoes it")
    func uriEncoding() {
        #expect(URIEncoding.encode("a b/c~d*é") == "a%20b%2Fc~d%2A%C3%A9")
        #expect(URIEncoding.encode("/a b/", keepingSlashes: true) == "/a%20b/")
        #expect(URIEncoding.decode("a%20b%2Fc%C3%A9%zz") == "a b/cé%zz")
    }
}
