import AmplifyTestKit
import Foundation
import Testing

/// No password, code, token, key or signature reaches a log line at any level: the peer
/// (Tests/LogSecrecyPeer) captures every swift-log record at trace with Amplify at verbose while
/// it drives the local pool, SigV4-signed requests and moto's Cognito, and prints what it used.
@Suite("Logs keep secrets out")
struct LogSecrecyTests {
    @Test("passwords, codes, tokens, client secrets, AWS keys and signatures never appear in a log record, at any level", .timeLimit(.minutes(10)))
    func noSecretInAnyLogRecord() async throws {
        let (status, stdout, stderr) = try await Self.runPeer()
        #expect(status == 0, "\(stderr.suffix(2000))")
        let lines = stdout.split(separator: "\n").map(String.init)
        let secrets = Set(lines.filter { $0.hasPrefix("SECRET ") }.map { String($0.dropFirst(7)) })
        let records = lines.filter { $0.hasPrefix("LOG ") }.map { String($0.dropFirst(4)) }
        // The run used what it should have: passwords, codes, local and Cognito tokens, keys, signatures.
        #expect(secrets.count >= 25, "\(secrets.count) secrets")
        // The logs were on, at every level, for every part the run went through.
        #expect(records.count >= 50, "\(records.count) records")
        for level in ["trace", "debug", "info"] {
            #expect(records.contains { $0.split(separator: " ").dropFirst().first.map(String.init) == level }, "no \(level) record")
        }
        for label in ["amplify.auth", "amplify.aws", "amplify.http"] {
            #expect(records.contains { $0.hasPrefix(label + " ") }, "no \(label) record")
        }
        #expect(records.contains { $0.contains("operation=signIn") && $0.contains("plugin=localAuthPlugin") })
        #expect(records.contains { $0.contains("operation=signIn") && $0.contains("plugin=awsCognitoAuthPlugin") })
        #expect(records.contains { $0.contains("operation=InitiateAuth") && $0.contains("request-id=") })
        #expect(records.contains { $0.contains("operation=refresh") })
        for secret in secrets {
            let leaks = records.filter { Self.contains($0, word: secret) }
            #expect(leaks.isEmpty, "a secret reached \(leaks.count) log record(s), e.g. \(leaks.first ?? "")")
        }
    }

    /// Runs the peer without holding one of the test pool's threads while it works: its output
    /// goes to files, its end is polled.
    static func runPeer() async throws -> (Int32, String, String) {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("log-secrecy-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout")
        let errPath = folder.appendingPathComponent("stderr")
        try Data().write(to: outPath)
        try Data().write(to: errPath)
        let out = try FileHandle(forWritingTo: outPath)
        let err = try FileHandle(forWritingTo: errPath)
        let process = Process()
        process.executableURL = ProductRunner.url(of: "LogSecrecyPeer")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "AMPLIFY_LOG_LEVEL")
        process.environment = environment
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.runSerialized()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        try out.close()
        try err.close()
        let stdout = String(decoding: try Data(contentsOf: outPath), as: UTF8.self)
        let stderr = String(decoding: try Data(contentsOf: errPath), as: UTF8.self)
        return (process.terminationStatus, stdout, stderr)
    }

    /// Whether `secret` occurs in `line` with no letter or digit right before or after it (a
    /// six-digit code is not "found" inside a longer number).
    static func contains(_ line: String, word secret: String) -> Bool {
        var searchRange = line.startIndex..<line.endIndex
        while let found = line.range(of: secret, range: searchRange) {
            let before = found.lowerBound > line.startIndex ? line[line.index(before: found.lowerBound)] : " "
            let after = found.upperBound < line.endIndex ? line[found.upperBound] : " "
            if !(before.isLetter || before.isNumber) && !(after.isLetter || after.isNumber) { return true }
            searchRange = found.upperBound..<line.endIndex
        }
        return false
    }
}
