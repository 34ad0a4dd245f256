import AmplifyAnalyticsCore
import Foundation
import Testing

@Suite("Analytics records as the queue stores them")
struct AnalyticsRecordEncodingTests {
    @Test("the stored body reads back as the same record, whatever its strings and numbers")
    func storedBodyRoundTrips() throws {
        let strange = "quote \" backslash \\ slash / newline \n tab \t bell \u{07} nul \u{0} é 日本 🎉 \u{7F}"
        let records = [
            AnalyticsRecord(
                name: "orderPlaced", timestamp: 1_764_512_345.678, attributes: ["region": "eu-west-1", "express": "true"],
                metrics: ["total": 59.5, "seq": 12], userId: "u-42"),
            AnalyticsRecord(
                name: strange, timestamp: 0, attributes: [strange: strange, "": ""],
                metrics: ["tiny": 1e-7, "huge": 1e300, "negative zero": -0.0, "min": -Double.greatestFiniteMagnitude, strange: 3]),
            AnalyticsRecord(name: "", timestamp: 1e-9),
        ]
        for record in records {
            let body = try #require(record.storedBody())
            #expect(try JSONDecoder().decode(AnalyticsRecord.self, from: Data(body)) == record)
            #expect(try JSONSerialization.jsonObject(with: Data(body)) is [String: Any])
        }
    }

    @Test("a number JSON cannot write is refused, as JSONEncoder refuses it")
    func nonFiniteRefused() {
        #expect(AnalyticsRecord(name: "x", timestamp: .nan).storedBody() == nil)
        #expect(AnalyticsRecord(name: "x", timestamp: 1, metrics: ["m": .infinity]).storedBody() == nil)
        #expect((try? JSONEncoder().encode(AnalyticsRecord(name: "x", timestamp: 1, metrics: ["m": .infinity]))) == nil)
    }
}
