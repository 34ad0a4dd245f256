/// Turns the `awsconfiguration.json` the Amplify CLI also writes (auth blocks at top level) into
/// the category shape of `amplifyconfiguration.json`.
enum AWSConfigurationTranslator {
    private static let authKeys = ["IdentityManager", "CredentialsProvider", "CognitoUserPool", "Auth"]

    static func looksLikeAWSConfiguration(_ json: JSONValue) -> Bool {
        guard let top = json.asObject else { return false }
        let hasCategory = CategoryType.allCases.contains { top[$0.rawValue] != nil }
        return !hasCategory && (authKeys.contains { top[$0] != nil } || top["S3TransferUtility"] != nil)
    }

    static func translate(_ json: JSONValue) -> JSONValue {
        guard let top = json.asObject else { return json }
        var result: [String: JSONValue] = [:]
        var auth: [String: JSONValue] = [:]
        for key in authKeys { if let value = top[key] { auth[key] = value } }
        if !auth.isEmpty {
            result["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(auth)]]
        }
        if let transfer = top["S3TransferUtility"]?["Default"] {
            var storage: [String: JSONValue] = [:]
            storage["bucket"] = transfer["Bucket"]
            storage["region"] = transfer["Region"]
            result["storage"] = ["plugins": ["awsS3StoragePlugin": .object(storage)]]
        }
        if let pinpoint = top["PinpointAnalytics"]?["Default"] {
            result["analytics"] = ["plugins": ["awsPinpointAnalyticsPlugin": [
                "pinpointAnalytics": ["appId": pinpoint["AppId"] ?? .null, "region": pinpoint["Region"] ?? .null],
            ]]]
        }
        return .object(result)
    }
}
