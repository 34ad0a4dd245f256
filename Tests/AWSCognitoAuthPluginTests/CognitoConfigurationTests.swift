import AWSCognitoAuthPlugin
import AWSPluginsCore
import Amplify
import Foundation
import Testing

@Suite("Cognito plugin configuration")
struct CognitoConfigurationTests {
    static let cliBlock: JSONValue = [
        "IdentityManager": ["Default": [:]],
        "CredentialsProvider": ["CognitoIdentity": ["Default": ["PoolId": "us-east-1:00000000-0000-0000-0000-000000000000", "Region": "us-east-1"]]],
        "CognitoUserPool": ["Default": ["PoolId": "us-east-1_AbCdEfGhI", "AppClientId": "abcdefghij0123456789", "Region": "us-east-1"]],
        "Auth": [
            "Default": [
                "authenticationFlowType": "USER_SRP_AUTH",
                "OAuth": [
                    "WebDomain": "myapp.auth.us-east-1.amazoncognito.com", "AppClientId": "abcdefghij0123456789",
                    "SignInRedirectURI": "myapp://callback/,http://127.0.0.1:8765/callback", "SignOutRedirectURI": "myapp://signout/",
                    "Scopes": ["openid", "email", "profile"],
                ],
            ]
        ],
    ]

    @Test("The block the CLI writes gives AWS's endpoints, issuer and JWKS, SRP, and the hosted UI with its loopback redirect")
    func cliBlock() throws {
        let settings = try CognitoAuthConfiguration(json: Self.cliBlock, environment: [:])
        #expect(settings.userPoolId == "us-east-1_AbCdEfGhI")
        #expect(settings.appClientSecret == nil)
        #expect(settings.userPoolEndpoint.absoluteString == "https://cognito-idp.us-east-1.amazonaws.com")
        #expect(settings.identityPoolId == "us-east-1:00000000-0000-0000-0000-000000000000")
        #expect(settings.identityEndpoint.absoluteString == "https://cognito-identity.us-east-1.amazonaws.com")
        #expect(settings.authenticationFlow == .userSRP)
        #expect(settings.tokenIssuer == "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI")
        #expect(settings.jwksURL.absoluteString == "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI/.well-known/jwks.json")
        #expect(settings.refreshLead == 300)
        #expect(settings.oauth?.signInRedirectURI == "http://127.0.0.1:8765/callback")
        #expect(settings.oauth?.scopes == ["openid", "email", "profile"])
    }

