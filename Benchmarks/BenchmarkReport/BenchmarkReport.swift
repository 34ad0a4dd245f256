import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What one benchmark run measured: each figure of ours beside the limit it is measured against
/// in the same run, and each goal with PASS or MISS.
///
/// The text report goes to standard output as it is printed. With `--json` on the command line
/// the text goes to standard error instead, and ``finish()`` writes one JSON document (the
/// figures, their limits and ratios, the goals) to standard output, so runs can be compared by
/// a script. Used from a benchmark's top-level code only.
package struct BenchmarkReport {
    /// One measured figure.
    package struct Figure: Codable, Sendable {
        /// What was measured.
        package var name: String
        /// Ours.
        package var value: Double
        /// The unit of `value` and `limit`.
        package var unit: String
        /// What `limit` is (`"C floor"`, `"cp + sync"`, …), when there is one.
        package var limitName: String?
        /// The limit's figure in the same run.
        package var limit: Double?
        /// `value ÷ limit`.
        package var ratio: Double?
        /// Whether a higher `value` is better.
        package var higherIsBetter: Bool
    }

    /// One goal and whether this run met it.
    package struct Goal: Codable, Sendable {
        /// The goal, in words.
        package var goal: String
        /// Whether the run met it.
        package var pass: Bool
    }

    private struct Document: Codable {
        var benchmark: String
        var quick: Bool
        var cores: Int
        var date: String
        var figures: [Figure]
        var goals: [Goal]
    }

    /// Whether `--json` was given.
    package let json: Bool
    private let name: String
    private let quick: Bool
    private let jsonOutput: Int32
    /// The figures so far.
    package private(set) var figures: [Figure] = []
    /// The goals so far.
    package private(set) var goals: [Goal] = []

    /// Starts the report of benchmark `name`; with `--json` in `arguments`, standard output is
    /// moved to standard error until ``finish()``.
    package init(_ name: String, arguments: [String] = CommandLine.arguments) {
        self.name = name
        json = arguments.contains("--json")
        quick = arguments.contains("--quick")
        if json {
            fflush(nil)
            jsonOutput = dup(STDOUT_FILENO)
            dup2(STDERR_FILENO, STDOUT_FILENO)
        } else {
            jsonOutput = -1
        }
    }

    /// Records a figure of ours, and the limit it is measured against when there is one.
    package mutating func figure(
        _ name: String, _ value: Double, unit: String, limit: Double? = nil, limitName: String? = nil, higherIsBetter: Bool = true
    ) {
        let ratio = limit.flatMap { $0 == 0 ? nil : value / $0 }
        figures.append(Figure(name: name, value: value, unit: unit, limitName: limitName, limit: limit, ratio: ratio, higherIsBetter: higherIsBetter))
    }

    /// Records a goal and prints `PASS goal` or `MISS goal`; returns `pass`.
    @discardableResult
    package mutating func goal(_ goal: String, _ pass: Bool) -> Bool {
        goals.append(Goal(goal: goal, pass: pass))
        print("\(pass ? "PASS" : "MISS") \(goal)")
        return pass
    }

    /// With `--json`, writes the JSON document to the original standard output.
    package func finish() {
        fflush(nil)
        guard json else { return }
        let formatter = ISO8601DateFormatter()
        let document = Document(
            benchmark: name, quick: quick, cores: ProcessInfo.processInfo.activeProcessorCount, date: formatter.string(from: Date()),
            figures: figures, goals: goals)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return }
        let bytes = Array(data) + [UInt8(ascii: "\n")]
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(jsonOutput, $0.baseAddress, $0.count) }
            guard result > 0 else { return }
            written += result
        }
    }
}

/// A benchmark that cannot go on: what went wrong.
package struct BenchmarkError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// CPU seconds (user + system) of this process.
package func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Resident bytes of this process (`/proc/self/statm`).
package func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
