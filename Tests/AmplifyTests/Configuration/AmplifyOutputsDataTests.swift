import Amplify
import Foundation
import Testing

/// `AmplifyOutputsData`: the decoded Gen 2 file, and configuring from it.
@Suite("AmplifyOutputsData")
struct AmplifyOutputsDataTests {
    private func fixture(_ name: String) -> URL { ConfigurationShapeTests.fixtures.appendingPathComponent(name) }

    @Test("a version 1.4 file decodes every field: auth with groups and passwordless, buckets with paths, data, geo, custom")
    func decodesVersion14() throws {
        let outputs = try AmplifyOutputs.file(fixture("amplify_outputs-v1.4.json")).resolveConfiguration()
        #expect(outputs.version == "1.4")
        let auth = try #require(outputs.auth)
        #expect(auth.userPoolId == "us-east-1_GenTwoV14")
        #expect(auth.mfaMethods == ["TOTP", "EMAIL"])
        #expect(auth.usernameAttributes == [.email])
        #expect(auth.standardRequiredAttributes == [.email])
        #expect(auth.groups?.first?["ADMINS"]?.precedence == 0)
        #expect(auth.passwordless?.webAuthn?.relyingPartyId == "example.com")
        #expect(auth.passwordless?.preferredChallenge == "EMAIL_OTP")
        #expect(auth.oauth?.redirectSignInUri.count == 2)
        #expect(auth.passwordPolicy?.minLength == 10)
        let storage = try #require(outputs.storage)
        #expect(storage.bucketName == "gentwo-photos-bucket")
        #expect(storage.buckets?.map(\.name) == ["photos", "reports"])
        #expect(storage.buckets?.first?.paths?["admin/*"]?["groupsADMINS"] == ["get", "list", "write", "delete"])
        #expect(outputs.data?.defaultAuthorizationType == .amazonCognitoUserPools)
        #expect(outputs.data?.authorizationTypes == [.awsIAM])
        #expect(outputs.geo?.maps?.default == "map1")
        #expect(outputs.custom?.value(at: "featureFlags.beta") == true)
    }

    @Test("a version 1.5 identity-pool-only file decodes, with notifications.amazon_connect")
    func decodesVersion15() throws {
        let outputs = try AmplifyOutputs.file(fixture("amplify_outputs-v1.5.json")).resolveConfiguration()
        #expect(outputs.auth?.userPoolId == nil)
        #expect(outputs.auth?.identityPoolId == "us-east-1:15151515-2525-3535-4545-555555555555")
        #expect(outputs.notifications?.amazonConnect?.endpoint == "https://connect.example.invalid")
    }

    @Test("decoded data translates to the same plugin blocks as the file it came from")
    func encodedDataMatchesFile() throws {
        let file = AmplifyOutputs.file(fixture("amplify_outputs-v1.4.json"))
        let fromFile = try file.resolve()
        let fromData = try AmplifyOutputs.data(try file.resolveConfiguration().encodedJSON()).resolve()
        #expect(fromData.auth == fromFile.auth)
        #expect(fromData.storage == fromFile.storage)
        #expect(fromData.api == fromFile.api)
        #expect(fromData.custom == fromFile.custom)
    }

    @Test("malformed data, a missing required key and a bad enum value are ConfigurationError.invalidAmplifyOutputsFile")
    func malformed() throws {
        for bytes in ["{", #"{"version": "1", "storage": {"aws_region": "us-east-1"}}"#, #"{"version": "1", "data": {"aws_region": "r", "url": "https://x", "default_authorization_type": "NOPE", "authorization_types": []}}"#] {
            do {
                _ = try AmplifyOutputsData(data: Data(bytes.utf8))
                Issue.record("\(bytes) decoded")
            } catch let error as ConfigurationError {
                guard case .invalidAmplifyOutputsFile = error else { Issue.record("\(error)"); continue }
            }
        }
    }

    @Test("resource(named:) reads <name>.json from the working directory")
    func resourceNamed() throws {
        let outputs = AmplifyOutputs.resource(named: "no-such-outputs-file")
        #expect(throws: ConfigurationError.self) { try outputs.resolveConfiguration() }
    }

    @Test("an AmplifyOutputsData built in code encodes to the snake_case file shape")
    func builtInCode() throws {
        let outputs = AmplifyOutputsData(
            auth: .init(awsRegion: "us-east-1", userPoolId: "us-east-1_abc", userPoolClientId: "client"),
            storage: .init(awsRegion: "us-east-1", bucketName: "b", buckets: [.init(name: "main", bucketName: "b", awsRegion: "us-east-1")]))
        let configuration = try AmplifyOutputs.data(outputs.encodedJSON()).resolve()
        #expect(configuration.auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "CognitoUserPool.Default.PoolId") == "us-east-1_abc")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "b")
    }
}
