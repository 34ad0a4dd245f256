import Foundation
import Testing

@testable import AmplifyFuzz

/// Every committed corpus input — the seeds, and each input a fuzzer found that crashed once —
/// runs through its harness in the ordinary test run, so a fixed crash stays fixed without the
/// fuzzer.
@Suite("Fuzz corpora replay without a crash")
struct FuzzCorpusTests {
    static let corpora = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test("each harness has a seed corpus, and every input in it runs through the harness", arguments: FuzzHarnesses.all.keys.sorted())
    func replay(_ name: String) throws {
        let harness = try #require(FuzzHarnesses.all[name])
        let files = FuzzCorpus.files(at: Self.corpora.appendingPathComponent(name))
        #expect(files.count >= 3, "\(name) has \(files.count) seed inputs")
        for file in files {
            harness(Array(try Data(contentsOf: file)))
        }
    }
}
