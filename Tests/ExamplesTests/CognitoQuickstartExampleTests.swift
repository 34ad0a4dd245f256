import Amplify
import AmplifyTestKit
import Foundation
import Testing

@Suite("Examples/CognitoQuickstart")
struct CognitoQuickstartExampleTests {
    @Test(
        "a program that adds only the Cognito plugin configures from a file that also names Pinpoint analytics, an API (an unused plugin key: only Cognito was added) and geo, and signs in"
    )
    func tutorialProgramSignsIn() async throws {
        try await MotoServer.with { moto in
            let seeded = try moto.seed(["userPool": ["name": "tutorial", "users": [["username": "alice", "password": "Secr3t!pass"]]]])
            let poolId = seeded["userPoolId"]?.stringValue ?? ""
            let clientId = seeded["clientId"]?.stringValue ?? ""
            let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quickstart-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("amplifyconfiguration.json")
            try Data(
                """
                {"UserAgent": "aws-amplify-cli/2.0", "Version": "1.0",
                 "auth": {"plugins": {"awsCognitoAuthPlugin": {
                   "IdentityManager": {"Default": {}},
                   "CognitoUserPool": {"Default": {"PoolId": "\(poolId)", "AppClientId": "\(clientId)", "Region": "us-east-1", "Endpoint": "\(moto.endpoint.absoluteString)"}},
                   "Auth": {"Default": {"authenticationFlowType": "USER_SRP_AUTH"}}}}},
                 "analytics": {"plugins": {"awsPinpointAnalyticsPlugin": {
                   "pinpointAnalytics": {"appId": "0123456789abcdef", "region": "us-east-1"}, "pinpointTargeting": {"region": "us-east-1"}}}},
                 "api": {"plugins": {"awsAPIPlugin": {"tutorialapi": {"endpointType": "GraphQL",
                   "endpoint": "https://tutorial.appsync-api.us-east-1.amazonaws.com/graphql", "region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "da2-x"}}}},
                 "geo": {"plugins": {"awsLocationGeoPlugin": {"region": "us-east-1"}}}}
                """.utf8
            ).write(to: file)
            let run = try await ProductRunner.run(
                "CognitoQuickstart", ["alice"], in: folder,
                environment: ProcessInfo.processInfo.environment.merging(["AMPLIFY_CONFIG": file.path]) { $1 }, input: "Secr3t!pass\n")
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(
                run.stdout == """
                    skipped geo
                    skipped analytics.plugins.awsPinpointAnalyticsPlugin
                    skipped api.plugins.awsAPIPlugin
                    signed in: true
                    current user: alice

                    """)
        }
    }
}
