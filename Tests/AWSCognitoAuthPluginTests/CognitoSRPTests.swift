import AWSCognitoAuthPlugin
import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import Testing

@Suite("SRP for USER_SRP_AUTH: known answers from an independent implementation")
struct CognitoSRPTests {
    static let vectorsURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func cases() throws -> [JSONValue] {
        let data = try Data(contentsOf: vectorsURL.appendingPathComponent("srp_vectors.json"))
        return try #require(JSONDecoder().decode(JSONValue.self, from: data)["cases"]?.asArray)
    }

    @Test("Every vector's A, k, u, x, S, HKDF key and claim signature match the Python implementation's")
    func knownAnswers() throws {
        let cases = try Self.cases()
        #expect(cases.count == 4)
        for vector in cases {
            let name = vector["name"]?.stringValue ?? "?"
            let a = try BigNumber(hex: try #require(vector["a"]?.stringValue)).bytes
            let ephemeral = try CognitoSRP.start(privateValue: a)
            let expected = try #require(vector["expected"])
            #expect(ephemeral.publicValueHex == expected["A"]?.stringValue, "A of \(name)")
            let claim = try CognitoSRP.passwordClaim(
                poolId: try #require(vector["poolId"]?.stringValue), userIdForSRP: try #require(vector["userIdForSrp"]?.stringValue),
                password: try #require(vector["password"]?.stringValue), ephemeral: ephemeral,
                saltHex: try #require(vector["salt"]?.stringValue), serverPublicHex: try #require(vector["B"]?.stringValue),
                secretBlock: try #require(vector["secretBlock"]?.stringValue), timestamp: try #require(vector["timestamp"]?.stringValue))
            #expect(claim.k == expected["k"]?.stringValue, "k of \(name)")
            #expect(claim.u == expected["u"]?.stringValue, "u of \(name)")
            #expect(claim.x == expected["x"]?.stringValue, "x of \(name)")
            #expect(claim.sharedSecret == expected["S"]?.stringValue, "S of \(name)")
            #expect(claim.key == expected["key"]?.stringValue, "key of \(name)")
            #expect(claim.signature == expected["claim"]?.stringValue, "claim of \(name)")
        }
    }

    @Test("The vector file is what srp_vectors.py computes today")
    func vectorsAreReproducible() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.vectorsURL.appendingPathComponent("srp_vectors.py").path]
        let output = Pipe()
        process.standardOutput = output
        try process.runSerialized()
        let reading = output.fileHandleForReading
        let produced = try await offThePool { reading.readDataToEndOfFile() }
        await process.exited()
        #expect(process.terminationStatus == 0)
        let stored = try Data(contentsOf: Self.vectorsURL.appendingPathComponent("srp_vectors.json"))
        #expect(try JSONDecoder().decode(JSONValue.self, from: produced) == JSONDecoder().decode(JSONValue.self, from: stored))
    }

    @Test("A wrong password, salt or secret block changes the signature")
    func inputsMatter() throws {
        let vector = try #require(Self.cases().first)
        let ephemeral = try CognitoSRP.start(privateValue: try BigNumber(hex: try #require(vector["a"]?.stringValue)).bytes)
        func claim(password: String = "Secr3t!pass", salt: String = "3f1c5e2a9b7d4e6f8a0b1c2d3e4f5a6b", block: String? = nil) throws -> String {
            try CognitoSRP.passwordClaim(
                poolId: "us-east-1_AbCdEfGhI", userIdForSRP: "alice", password: password, ephemeral: ephemeral, saltHex: salt,
                serverPublicHex: try #require(vector["B"]?.stringValue), secretBlock: block ?? (try #require(vector["secretBlock"]?.stringValue)),
                timestamp: "Mon Nov 30 20:00:00 UTC 2026"
            ).signature
        }
        let right = try claim()
        #expect(right == vector["expected"]?["claim"]?.stringValue)
        #expect(try claim(password: "Secr3t!pasS") != right)
        #expect(try claim(salt: "3f1c5e2a9b7d4e6f8a0b1c2d3e4f5a6c") != right)
        #expect(try claim(block: "AAAA") != right)
    }

    @Test("A hostile B (0 or N), a malformed pool id or secret block is an error, not a crash")
    func hostileChallengesRefused() throws {
        let ephemeral = try CognitoSRP.start()
        func attempt(poolId: String = "us-east-1_x", b: String = "02", block: String = "AAAA") throws {
            _ = try CognitoSRP.passwordClaim(
                poolId: poolId, userIdForSRP: "u", password: "p", ephemeral: ephemeral, saltHex: "01",
                serverPublicHex: b, secretBlock: block, timestamp: "Mon Nov 30 20:00:00 UTC 2026")
        }
        #expect(throws: CryptoError.self) { try attempt(b: "0") }
        #expect(throws: CryptoError.self) { try attempt(b: "00") }
        #expect(throws: CryptoError.self) { try attempt(b: "not-hex") }
        #expect(throws: CryptoError.self) { try attempt(poolId: "nounderscore") }
        #expect(throws: CryptoError.self) { try attempt(block: "A") }
        try attempt()
    }

    @Test("TIMESTAMP is English, UTC, with an unpadded day")
    func timestampFormat() {
        #expect(CognitoSRP.timestamp(Date(timeIntervalSince1970: 1_796_115_907)) == "Tue Dec 1 09:05:07 UTC 2026")
        #expect(CognitoSRP.timestamp(Date(timeIntervalSince1970: 946_684_800)) == "Sat Jan 1 00:00:00 UTC 2000")
        #expect(CognitoSRP.timestamp(Date(timeIntervalSince1970: 1_796_068_800)) == "Mon Nov 30 20:00:00 UTC 2026")
    }
}
