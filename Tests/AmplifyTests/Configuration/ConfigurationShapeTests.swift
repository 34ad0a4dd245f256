import Amplify
import Foundation
import Testing

/// The hand-written fixtures of every shape real projects carry (Tests/Fixtures/Configurations):
/// what each one becomes, what it warns about, and the exact messages.
@Suite("Configuration shapes")
struct ConfigurationShapeTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Configurations")

    private func load(_ name: String) throws -> AmplifyConfiguration {
        try AmplifyConfiguration(configurationFile: Self.fixtures.appendingPathComponent(name))
    }

    private func path(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    @Test("a full Gen 1 iOS file keeps every plugin block, the APIs included; geo and predictions are listed as not handled")
    func gen1Full() throws {
        let configuration = try load("gen1-ios-full.json")
        #expect(configuration.format == .gen1)
        #expect(
            configuration.auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "Auth.Default.OAuth.WebDomain")
                == "notesapp-dev.auth.us-east-1.amazoncognito.com")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "notesapp-storage-dev")
        #expect(configuration.api?.plugins["awsAPIPlugin"]?.asObject?.keys.sorted() == ["AdminQueries", "notesapp"])
        #expect(configuration.api?.plugins["awsAPIPlugin"]?.value(at: "AdminQueries.endpointType") == "REST")
        #expect(configuration.otherCategories.keys.sorted() == ["geo", "predictions"])
        #expect(configuration.findings.map(\.kind) == [.notHandled, .notHandled])
        #expect(
            configuration.findings.first?.message
                == "The `geo` block of \(path("gen1-ios-full.json")) is not handled: this package has no geo category.")
        #expect(configuration.findings.allSatisfy { !$0.isWarning })
    }

    @Test("an identity-pool-only Gen 1 block passes through with no user pool")
    func gen1IdentityOnly() throws {
        let cognito = try #require(try load("gen1-identity-pool-only.json").auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito["CognitoUserPool"] == nil)
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId") == "eu-central-1:0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff")
    }

    @Test("a hand-edited file with a byte-order mark, CRLF line endings and nulls is read")
    func handEdited() throws {
        let configuration = try load("gen1-hand-edited.json")
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CognitoUserPool.Default.PoolId") == "us-west-2_HandEdit1")
        #expect(cognito["CredentialsProvider"] == .null)
        #expect(configuration.findings.isEmpty)
    }

    @Test("awsconfiguration.json with only an identity pool becomes auth, storage, a Pinpoint block and an AppSync API")
    func awsConfigurationGuest() throws {
        let configuration = try load("awsconfiguration-guest.json")
        #expect(configuration.format == .awsConfiguration)
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.Region") == "us-east-2")
        #expect(cognito["CognitoUserPool"] == nil)
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"] == ["bucket": "guest-uploads-prod", "region": "us-east-2"])
        #expect(
            configuration.analytics?.plugins["awsPinpointAnalyticsPlugin"]?.value(at: "pinpointAnalytics.appId") == "0011223344556677889900aabbccddee"
        )
        #expect(
            configuration.api?.plugins["awsAPIPlugin"]?["Default"] == [
                "endpointType": "GraphQL", "endpoint": "https://zyxwvutsrqponmlkjihgfedcba.appsync-api.us-east-2.amazonaws.com/graphql",
                "region": "us-east-2", "authorizationType": "AWS_IAM",
            ])
    }

    @Test("the Amplify JS flat shape becomes Cognito (with OAuth), S3, Pinpoint and the GraphQL and REST APIs")
    func amplifyJSFlat() throws {
        let configuration = try load("aws-exports.json")
        #expect(configuration.format == .amplifyJSFlat)
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(
            cognito.value(at: "CognitoUserPool.Default") == [
                "PoolId": "us-west-2_JsFlatPl1", "AppClientId": "jsflatwebclient0123456789", "Region": "us-west-2",
            ])
        #expect(
            cognito.value(at: "CredentialsProvider.CognitoIdentity.Default") == [
                "PoolId": "us-west-2:12341234-abcd-abcd-abcd-123412341234", "Region": "us-west-2",
            ])
        #expect(cognito.value(at: "Auth.Default.OAuth.WebDomain") == "jsapp-dev.auth.us-west-2.amazoncognito.com")
        #expect(cognito.value(at: "Auth.Default.OAuth.SignInRedirectURI") == "http://localhost:3000/,https://main.d1234abcd.amplifyapp.com/")
        #expect(cognito.value(at: "Auth.Default.OAuth.Scopes")?.asArray?.count == 5)
        #expect(cognito.value(at: "AmplifyJS.allowUnauthenticatedIdentities") == "true")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "jsflat-uploads-dev")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["region"] == "us-west-2")
        #expect(
            configuration.analytics?.plugins["awsPinpointAnalyticsPlugin"]?.value(at: "pinpointAnalytics.appId") == "fedcba9876543210fedcba9876543210"
        )
        let apis = try #require(configuration.api?.plugins["awsAPIPlugin"])
        #expect(apis["data"]?["authorizationType"] == "AMAZON_COGNITO_USER_POOLS")
        #expect(apis["data"]?["additionalAuthorizationTypes"] == ["API_KEY", "AWS_IAM"])
        #expect(apis["data"]?["apiKey"] == "da2-jsflatapikey0123456789ab")
        #expect(
            apis["ordersApi"] == [
                "endpointType": "REST", "endpoint": "https://orders1234.execute-api.us-west-2.amazonaws.com/dev", "region": "us-west-2",
                "authorizationType": "AWS_IAM",
            ])
        #expect(configuration.otherCategories.keys.sorted() == ["geo"])
        #expect(cognito.value(at: "AmplifyJS.federationTarget") == "COGNITO_USER_POOLS")
    }

    @Test(
        "an awsconfiguration.json with only AppSync and the CLI's empty IdentityManager configures the API and no Auth; an SDK block no category reads is listed as not read"
    )
    func awsConfigurationAppSyncOnly() throws {
        let configuration = try load("awsconfiguration-appsync-only.json")
        #expect(configuration.format == .awsConfiguration)
        #expect(configuration.auth == nil)
        #expect(configuration.api?.plugins["awsAPIPlugin"]?.value(at: "Default.authorizationType") == "API_KEY")
        #expect(configuration.otherCategories.isEmpty)
        #expect(
            configuration.findings == [
                ConfigurationFinding(
                    kind: .notHandled, path: "DynamoDBObjectMapper",
                    message:
                        "The `DynamoDBObjectMapper` block of \(path("awsconfiguration-appsync-only.json")) is not read: no category of this package uses it.",
                    suggestion: "Nothing to do: it configures a service this package has no client for.")
            ])
    }

    @Test("Amplify JS v5's category objects (Auth, Storage.AWSS3, API.endpoints) are read as the keys they stand for")
    func amplifyJSV5Objects() throws {
        let configuration = try load("aws-exports-v5-objects.json")
        #expect(configuration.format == .amplifyJSFlat)
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(
            cognito.value(at: "CognitoUserPool.Default") == [
                "PoolId": "ca-central-1_VFiveAuth", "AppClientId": "vfivewebclient0123456789ab", "Region": "ca-central-1",
            ])
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId") == "ca-central-1:5e5e5e5e-1111-2222-3333-444455556666")
        #expect(cognito.value(at: "Auth.Default.authenticationFlowType") == "USER_PASSWORD_AUTH")
        #expect(cognito.value(at: "Auth.Default.OAuth.WebDomain") == "vfive-app.auth.ca-central-1.amazoncognito.com")
        #expect(configuration.storage?.plugins["awsS3StoragePlugin"]?["bucket"] == "vfive-uploads")
        #expect(
            configuration.api?.plugins["awsAPIPlugin"]?.value(at: "billing.endpoint")
                == "https://vfive12345.execute-api.ca-central-1.amazonaws.com/prod")
        #expect(configuration.otherCategories.isEmpty && configuration.findings.isEmpty)
    }

    @Test(
        "beside the flat keys a v5 Auth object wins; an empty OAuth domain leaves out the hosted UI with a warning; keys nothing reads are listed, not called categories"
    )
    func amplifyJSMixed() throws {
        let configuration = try load("aws-exports-mixed.json")
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CognitoUserPool.Default.PoolId") == "us-west-1_MixedNew")
        #expect(cognito.value(at: "CognitoUserPool.Default.AppClientId") == "mixednewclient0123456789ab")
        #expect(cognito.value(at: "Auth.Default.OAuth") == nil)
        #expect(configuration.otherCategories.isEmpty)
        let file = path("aws-exports-mixed.json")
        #expect(
            configuration.findings.map(\.path) == ["oauth.domain", "aws_content_delivery", "aws_content_delivery_bucket", "aws_user_pools_mfa_type"])
        #expect(configuration.findings.first?.kind == .placeholder)
        #expect(
            configuration.findings.first?.message
                == "`oauth.domain` in \(file) is empty or missing, so no hosted UI is configured (signInWithWebUI will say so); the rest of Auth configures."
        )
        #expect(configuration.findings.last?.message == "`aws_user_pools_mfa_type` in \(file) is not read: no category of this package uses it.")
        #expect(configuration.findings.dropFirst().allSatisfy { $0.kind == .notHandled })
    }

    @Test(
        "a v6 object's API.Events becomes the Events API 'events'; a block with no client here (Analytics.Kinesis) is listed; an empty loginWith.oauth.domain warns"
    )
    func amplifyJSResourcesUnreadBlocks() throws {
        let configuration = try load("js-v6-unread-blocks.json")
        let events = try #require(configuration.api?.plugins["awsAPIPlugin"]?["events"])
        #expect(events["endpointType"] == "Events")
        #expect(events["authorizationType"] == "API_KEY")
        #expect(events["region"] == "sa-east-1")
        #expect(configuration.analytics == nil)
        #expect(configuration.auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "Auth.Default.OAuth") == nil)
        #expect(configuration.findings.map(\.path) == ["Auth.Cognito.loginWith.oauth.domain", "Analytics.Kinesis"])
        #expect(configuration.findings.map(\.kind) == [.placeholder, .notHandled])
        #expect(
            configuration.findings[1].message
                == "The `Analytics.Kinesis` block of \(path("js-v6-unread-blocks.json")) is not handled: this package has no client for it.")
    }

    @Test("a v5 Auth object with a user pool and no web client names the key as the file has it")
    func amplifyJSV5MissingClient() throws {
        let (error, path) = try failure(#"{"Auth": {"region": "us-east-1", "userPoolId": "us-east-1_NoClient"}}"#)
        #expect(
            error.errorDescription == "`Auth.userPoolWebClientId` in \(path) is missing; a non-empty string is required (Auth.userPoolId is set).")
    }

    @Test("Amplify JS v6's resources object becomes Cognito, S3 with its buckets, and the APIs")
    func amplifyJSResources() throws {
        let configuration = try load("js-v6-resources.json")
        #expect(configuration.format == .amplifyJSResources)
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito.value(at: "CognitoUserPool.Default.Region") == "eu-west-1")
        #expect(cognito.value(at: "Auth.Default.OAuth.SignInRedirectURI") == ["http://127.0.0.1:3000/callback"])
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId") == "eu-west-1:55556666-7777-8888-9999-000011112222")
        let s3 = try #require(configuration.storage?.plugins["awsS3StoragePlugin"])
        #expect(s3["bucket"] == "jssix-media")
        #expect(s3["buckets"]?.asArray?.compactMap { $0["name"]?.stringValue } == ["archive", "media"])
        let apis = try #require(configuration.api?.plugins["awsAPIPlugin"])
        #expect(apis["data"]?["authorizationType"] == "AMAZON_COGNITO_USER_POOLS")
        #expect(apis["payments"]?["endpointType"] == "REST")
        #expect(configuration.otherCategories.keys.sorted() == ["geo"])
    }

    @Test("Gen 2 version 1 becomes Cognito and the data API, named data")
    func gen2Version1() throws {
        let configuration = try load("amplify_outputs-v1.json")
        #expect(configuration.format == .gen2(version: "1"))
        #expect(configuration.auth?.plugins["awsCognitoAuthPlugin"]?.value(at: "CognitoUserPool.Default.PoolId") == "ca-central-1_GenTwoV1")
        let data = try #require(configuration.api?.plugins["awsAPIPlugin"]?["data"])
        #expect(data["endpoint"] == "https://gentwov1api.appsync-api.ca-central-1.amazonaws.com/graphql")
        #expect(data["authorizationType"] == "API_KEY")
        #expect(data["apiKey"] == "da2-gentwov1apikey012345678")
        #expect(data["additionalAuthorizationTypes"] == ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM"])
        #expect(configuration.findings.isEmpty)
    }

    @Test(
        "Gen 2 version 1.4 keeps every bucket with its access rules, groups, passwordless, EMAIL MFA, providers and custom; a key beyond the schema warns"
    )
    func gen2Version14() throws {
        let configuration = try load("amplify_outputs-v1.4.json")
        #expect(configuration.format == .gen2(version: "1.4"))
        let s3 = try #require(configuration.storage?.plugins["awsS3StoragePlugin"])
        #expect(s3["bucket"] == "gentwo-photos-bucket")
        let buckets = try #require(s3["buckets"]?.asArray)
        #expect(buckets.compactMap { $0["name"]?.stringValue } == ["photos", "reports"])
        #expect(buckets[0].value(at: "paths.admin/*.groupsADMINS") == ["get", "list", "write", "delete"])
        #expect(buckets[1]["aws_region"] == "us-west-2")
        let outputs = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"]?["AmplifyOutputs"])
        #expect(outputs["mfa_methods"] == ["TOTP", "EMAIL"])
        #expect(outputs.value(at: "passwordless.preferred_challenge") == "EMAIL_OTP")
        #expect(configuration.custom == ["ordersTable": "Orders-prod", "featureFlags": ["beta": true]])
        #expect(configuration.otherCategories.keys.sorted() == ["geo"])
        let warnings = configuration.findings.filter(\.isWarning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.path == "websocket")
        #expect(
            warnings.first?.message
                == "`websocket` in \(path("amplify_outputs-v1.4.json")) is not part of the amplify_outputs.json schema (versions 1, 1.1, 1.2, 1.3, 1.4, 1.5); it is ignored."
        )
    }

    @Test("Gen 2 version 1.5 with an identity pool only and amazon_connect notifications")
    func gen2Version15() throws {
        let configuration = try load("amplify_outputs-v1.5.json")
        let cognito = try #require(configuration.auth?.plugins["awsCognitoAuthPlugin"])
        #expect(cognito["CognitoUserPool"] == nil)
        #expect(cognito.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId") == "us-east-1:15151515-2525-3535-4545-555555555555")
        #expect(configuration.otherCategories["notifications"]?.value(at: "amazon_connect.endpoint") == "https://connect.example.invalid")
    }

    @Test("a Gen 2 version this package does not know is an error naming the versions it reads")
    func gen2UnknownVersion() throws {
        let error = #expect(throws: ConfigurationError.self) { try load("amplify_outputs-v2.json") }
        guard case .unableToDecode = error else {
            Issue.record("wrong case \(String(describing: error))")
            return
        }
        #expect(
            error?.errorDescription
                == "\(path("amplify_outputs-v2.json")) has `version` \"2.0\", which this package does not know; it reads versions 1, 1.1, 1.2, 1.3, 1.4, 1.5."
        )
    }

    @Test("a Gen 2 placeholder configures nothing and says so")
    func gen2Placeholder() throws {
        let configuration = try load("amplify_outputs-placeholder.json")
        #expect(configuration.categories.isEmpty)
        #expect(configuration.findings.map(\.kind) == [.placeholder])
        let empty = try AmplifyOutputs.data(Data("{}".utf8)).resolve()
        #expect(empty.findings.first?.message == "amplify_outputs data holds no resources (a placeholder): nothing is configured from it.")
    }

    // MARK: What fails

    private func failure(_ text: String, name: String = "amplifyconfiguration.json") throws -> (ConfigurationError, String) {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let file = try folder.write(name, text)
        do {
            _ = try AmplifyConfiguration(configurationFile: file)
        } catch let error as ConfigurationError {
            return (error, file.path)
        }
        Issue.record("\(text) did not fail")
        throw CancellationError()
    }

    @Test("a duplicate key is an error at its position")
    func duplicateKey() throws {
        let (error, path) = try failure("{\n  \"auth\": {\"plugins\": {}},\n  \"auth\": {\"plugins\": {}}\n}\n")
        #expect(error.errorDescription == "\(path) is not valid JSON: duplicate member name \"auth\" (line 3, column 3).")
    }

    @Test("a trailing comma is refused as JSON refuses it")
    func trailingComma() throws {
        let (error, path) = try failure(#"{"auth": {"plugins": {"localAuthPlugin": {},}}}"#)
        #expect(error.errorDescription == "\(path) is not valid JSON: expected a member name (line 1, column 45).")
    }

    @Test("a Gen 2 bucket without its bucket_name names the path")
    func gen2BucketMissingName() throws {
        let (error, path) = try failure(
            #"{"version": "1.4", "storage": {"aws_region": "r", "bucket_name": "b", "buckets": [{"name": "x", "aws_region": "r"}]}}"#)
        #expect(error.errorDescription == "`storage.buckets[0].bucket_name` in \(path) is missing; a non-empty string is required.")
    }

    @Test("a JS flat file with a user pool and no web client names the missing key")
    func jsFlatMissingClient() throws {
        let (error, path) = try failure(#"{"aws_project_region": "us-east-1", "aws_user_pools_id": "us-east-1_X"}"#)
        #expect(
            error.errorDescription
                == "`aws_user_pools_web_client_id` in \(path) is missing; a non-empty string is required (aws_user_pools_id is set).")
    }

    @Test("a folder, a FIFO and /dev/null are named for what they are")
    func notRegularFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let fifo = folder.url.appendingPathComponent("fifo.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for (url, what) in [(folder.url, "a folder"), (fifo, "a FIFO (named pipe)"), (URL(fileURLWithPath: "/dev/null"), "a character device")] {
            let error = #expect(throws: ConfigurationError.self) { try AmplifyConfiguration(configurationFile: url) }
            #expect(error?.errorDescription == "\(url.path) is \(what), not a configuration file.")
        }
    }

    @Test("a file larger than 4 MiB is refused before it is read")
    func oversized() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let file = folder.url.appendingPathComponent("amplifyconfiguration.json")
        try Data(repeating: 0x20, count: 4 * 1024 * 1024 + 1).write(to: file)
        let error = #expect(throws: ConfigurationError.self) { try AmplifyConfiguration(configurationFile: file) }
        #expect(error?.errorDescription == "\(file.path) is 4194305 bytes; a configuration file is at most 4 MiB.")
    }

    @Test("a NUL character in a value is refused with its JSON path")
    func nulInValue() throws {
        let (error, path) = try failure(#"{"auth": {"plugins": {"localAuthPlugin": {"directory": "/srv/a\u0000b"}}}}"#)
        #expect(
            error.errorDescription
                == "`auth.plugins.localAuthPlugin.directory` in \(path) contains a NUL character (\\u0000), which no path, id or URL may hold.")
    }

    @Test("bytes that are not UTF-8, and a Gen 1 file that is not JSON, are unableToDecode as in amplify-swift")
    func undecodable() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanUp() }
        let latin1 = folder.url.appendingPathComponent("amplifyconfiguration.json")
        try Data([0x7B, 0x22, 0x61, 0xE9, 0x22, 0x3A, 0x31, 0x7D]).write(to: latin1)
        let error = #expect(throws: ConfigurationError.self) { try AmplifyConfiguration(configurationFile: latin1) }
        guard case .unableToDecode(let description, _, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(description == "\(latin1.path) is not UTF-8 text: invalid byte at line 1, column 4.")
        let (syntax, _) = try failure("{\"auth\": }")
        guard case .unableToDecode = syntax else {
            Issue.record("\(syntax)")
            return
        }
    }
}
