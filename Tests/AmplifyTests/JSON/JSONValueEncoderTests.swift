import Amplify
import Foundation
import Testing

@Suite("JSON value encoder")
struct JSONValueEncoderTests {
    @Test("a decoded amplify_outputs.json encodes to the tree JSONEncoder's text parses back to")
    func sameTreeAsTheText() throws {
        let outputs = try AmplifyOutputsData(data: Data(contentsOf: Samples.url("amplify_outputs.json")))
        let direct = try JSONValueEncoder.encode(outputs)
        let throughText = try JSONValue(parsing: [UInt8](outputs.encodedJSON()))
        #expect(direct == throughText)
    }

    @Test("optionals left out, nested arrays and dictionaries, integers as numbers; a number that is not finite is refused")
    func shapes() throws {
        struct Sample: Encodable {
            let name: String
            let missing: String?
            let counts: [Int]
            let table: [String: [Bool]]
            let ratio: Double
        }
        let tree = try JSONValueEncoder.encode(Sample(name: "a", missing: nil, counts: [1, 2], table: ["x": [true]], ratio: 0.5))
        #expect(tree == ["name": "a", "counts": [1, 2], "table": ["x": [true]], "ratio": 0.5])
        #expect(throws: EncodingError.self) {
            _ = try JSONValueEncoder.encode(Sample(name: "a", missing: nil, counts: [], table: [:], ratio: .infinity))
        }
    }
}
