import Amplify
import Foundation

extension AnalyticsRecord {
    /// The record as the queue stores it: the JSON `JSONEncoder` would write for it (members in
    /// another order, `/` not escaped), written directly: the encoder's reflection over the
    /// record cost more than SQLite's insert. `nil` when a number is not finite (JSON has no
    /// way to write it; `JSONEncoder` refuses it too).
    package func storedBody() -> [UInt8]? {
        guard timestamp.isFinite, metrics.values.allSatisfy(\.isFinite) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(96 + name.utf8.count + attributes.count * 32 + metrics.count * 24)
        out.append(contentsOf: #"{"name":"#.utf8)
        Self.appendString(name, to: &out)
        out.append(contentsOf: #","timestamp":"#.utf8)
        out.append(contentsOf: timestamp.description.utf8)
        out.append(contentsOf: #","attributes":{"#.utf8)
        var first = true
        for (key, value) in attributes {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            Self.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            Self.appendString(value, to: &out)
        }
        out.append(contentsOf: #"},"metrics":{"#.utf8)
        first = true
        for (key, value) in metrics {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            Self.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: value.description.utf8)
        }
        out.append(UInt8(ascii: "}"))
        if let userId {
            out.append(contentsOf: #","userId":"#.utf8)
            Self.appendString(userId, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `text` as a JSON string, written as `JSONValue`'s own writer writes one.
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        JSONValue.writeString(text, into: &out)
    }
}
