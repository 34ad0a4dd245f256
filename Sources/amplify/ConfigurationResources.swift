import Amplify

/// Every resource a configuration names — user pools, identity pools, buckets, GraphQL and REST
/// endpoints, streams, local folders — so a user sees at a glance what the server will talk to.
struct ConfigurationResource: Equatable {
    /// "user pool", "bucket", "GraphQL API", ...
    let kind: String
    /// The resource's id, name or URL.
    let name: String
    /// Region, auth modes, and the like.
    let details: [(String, String)]

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.name == rhs.name && lhs.details.map { "\($0.0)=\($0.1)" } == rhs.details.map { "\($0.0)=\($0.1)" }
    }

    /// The resources of `configuration`, in category order.
    static func all(in configuration: AmplifyConfiguration) -> [ConfigurationResource] {
        var resources: [ConfigurationResource] = []
        for (key, block) in sortedPlugins(configuration.auth) {
            switch key {
            case "awsCognitoAuthPlugin":
                if let pool = nonEmpty(block.value(at: "CognitoUserPool.Default.PoolId")) {
                    var details = region(block.value(at: "CognitoUserPool.Default.Region"))
                    if let client = nonEmpty(block.value(at: "CognitoUserPool.Default.AppClientId")) { details.append(("app client", client)) }
                    resources.append(.init(kind: "user pool", name: pool, details: details))
                }
                if let pool = nonEmpty(block.value(at: "CredentialsProvider.CognitoIdentity.Default.PoolId")) {
                    resources.append(
                        .init(
                            kind: "identity pool", name: pool, details: region(block.value(at: "CredentialsProvider.CognitoIdentity.Default.Region")))
                    )
                }
                if let domain = nonEmpty(block.value(at: "Auth.Default.OAuth.WebDomain")) ?? nonEmpty(block.value(at: "AmplifyOutputs.oauth.domain"))
                {
                    resources.append(.init(kind: "hosted UI", name: domain, details: []))
                }
            case "localAuthPlugin":
                resources.append(.init(kind: "local user pool", name: block["directory"]?.stringValue ?? ".amplify/local-auth", details: []))
            default: break
            }
        }
        for (key, block) in sortedPlugins(configuration.analytics) {
            switch key {
            case "awsKinesisAnalyticsPlugin":
                let kind = block["target"]?.stringValue == "firehose" ? "Firehose delivery stream" : "Kinesis stream"
                resources.append(.init(kind: kind, name: block["streamName"]?.stringValue ?? "?", details: region(block["region"])))
            case "awsPinpointAnalyticsPlugin":
                resources.append(
                    .init(
                        kind: "Pinpoint app (retired, not used)", name: nonEmpty(block.value(at: "pinpointAnalytics.appId")) ?? "(no app id)",
                        details: region(block.value(at: "pinpointAnalytics.region"))))
            case "localAnalyticsPlugin":
                resources.append(.init(kind: "local analytics folder", name: block["directory"]?.stringValue ?? ".amplify/analytics", details: []))
            default: break
            }
        }
        for (key, block) in sortedPlugins(configuration.storage) {
            switch key {
            case "awsS3StoragePlugin":
                var names = Set<String>()
                for bucket in block["buckets"]?.asArray ?? [] {
                    guard let bucketName = bucket["bucket_name"]?.stringValue else { continue }
                    names.insert(bucketName)
                    var details = [("name", bucket["name"]?.stringValue ?? "?")] + region(bucket["aws_region"])
                    if let paths = bucket["paths"]?.asObject, !paths.isEmpty {
                        details.append(("access rules", paths.keys.sorted().joined(separator: " ")))
                    }
                    resources.append(.init(kind: "bucket", name: bucketName, details: details))
                }
                if let bucket = block["bucket"]?.stringValue, !names.contains(bucket) {
                    resources.append(.init(kind: "bucket", name: bucket, details: region(block["region"])))
                }
            case "localStoragePlugin":
                resources.append(.init(kind: "local storage folder", name: block["directory"]?.stringValue ?? ".amplify/storage", details: []))
            default: break
            }
        }
        let apis = configuration[.api]?.plugins["awsAPIPlugin"]?.asObject ?? [:]
        for name in apis.keys.sorted() {
            guard let api = apis[name] else { continue }
            let type = api["endpointType"]?.stringValue ?? "GraphQL"
            var details = [("name", name)] + region(api["region"])
            var modes = [api["authorizationType"]?.stringValue].compactMap { $0 }
            modes += (api["additionalAuthorizationTypes"]?.asArray ?? []).compactMap(\.stringValue)
            if !modes.isEmpty { details.append(("auth", modes.joined(separator: ", "))) }
            let kind = ["REST": "REST API", "Events": "Events API"][type] ?? "GraphQL API"
            resources.append(.init(kind: kind, name: api["endpoint"]?.stringValue ?? "?", details: details))
        }
        return resources
    }

    private static func sortedPlugins(_ block: CategoryConfiguration?) -> [(String, JSONValue)] {
        (block?.plugins ?? [:]).sorted { $0.key < $1.key }
    }

    private static func region(_ value: JSONValue?) -> [(String, String)] {
        nonEmpty(value).map { [("region", $0)] } ?? []
    }

    /// The string `value` holds, unless it is empty (an empty id names no resource).
    private static func nonEmpty(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    /// "user pool us-east-1_AbC (region: us-east-1, app client: abc)".
    var text: String {
        details.isEmpty ? "\(kind) \(name)" : "\(kind) \(name) (\(details.map { "\($0.0): \($0.1)" }.joined(separator: ", ")))"
    }

    var json: JSONValue {
        .object([
            "kind": .string(kind), "name": .string(name),
            "details": .object(Dictionary(details.map { ($0.0, JSONValue.string($0.1)) }, uniquingKeysWith: { first, _ in first })),
        ])
    }
}
