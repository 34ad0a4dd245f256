import Amplify
import Foundation
import Testing

@Suite("Temporal: AppSync's AWSDate, AWSTime and AWSDateTime")
struct TemporalTests {
    @Test(
        "an AWSDateTime reads every form AppSync writes and keeps its zone when written back",
        arguments: [
            ("2024-05-01T13:45:30.250Z", "2024-05-01T13:45:30.250Z", 1_714_571_130.25),
            ("2024-05-01T13:45:30Z", "2024-05-01T13:45:30.000Z", 1_714_571_130),
            ("2024-05-01T13:45Z", "2024-05-01T13:45:00.000Z", 1_714_571_100),
            ("2024-05-01T13:45:30.123456789Z", "2024-05-01T13:45:30.123Z", 1_714_571_130.123456789),
            ("2024-05-01T15:45:30.5+02:00", "2024-05-01T15:45:30.500+02:00", 1_714_571_130.5),
            ("2024-05-01T08:15:30-0530", "2024-05-01T08:15:30.000-05:30", 1_714_571_130),
            ("2024-05-01T14:45:30+01", "2024-05-01T14:45:30.000+01:00", 1_714_571_130),
            ("2024-05-01T13:45:30", "2024-05-01T13:45:30.000Z", 1_714_571_130),
            ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z", -0.001),
        ])
    func dateTimeForms(text: String, written: String, epoch: Double) throws {
        let value = try Temporal.DateTime(iso8601String: text)
        #expect(abs(value.foundationDate.timeIntervalSince1970 - epoch) < 1e-6)
        #expect(value.iso8601String == written)
    }

    @Test(
        "text that is not a date or time is refused with an error that quotes it and shows the form",
        arguments: [
            "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z",
            "2024-05-01 12:00:00Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00.1234567890Z", "2024-05-01T12:00:00+25:00",
            "24-05-01T12:00:00Z", "", "2024-05-01T12:00:00Zjunk",
        ])
    func invalidDateTimes(text: String) {
        #expect {
            try Temporal.DateTime(iso8601String: text)
        } throws: { error in
            guard let error = error as? DataStoreError, case .decodingError(let description, let suggestion) = error else { return false }
            return description.contains("\"\(text)\"") && suggestion.contains("2024-05-01T13:45:30.250Z")
        }
    }

    @Test("an AWSDate is the date as written, with or without a zone; an AWSTime is moved to UTC")
    func datesAndTimes() throws {
        #expect(try Temporal.Date(iso8601String: "2024-02-29").iso8601String == "2024-02-29Z")
        #expect(try Temporal.Date(iso8601String: "2024-02-29+05:00").iso8601String == "2024-02-29Z")
        #expect(try Temporal.Date(iso8601String: "2024-02-29").iso8601FormattedString(format: .short) == "2024-02-29")
        #expect(throws: DataStoreError.self) { try Temporal.Date(iso8601String: "2023-02-29") }
        #expect(try Temporal.Time(iso8601String: "13:45").iso8601String == "13:45:00.000Z")
        #expect(try Temporal.Time(iso8601String: "13:45:30.25+02:00").iso8601String == "11:45:30.250Z")
        #expect(try Temporal.Time(iso8601String: "13:45:30").iso8601FormattedString(format: .medium) == "13:45:30")
        #expect(throws: DataStoreError.self) { try Temporal.Time(iso8601String: "1:45") }
    }

    @Test("reading with a format accepts exactly that format's parts")
    func readingWithAFormat() throws {
        #expect(throws: Never.self) { try Temporal.DateTime(iso8601String: "2024-05-01T13:45", format: .short) }
        #expect(throws: Never.self) { try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30Z", format: .long) }
        #expect(throws: Never.self) { try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30.250Z", format: .full) }
        #expect(throws: DataStoreError.self) { try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30Z", format: .full) }
        #expect(throws: DataStoreError.self) { try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30.250Z", format: .medium) }
    }

    @Test("values compare and hash by their instant to the millisecond, whatever zone they are written in")
    func comparison() throws {
        let utc = try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30.250Z")
        let paris = try Temporal.DateTime(iso8601String: "2024-05-01T15:45:30.250+02:00")
        #expect(utc == paris)
        #expect(Set([utc, paris]).count == 1)
        #expect(try Temporal.DateTime(iso8601String: "2024-05-01T13:45:30.251Z") > utc)
        #expect(try Temporal.Date(iso8601String: "2024-01-01") < Temporal.Date(iso8601String: "2024-01-02"))
    }

    @Test("adding months keeps the day or takes the month's last; days, weeks, years and time units add as expected")
    func arithmetic() throws {
        let endOfJanuary = try Temporal.Date(iso8601String: "2024-01-31")
        #expect((endOfJanuary + .oneMonth).iso8601String == "2024-02-29Z")
        #expect((endOfJanuary + .months(13)).iso8601String == "2025-02-28Z")
        #expect((endOfJanuary - .months(2)).iso8601String == "2023-11-30Z")
        #expect((endOfJanuary + .weeks(1)).iso8601String == "2024-02-07Z")
        #expect((endOfJanuary - .oneYear).iso8601String == "2023-01-31Z")
        let dateTime = try Temporal.DateTime(iso8601String: "2024-03-31T23:30:00.000+02:00")
        #expect((dateTime + .oneMonth).iso8601String == "2024-04-30T23:30:00.000+02:00")
        #expect((dateTime + .hours(1)).iso8601String == "2024-04-01T00:30:00.000+02:00")
        #expect((dateTime - .milliseconds(1)).iso8601String == "2024-03-31T23:29:59.999+02:00")
        let time = try Temporal.Time(iso8601String: "23:30:00Z")
        #expect((time + .oneHour).iso8601String == "00:30:00.000Z")
    }

    @Test("a value decodes from and encodes to its text in JSON; a bad one is a DecodingError at its place")
    func codable() throws {
        struct Holder: Codable {
            let at: Temporal.DateTime
            let on: Temporal.Date
        }
        let holder = try JSONDecoder().decode(Holder.self, from: Data(#"{"at":"2024-05-01T13:45:30.250Z","on":"2024-05-01"}"#.utf8))
        #expect(holder.at.iso8601String == "2024-05-01T13:45:30.250Z")
        let text = String(decoding: try JSONEncoder().encode(holder), as: UTF8.self)
        #expect(text.contains(#""on":"2024-05-01Z""#))
        #expect {
            try JSONDecoder().decode(Holder.self, from: Data(#"{"at":"yesterday","on":"2024-05-01"}"#.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["at"] && context.debugDescription.contains("\"yesterday\"")
        }
    }
}