    @Test("A user pool id whose region is not the block's Region is a warning naming both; matching ones, or no Region, warn of nothing")
    func regionMismatchWarns() throws {
        var block = Self.cliBlock.asObject ?? [:]
        block["CognitoUserPool"] = ["Default": ["PoolId": "us-east-1_pVissLBD7", "AppClientId": "abcdefghij0123456789", "Region": "ap-northeast-1"]]
        let mismatched = try CognitoAuthConfiguration(json: .object(block), environment: [:])
        #expect(mismatched.region == "ap-northeast-1")
        #expect(mismatched.warnings.map(\.path) == ["CognitoUserPool.Default.Region"])
        #expect(
            mismatched.warnings.first?.message
                == "the region is ap-northeast-1, but the user pool us-east-1_pVissLBD7 is in us-east-1; calls go to ap-northeast-1, where Cognito will not find the pool."
        )
        #expect(mismatched.warnings.first?.suggestion == "Set the region to us-east-1, or check the pool id.")
        #expect(try CognitoAuthConfiguration(json: Self.cliBlock, environment: [:]).warnings.isEmpty)
        block["CognitoUserPool"] = ["Default": ["PoolId": "eu-west-1_NoRegion1", "AppClientId": "abcdefghij0123456789"]]
        let inferred = try CognitoAuthConfiguration(json: .object(block), environment: [:])
        #expect(inferred.region == "eu-west-1" && inferred.warnings.isEmpty)
    }

    @Test("An endpoint override (file or AWS_ENDPOINT_URL) moves the calls and the JWKS, not the issuer")
    func endpointOverride() throws {
        let settings = try CognitoAuthConfiguration(json: Self.cliBlock, environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:5000"])
        #expect(settings.userPoolEndpoint.absoluteString == "http://127.0.0.1:5000")
        #expect(settings.identityEndpoint.absoluteString == "http://127.0.0.1:5000")
        #expect(settings.jwksURL.absoluteString == "http://127.0.0.1:5000/us-east-1_AbCdEfGhI/.well-known/jwks.json")
        #expect(settings.tokenIssuer == "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbCdEfGhI")
    }

    @Test("Gen 2 amplify_outputs.json's auth section configures the same plugin, hosted UI included")
    func gen2Outputs() throws {
        let outputs = """
            {"version": "1.3", "auth": {"aws_region": "eu-west-1", "user_pool_id": "eu-west-1_Gen2Pool", "user_pool_client_id": "gen2client",
             "identity_pool_id": "eu-west-1:11111111-2222-3333-4444-555555555555",
             "oauth": {"domain": "gen2.auth.eu-west-1.amazoncognito.com", "scopes": ["openid"], "redirect_sign_in_uri": ["http://localhost:3000/cb"],
                       "redirect_sign_out_uri": ["http://localhost:3000/"], "response_type": "code", "identity_providers": []}}}
            """
        let configuration = try AmplifyOutputs.data(Data(outputs.utf8)).resolve()
        let block = configuration.auth?.plugins["awsCognitoAuthPlugin"]
        let settings = try CognitoAuthConfiguration(json: block, environment: [:])
        #expect(settings.userPoolId == "eu-west-1_Gen2Pool")
        #expect(settings.appClientId == "gen2client")
        #expect(settings.region == "eu-west-1")
        #expect(settings.identityPoolRegion == "eu-west-1")
        #expect(settings.oauth?.webDomain == "gen2.auth.eu-west-1.amazoncognito.com")
        #expect(settings.oauth?.signInRedirectURI == "http://localhost:3000/cb")
        #expect(settings.oauth?.appClientId == "gen2client")
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Configurations")

    private func settings(fromFixture name: String) throws -> CognitoAuthConfiguration {
        let configuration = try AmplifyConfiguration(configurationFile: Self.fixtures.appendingPathComponent(name))
        return try CognitoAuthConfiguration(json: configuration.auth?.plugins["awsCognitoAuthPlugin"], environment: [:])
    }

    @Test("An identity pool with no user pool (guest access, as Flutter, awsconfiguration.json and Gen 2 write it) configures")
    func identityPoolOnly() throws {
        for name in ["gen1-identity-pool-only.json", "awsconfiguration-guest.json", "amplify_outputs-v1.5.json"] {
            let settings = try settings(fromFixture: name)
            #expect(!settings.hasUserPool, "\(name)")
            #expect(settings.userPoolId.isEmpty, "\(name)")
            #expect(settings.identityPoolId != nil, "\(name)")
            #expect(settings.oauth == nil, "\(name)")
        }
        let guest = try settings(fromFixture: "gen1-identity-pool-only.json")
        #expect(guest.identityPoolRegion == "eu-central-1")
        #expect(guest.identityEndpoint.absoluteString == "https://cognito-identity.eu-central-1.amazonaws.com")
    }

    @Test("A user pool only, a hand-edited block with nulls and empty strings, the JS files and Gen 2 1.4's extras all read")
    func otherShapes() throws {
        let usersOnly = try settings(fromFixture: "gen1-user-pool-only.json")
        #expect(usersOnly.hasUserPool && usersOnly.identityPoolId == nil && usersOnly.authenticationFlow == .userPassword)
        let edited = try settings(fromFixture: "gen1-hand-edited.json")
        #expect(edited.appClientSecret == nil)
        #expect(edited.identityPoolId == nil)
        #expect(edited.userPoolEndpoint.absoluteString == "https://cognito-idp.us-west-2.amazonaws.com")
        #expect(edited.authenticationFlow == .userSRP)
        let flat = try settings(fromFixture: "aws-exports.json")
        #expect(flat.userPoolId == "us-west-2_JsFlatPl1")
        #expect(flat.oauth?.signInRedirectURI == "http://localhost:3000/")
        #expect(flat.allowsGuestAccess == true)
        let resources = try settings(fromFixture: "js-v6-resources.json")
        #expect(resources.oauth?.signInRedirectURI == "http://127.0.0.1:3000/callback")
        let gen2 = try settings(fromFixture: "amplify_outputs-v1.4.json")
        #expect(gen2.userPoolGroups == ["ADMINS": 0, "EDITORS": 1])
        #expect(gen2.mfaMethods == ["TOTP", "EMAIL"])
        #expect(gen2.passwordless?["preferred_challenge"] == "EMAIL_OTP")
        #expect(gen2.identityProviders == ["GOOGLE", "SIGN_IN_WITH_APPLE", "LOGIN_WITH_AMAZON"])
        #expect(gen2.allowsGuestAccess == false)
        #expect(gen2.oauth?.signInRedirectURI == "http://127.0.0.1:3000/callback")
    }

    @Test("Missing ids, a malformed pool id, an unknown flow and a negative lead are errors naming the key")
    func badBlocks() throws {
        func keyPath(_ block: JSONValue) -> String? {
            do {
                _ = try CognitoAuthConfiguration(json: block, environment: [:])
                return nil
            } catch let error as ConfigurationValueError {
                return error.keyPath
            } catch {
                return "\(error)"
            }
        }
        #expect(keyPath([:]) == "CognitoUserPool.Default")
        #expect(keyPath(["CognitoUserPool": ["Default": ["AppClientId": "x"]]]) == "CognitoUserPool.Default.PoolId")
        #expect(keyPath(["CognitoUserPool": ["Default": ["PoolId": "nounderscore", "AppClientId": "x"]]]) == "CognitoUserPool.Default.PoolId")
        #expect(keyPath(["CognitoUserPool": ["Default": ["PoolId": "us-east-1_x"]]]) == "CognitoUserPool.Default.AppClientId")
        #expect(
            keyPath([
                "CognitoUserPool": ["Default": ["PoolId": "us-east-1_x", "AppClientId": "x"]],
                "Auth": ["Default": ["authenticationFlowType": "MAGIC"]],
            ]) == "Auth.Default.authenticationFlowType")
        #expect(
            keyPath(["CognitoUserPool": ["Default": ["PoolId": "us-east-1_x", "AppClientId": "x"]], "refreshLeadSeconds": -1]) == "refreshLeadSeconds"
        )
        #expect(throws: AWSPluginsError.self) {
            _ = try CognitoAuthConfiguration(
                json: ["CognitoUserPool": ["Default": ["PoolId": "us-east-1_x", "AppClientId": "x", "Endpoint": "ftp://x"]]], environment: [:])
        }
    }
}
