/// What a receiver knows of each sender's sequence numbers, and what an event's number means:
/// the next one, a repeat, or the next after a gap. A sender's first event sets where it starts
/// (a receiver cannot know what a sender sent before it first heard of it).
struct SenderSequences {
    /// What an event's sequence number means.
    enum Verdict: Equatable {
        /// The sender's next event (or its first).
        case next
        /// A number already seen (or older): a duplicate, dropped.
        case duplicate
        /// `missed` events were lost before this one, which is delivered.
        case gap(missed: Int)
    }

    /// The numbers a sender can send: from 1, within what a JSON number carries exactly.
    static let valid: ClosedRange<Int> = 1...(1 << 53)

    private var last: [String: Int] = [:]

    /// Reads `sequence` from `origin` and remembers it unless it is a duplicate; `nil` for a
    /// number no sender sends (outside ``valid``), which the caller drops.
    mutating func receive(_ sequence: Int, from origin: String) -> Verdict? {
        guard Self.valid.contains(sequence) else { return nil }
        guard let previous = last[origin] else {
            last[origin] = sequence
            return .next
        }
        guard sequence > previous else { return .duplicate }
        last[origin] = sequence
        return sequence == previous + 1 ? .next : .gap(missed: sequence - previous - 1)
    }

    /// How many senders it has heard from.
    var senderCount: Int { last.count }
}
