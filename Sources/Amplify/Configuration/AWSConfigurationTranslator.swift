/// Turns the `awsconfiguration.json` the Amplify CLI also writes (auth blocks at top level) into
/// the category shape of `amplifyconfiguration.json`:
/// - `IdentityManager`, `CredentialsProvider`, `CognitoUserPool`, `Auth` → `auth.plugins.awsCognitoAuthPlugin`
///   (only when one of the last three holds something: the CLI writes an empty
///   `"IdentityManager": {"Default": {}}` into every file, an AppSync-only one included);
/// - `S3TransferUtility.Default` → `storage.plugins.awsS3StoragePlugin` (`bucket`, `region`);
/// - `PinpointAnalytics.Default` → `analytics.plugins.awsPinpointAnalyticsPlugin` (retired, so a warning);
/// - `AppSync.<name>` → `api.plugins.awsAPIPlugin.<name>` (`endpointType` GraphQL);
/// - anything else (Mobile Hub's `UserFileManager`, `DynamoDBObjectMapper`, ...) is listed as not read.
enum AWSConfigurationTranslator {
    private static let authKeys = ["IdentityManager", "CredentialsProvider", "CognitoUserPool", "Auth"]
    private static let serviceKeys = ["S3TransferUtility", "PinpointAnalytics", "PinpointTargeting", "AppSync"]

    static func looksLikeAWSConfiguration(_ top: [String: JSONValue]) -> Bool {
        let hasCategory = (CategoryType.allCases.map(\.rawValue) + ["notifications"]).contains { top[$0] != nil }
        return !hasCategory && (authKeys + serviceKeys).contains { top[$0] != nil }
    }

    static func translate(_ json: JSONValue, name: String) -> ConfigurationDocument.Translation {
        var result = ConfigurationDocument.Translation()
        guard let top = json.asObject else { return result }
        result.sourcePaths = ConfigurationSourcePaths.awsConfiguration
        var auth: [String: JSONValue] = [:]
        for key in authKeys { if let value = top[key], !isEmpty(value) { auth[key] = value } }
        if auth.keys.contains(where: { $0 != "IdentityManager" }) {
            result.categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(auth)]]
        }
        if let transfer = top["S3TransferUtility"]?["Default"] {
            var storage: [String: JSONValue] = [:]
            storage["bucket"] = transfer["Bucket"]
            storage["region"] = transfer["Region"]
            result.categories["storage"] = ["plugins": ["awsS3StoragePlugin": .object(storage)]]
        }
        if let pinpoint = top["PinpointAnalytics"]?["Default"] {
            result.categories["analytics"] = [
                "plugins": [
                    "awsPinpointAnalyticsPlugin": [
                        "pinpointAnalytics": ["appId": pinpoint["AppId"] ?? .null, "region": pinpoint["Region"] ?? .null]
                    ]
                ]
            ]
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
        // SDK blocks no category here reads (Mobile Hub's `UserFileManager`, `DynamoDBObjectMapper`,
        // `LexInteractions`, ...) are listed as not read.
        let consumed = Set(authKeys + serviceKeys + ["UserAgent", "Version"])
        for key in top.keys.sorted() where !consumed.contains(key) {
            result.findings.append(
                ConfigurationFinding(
                    kind: .notHandled, path: key, message: "The `\(key)` block of \(name) is not read: no category of this package uses it.",
                    suggestion: "Nothing to do: it configures a service this package has no client for."))
        }
        return result
    }

    /// `null`, `{}`, or an object of nothing but such values (`{"Default": {}}`).
    private static func isEmpty(_ value: JSONValue) -> Bool {
        if value.isNull { return true }
        guard let object = value.asObject else { return false }
        return object.values.allSatisfy(isEmpty)
    }
}
