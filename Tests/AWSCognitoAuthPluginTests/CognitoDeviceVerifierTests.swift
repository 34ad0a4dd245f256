import AWSCognitoAuthPlugin
import Amplify
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import Testing

@Suite("The ConfirmDevice verifier: known answers from an independent implementation")
struct CognitoDeviceVerifierTests {
    static func cases() throws -> [JSONValue] {
        let data = try Data(contentsOf: CognitoSRPTests.vectorsURL.appendingPathComponent("device_vectors.json"))
        return try #require(JSONDecoder().decode(JSONValue.self, from: data)["cases"]?.asArray)
    }

    @Test("Every vector's PasswordVerifier and Salt match the Python implementation's (a salt with its top bit set gains a zero byte)")
    func knownAnswers() throws {
        let cases = try Self.cases()
        #expect(cases.count == 2)
        for vector in cases {
            let name = vector["name"]?.stringValue ?? "?"
            let verifier = try CognitoDeviceVerifier.make(
                deviceGroupKey: try #require(vector["deviceGroupKey"]?.stringValue), deviceKey: try #require(vector["deviceKey"]?.stringValue),
                password: try #require(vector["password"]?.stringValue), salt: try BigNumber(hex: try #require(vector["salt"]?.stringValue)).bytes)
            #expect(verifier.passwordVerifier == vector["expected"]?["passwordVerifier"]?.stringValue, "verifier of \(name)")
            #expect(verifier.salt == vector["expected"]?["salt"]?.stringValue, "salt of \(name)")
        }
    }

    @Test("The DEVICE_PASSWORD_VERIFIER claim's A, u, x, S, key and signature match the Python implementation's")
    func deviceClaimKnownAnswers() throws {
        let data = try Data(contentsOf: CognitoSRPTests.vectorsURL.appendingPathComponent("device_vectors.json"))
        let claims = try #require(JSONDecoder().decode(JSONValue.self, from: data)["claims"]?.asArray)
        #expect(claims.count == 1)
        for vector in claims {
            let ephemeral = try CognitoSRP.start(privateValue: try BigNumber(hex: try #require(vector["a"]?.stringValue)).bytes)
            let expected = try #require(vector["expected"])
            #expect(ephemeral.publicValueHex == expected["A"]?.stringValue)
            let claim = try CognitoSRP.deviceClaim(
                deviceGroupKey: try #require(vector["deviceGroupKey"]?.stringValue), deviceKey: try #require(vector["deviceKey"]?.stringValue),
                devicePassword: try #require(vector["password"]?.stringValue), ephemeral: ephemeral,
                saltHex: try #require(vector["salt"]?.stringValue), serverPublicHex: try #require(vector["B"]?.stringValue),
                secretBlock: try #require(vector["secretBlock"]?.stringValue), timestamp: try #require(vector["timestamp"]?.stringValue))
            #expect(claim.u == expected["u"]?.stringValue)
            #expect(claim.x == expected["x"]?.stringValue)
            #expect(claim.sharedSecret == expected["S"]?.stringValue)
            #expect(claim.key == expected["key"]?.stringValue)
            #expect(claim.signature == expected["claim"]?.stringValue)
        }
    }

    @Test("The vector file is what device_vectors.py computes today")
    func vectorsAreReproducible() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", CognitoSRPTests.vectorsURL.appendingPathComponent("device_vectors.py").path]
        let output = Pipe()
        process.standardOutput = output
        try process.runSerialized()
        let reading = output.fileHandleForReading
        let produced = try await offThePool { reading.readDataToEndOfFile() }
        await process.exited()
        #expect(process.terminationStatus == 0)
        let stored = try Data(contentsOf: CognitoSRPTests.vectorsURL.appendingPathComponent("device_vectors.json"))
        #expect(try JSONDecoder().decode(JSONValue.self, from: produced) == JSONDecoder().decode(JSONValue.self, from: stored))
    }

    @Test("A fresh verifier has a 40-byte random password and a new salt each time")
    func freshVerifiers() throws {
        let one = try CognitoDeviceVerifier.make(deviceGroupKey: "-g", deviceKey: "us-east-1_d")
        let two = try CognitoDeviceVerifier.make(deviceGroupKey: "-g", deviceKey: "us-east-1_d")
        #expect(Data(base64Encoded: one.password)?.count == 40)
        #expect(one.password != two.password && one.salt != two.salt && one.passwordVerifier != two.passwordVerifier)
    }
}
