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

    @Test(
        "malformed data, bytes that are not UTF-8, a missing required key and a bad enum value are ConfigurationError.unableToDecode (amplify-swift's case); a missing file is invalidAmplifyOutputsFile"
    )
    func malformed() throws {
        for bytes in [
            "{", #"{"version": "1", "storage": {"aws_region": "us-east-1"}}"#,
            #"{"version": "1", "data": {"aws_region": "r", "url": "https://x", "default_authorization_type": "NOPE", "authorization_types": []}}"#,
        ] {
            do {
                _ = try AmplifyOutputsData(data: Data(bytes.utf8))
                Issue.record("\(bytes) decoded")
            } catch let error as ConfigurationError {
                guard case .unableToDecode = error else {
                    Issue.record("\(error)")
                    continue
                }
            }
        }
        for bytes in [Data([0xC0, 0x20]), Data(#"{"foo"}"#.utf8)] {
            #expect { try AmplifyOutputs.data(bytes).resolveConfiguration() } throws: { error in
                guard case ConfigurationError.unableToDecode = error else { return false }
                return true
            }
        }
        #expect { try AmplifyOutputs.file(URL(fileURLWithPath: "/nonexistent/amplify_outputs.json")).resolveConfiguration() } throws: { error in
            guard case ConfigurationError.invalidAmplifyOutputsFile = error else { return false }
            return true
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

    @Test(
        "every section and nested value has a public initializer with amplify-swift's labels, and what it builds round-trips through the file shape")
    func everySectionBuiltInCode() throws {
        let outputs = AmplifyOutputsData(
            analytics: .init(amazonPinpoint: .init(awsRegion: "us-east-1", appId: "app")),
            auth: .init(
                awsRegion: "us-west-2", userPoolId: "us-west-2_xyz", userPoolClientId: "client", identityPoolId: "us-west-2:pool",
                passwordPolicy: .init(minLength: 8, requireNumbers: true, requireLowercase: true, requireUppercase: true, requireSymbols: false),
                oauth: .init(
                    identityProviders: ["GOOGLE"], domain: "app.auth.us-west-2.amazoncognito.com", scopes: ["openid"],
                    redirectSignInUri: ["app://in"], redirectSignOutUri: ["app://out"], responseType: "code"),
                standardRequiredAttributes: [.email, .familyName], usernameAttributes: [.email], userVerificationTypes: [.phoneNumber],
                groups: [["ADMINS": .init(precedence: 1)]], unauthenticatedIdentitiesEnabled: true, mfaConfiguration: "OPTIONAL",
                mfaMethods: ["SMS", "TOTP"],
                passwordless: .init(
                    emailOtpEnabled: true, smsOtpEnabled: false, webAuthn: .init(relyingPartyId: "example.com"), preferredChallenge: "EMAIL_OTP")),
            data: .init(
                awsRegion: "us-east-1", url: "https://x.appsync-api.us-east-1.amazonaws.com/graphql", apiKey: "da2-key",
                defaultAuthorizationType: .apiKey, authorizationTypes: [.apiKey, .amazonCognitoUserPools]),
            geo: .init(
                awsRegion: "us-east-1", maps: .init(items: ["map": .init(style: "VectorEsriStreets")], default: "map"),
                searchIndices: .init(items: ["index"], default: "index"), geofenceCollections: .init(items: ["fences"], default: "fences")),
            notifications: .init(
                awsRegion: "us-east-1", amazonPinpointAppId: "pinpoint", channels: [.apns, .fcm], amazonConnect: .init(endpoint: "https://c")),
            storage: .init(awsRegion: "us-east-1", bucketName: "b"))
        #expect(outputs.geo?.maps?.items["map"]?.style == "VectorEsriStreets")
        #expect(outputs.auth?.passwordPolicy?.requireSymbols == false)
        #expect(try JSONDecoder().decode(AmplifyOutputsData.self, from: outputs.encodedJSON()) == outputs)
    }

    @Test(
        "decoding with JSONDecoder's convertFromSnakeCase (amplify-swift's way) gives what the plain decoder gives; a missing key is named as the file spells it"
    )
    func decodesWithConvertFromSnakeCase() throws {
        let snakeCase = JSONDecoder()
        snakeCase.keyDecodingStrategy = .convertFromSnakeCase
        for name in ["amplify_outputs-v1.json", "amplify_outputs-v1.5.json", "amplify_outputs-v2.json"] {
            let bytes = try Data(contentsOf: fixture(name))
            let plain = try JSONDecoder().decode(AmplifyOutputsData.self, from: bytes)
            #expect(try snakeCase.decode(AmplifyOutputsData.self, from: bytes) == plain, "\(name)")
        }
        let file = Data(
            #"{"version": "1", "auth": {"aws_region": "us-east-1", "user_pool_id": "us-east-1_abc", "user_pool_client_id": "c", "password_policy": {"min_length": 8}}, "storage": {"aws_region": "us-east-1", "bucket_name": "b"}}"#
                .utf8)
        let decoded = try snakeCase.decode(AmplifyOutputsData.self, from: file)
        #expect(decoded.auth?.userPoolId == "us-east-1_abc" && decoded.auth?.passwordPolicy?.minLength == 8 && decoded.storage?.bucketName == "b")
        for decoder in [JSONDecoder(), snakeCase] {
            do {
                _ = try decoder.decode(AmplifyOutputsData.self, from: Data(#"{"version": "1", "storage": {"aws_region": "us-east-1"}}"#.utf8))
                Issue.record("a storage section without bucket_name decoded")
            } catch DecodingError.keyNotFound(let key, _) {
                #expect(key.stringValue == "bucket_name")
            }
        }
    }
}
