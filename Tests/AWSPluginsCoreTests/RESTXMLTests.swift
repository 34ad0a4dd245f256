import AWSPluginsCore
import AmplifyEventLoop
import AmplifyTestKit
import Foundation
import Testing

@Suite("REST-XML: the XML reader, S3 errors, S3 addressing")
struct RESTXMLTests {
    @Test("a ListObjectsV2 answer reads into elements, children and texts, namespaces and entities handled")
    func readsListAnswer() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>photos</Name><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>
              <NextContinuationToken>abc&amp;def</NextContinuationToken>
              <Contents><Key>cats/a &lt;1&gt;.jpg</Key><Size>10</Size></Contents>
              <Contents><Key>cats/b.jpg</Key><Size>0</Size></Contents>
              <CommonPrefixes><Prefix>cats/kittens/</Prefix></CommonPrefixes>
            </ListBucketResult>
            """
        let root = try XMLElementTree.parse(Data(xml.utf8))
        #expect(root.name == "ListBucketResult")
        #expect(root.text.isEmpty)
        #expect(root.text(of: "NextContinuationToken") == "abc&def")
        #expect(root.children(named: "Contents").compactMap { $0.text(of: "Key") } == ["cats/a <1>.jpg", "cats/b.jpg"])
        #expect(root.children(named: "Contents").compactMap { $0.text(of: "Size") } == ["10", "0"])
        #expect(root.child("CommonPrefixes")?.text(of: "Prefix") == "cats/kittens/")
        #expect(root.child("Missing") == nil)
    }

    @Test("malformed XML is a MalformedXML error that names the line, not a crash")
    func malformed() {
        #expect {
            try XMLElementTree.parse(Data("<a>\n<b></a>".utf8))
        } throws: { error in
            guard let error = error as? AWSPluginsError else { return false }
            return error.code == "MalformedXML" && error.errorDescription.contains("line 2")
        }
        #expect(throws: AWSPluginsError.self) { try XMLElementTree.parse(Data()) }
    }

    @Test("an XML answer that is not UTF-8 (bytes 0xFF in an element name, found by the s3xml fuzzer) is MalformedXML, not a crash of the process")
    func notUTF8() {
        // Foundation's XMLParser traps on an element name that is not UTF-8.
        let hostile: [[UInt8]] = [
            Array("<a".utf8) + [0xFF] + Array(">x</a".utf8) + [0xFF, 0x3E],
            Array("<Error><Code>NoSuchKey</Code><LastModifie".utf8) + [0xFF, 0xFF, 0xFF] + Array(">1</LastModifie".utf8) + [0xFF, 0xFF, 0xFF, 0x3E]
                + Array("</Error>".utf8),
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a b".utf8) + [0xE9] + Array("=\"1\"/>".utf8),
        ]
        for bytes in hostile {
            #expect {
                try XMLElementTree.parse(Data(bytes))
            } throws: { error in
                guard let error = error as? AWSPluginsError else { return false }
                return error.code == "MalformedXML" && error.errorDescription.contains("UTF-8")
            }
            // The error reader falls back to the status's code.
            #expect(AWSXMLError.parse(status: 503, body: Data(bytes)).code == "SlowDown")
        }
    }

    @Test(
        "a processing instruction or a DTD in an XML answer (found by the s3xml fuzzer: an empty instruction or a notation crashes the parser) is MalformedXML, not a crash; the XML declaration, comments and CDATA still read"
    )
    func noProcessingInstructionsOrDTD() throws {
        let hostile = [
            "<?x?><a/>", "<?xml version=\"1.0\"?>\n<?x?><Error/>", "<Error><?pi data?></Error>",
            "<!DOCTYPE a [<!NOTATION n SYSTEM \"x\">]><a/>", "<!DOCTYPE a [<!ENTITY e SYSTEM \"x\" NDATA n>]><a/>",
            "<?xml version=\"1.0\"?><!DOCTYPE Error><Error><Code>x</Code></Error>",
            // Instructions whose target starts with "xml" are not the declaration (a 300 s run found the first).
            "<?xmlRules?>/Me", "<?xml-stylesheet?><a/>", "<?xml?><a/>",
            // A declaration left open, whose first `?>` belongs to an instruction after it.
            "<?xml vssoa><Ke<?CIi?>n",
        ]
        for text in hostile {
            #expect {
                try XMLElementTree.parse(Data(text.utf8))
            } throws: { error in
                (error as? AWSPluginsError)?.code == "MalformedXML"
            }
            #expect(AWSXMLError.parse(status: 404, body: Data(text.utf8)).code == "NotFound")
        }
        let plain = try XMLElementTree.parse(
            Data("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><!-- a note --><Code><![CDATA[NoSuchKey]]></Code></Error>".utf8))
        #expect(plain.text(of: "Code") == "NoSuchKey")
    }

    @Test("an S3 error body maps to its code, message and a recovery suggestion; a HEAD answer's code comes from its status")
    func errors() {
        let body = Data("<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>a</Key></Error>".utf8)
        let error = AWSXMLError.parse(status: 404, body: body)
        #expect(error.code == "NoSuchKey")
        #expect(error.errorDescription == "NoSuchKey: The specified key does not exist.")
        #expect(error.recoverySuggestion.contains("list the bucket"))
        #expect(error.httpStatus == 404)
        let query = AWSXMLError.parse(
            status: 400, body: Data("<ErrorResponse><Error><Code>Throttling</Code><Message>slow down</Message></Error></ErrorResponse>".utf8))
        #expect(query.code == "Throttling")
        #expect(query.recoverySuggestion.contains("retried"))
        #expect(AWSXMLError.parse(status: 404, body: Data()).code == "NotFound")
        #expect(AWSXMLError.parse(status: 403, body: Data()).code == "Forbidden")
        #expect(AWSXMLError.parse(status: 502, body: Data("<html>bad gateway</html>".utf8)).code == "HTTP502")
        // A JSON service behind a proxy or stand-in that answers in XML still gives the code.
        let signature = Data(
            "\n<ErrorResponse><Errors><Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error></Errors></ErrorResponse>".utf8)
        #expect(AWSJSONError.parse(status: 403, body: signature).code == "SignatureDoesNotMatch")
    }

    @Test("S3 uses virtual-hosted addresses against AWS and path style with an endpoint override or a dotted bucket")
    func addressing() throws {
        let aws = try S3Addressing(bucket: "photos", region: "eu-west-1", environment: [:])
        #expect(aws.endpoint.absoluteString == "https://photos.s3.eu-west-1.amazonaws.com")
        #expect(aws.objectPath("cats/my cat+1.jpg") == "/cats/my%20cat%2B1.jpg")
        #expect(aws.bucketPath == "/")
        let local = try S3Addressing(bucket: "photos", region: "us-east-1", configuredEndpoint: "http://127.0.0.1:5000", environment: [:])
        #expect(local.endpoint.absoluteString == "http://127.0.0.1:5000")
        #expect(local.objectPath("a/b") == "/photos/a/b")
        #expect(local.bucketPath == "/photos")
        let fromEnvironment = try S3Addressing(bucket: "photos", region: "us-east-1", environment: ["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000"])
        #expect(fromEnvironment.pathStyle)
        let dotted = try S3Addressing(bucket: "my.photos", region: "us-east-1", environment: [:])
        #expect(dotted.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com")
        #expect(dotted.objectPath("k") == "/my.photos/k")
    }

    @Test(
        "a bucket name S3 would refuse is rejected before any request",
        arguments: ["ab", "Photos", "-photos", "photos.", "pho_tos", String(repeating: "a", count: 64)])
    func invalidBucket(_ name: String) {
        #expect {
            try S3Addressing(bucket: name, region: "us-east-1", environment: [:])
        } throws: { ($0 as? AWSPluginsError)?.code == "InvalidBucketName" }
    }

    private func withClient(_ body: (AWSRESTClient, LocalHTTPServer) async throws -> Void) async throws {
        let server = try await LocalHTTPServer.start()
        defer { server.stop() }
        let loop = try EventLoop(name: "rest-test")
        let http = try HTTPClient(loop: loop)
        let client = AWSRESTClient(
            http: http, endpoint: server.url(""), region: "us-east-1",
            credentials: StaticCredentialsProvider(AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")),
            retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)))
        try await body(client, server)
        await http.shutdown()
        try loop.shutdown()
    }

    private func count(_ client: AWSRESTClient, _ key: String) async throws -> Int? {
        let response = try await client.send(AWSRESTRequest(method: "GET", path: "/rest/count", query: [("key", key)]))
        return try JSONDecoder().decode([String: Int].self, from: Data(response.body))["count"]
    }

    @Test("an S3 SlowDown (503) is retried with backoff until the object arrives")
    func retriesSlowDown() async throws {
        try await withClient { client, _ in
            let response = try await client.send(AWSRESTRequest(method: "GET", path: "/rest/flaky", query: [("key", "flaky-1")]))
            #expect(String(decoding: response.body, as: UTF8.self) == "object body after 3 attempts")
            #expect(try await count(client, "flaky-1") == 3)
        }
    }

    @Test("a 403 is sent once and arrives as AccessDenied; its body does not land in the response file")
    func clientErrorNotRetried() async throws {
        try await withClient { client, _ in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("rest-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            do {
                _ = try await client.send(AWSRESTRequest(method: "GET", path: "/rest/denied", query: [("key", "denied-1")], responseFile: file))
                Issue.record("the denied request succeeded")
            } catch let error as AWSPluginsError {
                #expect(error.code == "AccessDenied")
                #expect(error.httpStatus == 403)
            }
            #expect(try await count(client, "denied-1") == 1)
            #expect(FileManager.default.contents(atPath: file)?.isEmpty == true)
        }
    }
}
