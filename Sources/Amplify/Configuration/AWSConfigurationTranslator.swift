/// Turns the `awsconfiguration.json` the Amplify CLI also writes (auth blocks at top level) into
/// the category shape of `amplifyconfiguration.json`:
/// - `IdentityManager`, `CredentialsProvider`, `CognitoUserPool`, `Auth` → `auth.plugins.awsCognitoAuthPlugin`;
/// - `S3TransferUtility.Default` → `storage.plugins.awsS3StoragePlugin` (`bucket`, `region`);
/// - `PinpointAnalytics.Default` → `analytics.plugins.awsPinpointAnalyticsPlugin` (retired, so a warning);
/// - `AppSync.<name>` → `api.plugins.awsAPIPlugin.<name>` (`endpointType` GraphQL);
/// - anything else is kept as a block of its own (listed as not handled).
enum AWSConfigurationTranslator {
    private static let authKeys = ["IdentityManager", "CredentialsProvider", "CognitoUserPool", "Auth"]
    private static let serviceKeys = ["S3TransferUtility", "PinpointAnalytics", "PinpointTargeting", "AppSync"]

    static func looksLikeAWSConfiguration(_ top: [String: JSONValue]) -> Bool {
        let hasCategory = (CategoryType.allCases.map(\.rawValue) + ["notifications"]).contains { top[$0] != nil }
        return !hasCategory && (authKeys + serviceKeys).contains { top[$0] != nil }
    }

    static func translate(_ json: JSONValue) -> ConfigurationDocument.Translation {
        var result = ConfigurationDocument.Translation()
        guard let top = json.asObject else { return result }
        var auth: [String: JSONValue] = [:]
        for key in authKeys { if let value = top[key], !value.isNull { auth[key] = value } }
        if !auth.isEmpty {
            result.categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(auth)]]
        }
        if let transfer = top["S3TransferUtility"]?["Default"] {
            var storage: [String: JSONValue] = [:]
            storage["bucket"] = transfer["Bucket"]
            storage["region"] = transfer["Region"]
            result.categories["storage"] = ["plugins": ["awsS3StoragePlugin": .object(storage)]]
        }
        if let pinpoint = top["PinpointAnalytics"]?["Default"] {
            result.categories["analytics"] = ["plugins": ["awsPinpointAnalyticsPlugin": [
                "pinpointAnalytics": ["appId": pinpoint["AppId"] ?? .null, "region": pinpoint["Region"] ?? .null],
            ]]]
        }
        if let appSync = top["AppSync"]?.asObject {
            var apis: [String: JSONValue] = [:]
            for (name, api) in appSync {
                var block: [String: JSONValue] = ["endpointType": "GraphQL"]
                block["endpoint"] = api["ApiUrl"]
                block["region"] = api["Region"]
                block["authorizationType"] = api["AuthMode"]
                block["apiKey"] = api["ApiKey"]
                apis[name] = .object(block)
            }
            result.categories["api"] = ["plugins": ["awsAPIPlugin": .object(apis)]]
        }
        let consumed = Set(authKeys + serviceKeys + ["UserAgent", "Version"])
        for (key, value) in top where !consumed.contains(key) {
            result.categories[key] = value
        }
        return result
    }
}
