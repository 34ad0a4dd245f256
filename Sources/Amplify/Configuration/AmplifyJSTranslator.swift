import Foundation

/// Translates the configuration files the JavaScript side of an Amplify project carries into the
/// Gen 1 category shape:
/// - the flat shape of `aws-exports.js` and the JS `amplifyconfiguration.json`
///   (`aws_user_pools_id`, `aws_user_files_s3_bucket`, `aws_appsync_graphqlEndpoint`,
///   `aws_cloud_logic_custom`, `oauth`, ...), and Amplify JS v5's category objects passed to
///   `Amplify.configure` alone or beside those keys (`Auth: {region, userPoolId,
///   userPoolWebClientId, identityPoolId, oauth}`, `Storage: {AWSS3: {bucket, region}}`,
///   `API: {endpoints, graphql_endpoint}`, `Analytics: {AWSPinpoint: {appId, region}}`; as in
///   Amplify JS, an object's value wins over the flat key it stands for);
/// - Amplify JS v6's resources object (`{"Auth": {"Cognito": {...}}, "Storage": {"S3": {...}},
///   "API": {"GraphQL": {...}, "REST": {...}, "Events": {...}}}`).
///
/// Auth becomes an `awsCognitoAuthPlugin` block, storage an `awsS3StoragePlugin` block, each API
/// an `api.plugins.awsAPIPlugin.<name>` block (the GraphQL API is named `data`, the Events API `events`, REST APIs keep
/// their names), Pinpoint analytics an `awsPinpointAnalyticsPlugin` block. The keys each block
/// came from are kept under `AmplifyJS` in it. Blocks of categories this package does not have
/// (`geo`, `predictions`, ...) are kept as blocks of their own and listed as not handled; other
/// keys it does not read are listed as not read.
enum AmplifyJSTranslator {
    /// The name the one GraphQL API of a JS or Gen 2 file gets.
    static let graphQLAPIName = "data"
    /// The name the AppSync Events API of a JS or Gen 2 file gets.
    static let eventsAPIName = "events"

    private static let flatAuthKeys: Set<String> = [
        "aws_cognito_region", "aws_user_pools_id", "aws_user_pools_web_client_id", "aws_cognito_identity_pool_id", "oauth",
        "aws_mandatory_sign_in", "authenticationFlowType", "allowUnauthenticatedIdentities", "aws_cognito_username_attributes",
        "aws_cognito_social_providers", "aws_cognito_signup_attributes", "aws_cognito_mfa_configuration", "aws_cognito_mfa_types",
        "aws_cognito_password_protection_settings", "aws_cognito_verification_mechanisms", "aws_user_pools_endpoint",
        "federationTarget",
    ]
    private static let flatStorageKeys: Set<String> = [
        "aws_user_files_s3_bucket", "aws_user_files_s3_bucket_region", "aws_user_files_s3_dangerously_connect_to_http_endpoint_for_testing",
    ]
    private static let flatAPIKeys: Set<String> = [
        "aws_appsync_graphqlEndpoint", "aws_appsync_region", "aws_appsync_authenticationType", "aws_appsync_apiKey",
        "aws_appsync_additionalAuthenticationTypes", "aws_appsync_dangerously_connect_to_http_endpoint_for_testing", "aws_cloud_logic_custom",
        "modelIntrospection",
    ]
    private static let flatAnalyticsKeys: Set<String> = ["aws_mobile_analytics_app_id", "aws_mobile_analytics_app_region"]
    private static let flatGeneralKeys: Set<String> = ["aws_project_region"]

    /// Whether the top level is the flat JS shape: any key of it that the JS tooling writes.
    static func looksLikeFlat(_ top: [String: JSONValue]) -> Bool {
        let hasCategory = (CategoryType.allCases.map(\.rawValue) + ["notifications"]).contains { top[$0]?["plugins"] != nil }
        return !hasCategory && top.keys.contains { $0.hasPrefix("aws_") }
    }

    /// Amplify JS categories this package does not have, in any case: a top-level block of one
    /// of them is kept as a category block and listed as not handled.
    private static let otherCategoryNames: Set<String> = [
        "geo", "predictions", "interactions", "notifications", "pushnotification", "xr", "datastore",
    ]

    /// Whether the top level holds Amplify JS v5's category objects (`Auth.userPoolId`,
    /// `Storage.AWSS3`, `API.endpoints`, `Analytics.AWSPinpoint`, ...).
    static func looksLikeV5(_ top: [String: JSONValue]) -> Bool {
        isV5Auth(top["Auth"]?.asObject) || isV5API(top["API"]?.asObject)
            || top["Storage"]?["AWSS3"] != nil || top["Analytics"]?["AWSPinpoint"] != nil
    }

    /// v5's `Auth` object (an awsconfiguration.json's `Auth` has only `Default`).
    private static func isV5Auth(_ auth: [String: JSONValue]?) -> Bool {
        guard let auth else { return false }
        return ["userPoolId", "identityPoolId", "userPoolWebClientId"].contains { auth[$0] != nil }
    }

    /// v5's `API` object (v6's has `GraphQL` and `REST` instead).
    private static func isV5API(_ api: [String: JSONValue]?) -> Bool {
        guard let api else { return false }
        return api["endpoints"] != nil || api["graphql_endpoint"] != nil || api.keys.contains { $0.hasPrefix("aws_appsync_") }
    }

    /// Whether the top level is Amplify JS v6's resources object.
    static func looksLikeResources(_ top: [String: JSONValue]) -> Bool {
        top["Auth"]?["Cognito"] != nil || top["Storage"]?["S3"] != nil || top["API"]?["GraphQL"] != nil || top["API"]?["REST"] != nil
            || top["API"]?["Events"] != nil || top["Analytics"]?["Pinpoint"] != nil
    }

    // MARK: Flat shape

    static func translateFlat(_ json: JSONValue, name: String) throws -> ConfigurationDocument.Translation {
        let (top, aliases, v5Keys) = try mergingV5(json.asObject ?? [:], name: name)
        var result = ConfigurationDocument.Translation()
        let reader = FlatReader(top: top, name: name, aliases: aliases)
        result.sourcePaths = ConfigurationSourcePaths.flat(reader.path)
        let projectRegion = try reader.optionalString("aws_project_region")

        let poolId = try reader.optionalString("aws_user_pools_id")
        let identityPoolId = try reader.optionalString("aws_cognito_identity_pool_id")
        if poolId != nil || identityPoolId != nil {
            let region = try reader.optionalString("aws_cognito_region") ?? projectRegion
            var block: [String: JSONValue] = ["AmplifyJS": .object(top.filter { flatAuthKeys.contains($0.key) })]
            if let poolId {
                var pool: [String: JSONValue] = [
                    "PoolId": .string(poolId),
                    "AppClientId": .string(
                        try reader.requiredString("aws_user_pools_web_client_id", because: "\(reader.path("aws_user_pools_id")) is set")),
                ]
                pool["Region"] = (region ?? regionPrefix(poolId, separator: "_")).map(JSONValue.string)
                pool["Endpoint"] = try reader.optionalString("aws_user_pools_endpoint").map(JSONValue.string)
                block["CognitoUserPool"] = ["Default": .object(pool)]
                block["Auth"] = ["Default": .object(try flatAuthDefaults(reader, findings: &result.findings))]
            }
            if let identityPoolId {
                var identity: [String: JSONValue] = ["PoolId": .string(identityPoolId)]
                identity["Region"] = (region ?? regionPrefix(identityPoolId, separator: ":")).map(JSONValue.string)
                block["CredentialsProvider"] = ["CognitoIdentity": ["Default": .object(identity)]]
            }
            result.categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(block)]]
        }

        if let bucket = try reader.optionalString("aws_user_files_s3_bucket") {
            var block: [String: JSONValue] = ["bucket": .string(bucket)]
            block["region"] = (try reader.optionalString("aws_user_files_s3_bucket_region") ?? projectRegion).map(JSONValue.string)
            block["AmplifyJS"] = .object(top.filter { flatStorageKeys.contains($0.key) })
            result.categories["storage"] = ["plugins": ["awsS3StoragePlugin": .object(block)]]
        }

        var apis: [String: JSONValue] = [:]
        if let endpoint = try reader.optionalString("aws_appsync_graphqlEndpoint") {
            var block: [String: JSONValue] = ["endpointType": "GraphQL", "endpoint": .string(endpoint)]
            block["region"] = (try reader.optionalString("aws_appsync_region") ?? projectRegion).map(JSONValue.string)
            block["authorizationType"] = try reader.optionalString("aws_appsync_authenticationType").map(JSONValue.string)
            block["apiKey"] = try reader.optionalString("aws_appsync_apiKey").map(JSONValue.string)
            if let additional = try reader.optionalString("aws_appsync_additionalAuthenticationTypes") {
                let modes = additional.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                block["additionalAuthorizationTypes"] = .array(modes.map(JSONValue.string))
            }
            apis[graphQLAPIName] = .object(block)
        }
        if let rest = top["aws_cloud_logic_custom"], !rest.isNull {
            let restPath = aliases["aws_cloud_logic_custom"] ?? "aws_cloud_logic_custom"
            guard let list = rest.asArray else {
                throw invalid("`\(restPath)` in \(name) is \(rest.typeDescription); an array of {name, endpoint, region} is required.")
            }
            for (index, item) in list.enumerated() {
                let path = "\(restPath)[\(index)]"
                guard let api = item.asObject else { throw invalid("`\(path)` in \(name) is \(item.typeDescription); an object is required.") }
                let apiName = try FlatReader(top: api, name: name, prefix: path).requiredString("name", because: "every REST API has one")
                var block: [String: JSONValue] = ["endpointType": "REST"]
                block["endpoint"] = .string(
                    try FlatReader(top: api, name: name, prefix: path).requiredString("endpoint", because: "every REST API has one"))
                block["region"] = (try FlatReader(top: api, name: name, prefix: path).optionalString("region") ?? projectRegion).map(JSONValue.string)
                block["authorizationType"] = "AWS_IAM"
                apis[apiName] = .object(block)
            }
        }
        if !apis.isEmpty { result.categories["api"] = ["plugins": ["awsAPIPlugin": .object(apis)]] }

        if let appId = try reader.optionalString("aws_mobile_analytics_app_id") {
            let region = try reader.optionalString("aws_mobile_analytics_app_region") ?? projectRegion
            result.categories["analytics"] = [
                "plugins": [
                    "awsPinpointAnalyticsPlugin": [
                        "pinpointAnalytics": ["appId": .string(appId), "region": region.map(JSONValue.string) ?? .null]
                    ]
                ]
            ]
        }

        let read = flatAuthKeys.union(flatStorageKeys).union(flatAPIKeys).union(flatAnalyticsKeys).union(flatGeneralKeys).union(v5Keys)
        for key in top.keys.sorted() where !read.contains(key) {
            if otherCategoryNames.contains(key.lowercased()) {
                result.categories[key] = top[key]
            } else {
                result.findings.append(notRead(key, in: name))
            }
        }
        return result
    }

    /// A key of a JS file that no category of this package reads (`aws_content_delivery`,
    /// `aws_user_pools_mfa_type`, ...): listed, not a warning.
    private static func notRead(_ path: String, in name: String) -> ConfigurationFinding {
        ConfigurationFinding(
            kind: .notHandled, path: path, message: "`\(path)` in \(name) is not read: no category of this package uses it.",
            suggestion: "Nothing to do: it configures a service or a JS library feature this package has no client for.")
    }

    /// The top level with Amplify JS v5's category objects folded into the flat keys they stand
    /// for (the object's value wins, as in Amplify JS), where each such key came from (for errors
    /// that name the file's own path), and the category objects folded in.
    private static func mergingV5(
        _ top: [String: JSONValue], name: String
    ) throws -> (top: [String: JSONValue], aliases: [String: String], consumed: Set<String>) {
        var merged = top
        var aliases: [String: String] = [:]
        var consumed = Set<String>()
        // A key the object leaves out is named by its place in the object too, unless the flat
        // key stands beside it (then a missing value is the flat key's).
        func take(_ object: [String: JSONValue], _ key: String, as flat: String, path: String) {
            guard let value = object[key], !value.isNull else {
                if top[flat] == nil { aliases[flat] = "\(path).\(key)" }
                return
            }
            merged[flat] = value
            aliases[flat] = "\(path).\(key)"
        }
        if let auth = top["Auth"]?.asObject, isV5Auth(auth) {
            consumed.insert("Auth")
            take(auth, "region", as: "aws_cognito_region", path: "Auth")
            take(auth, "userPoolId", as: "aws_user_pools_id", path: "Auth")
            take(auth, "userPoolWebClientId", as: "aws_user_pools_web_client_id", path: "Auth")
            take(auth, "identityPoolId", as: "aws_cognito_identity_pool_id", path: "Auth")
            take(auth, "endpoint", as: "aws_user_pools_endpoint", path: "Auth")
            take(auth, "authenticationFlowType", as: "authenticationFlowType", path: "Auth")
            take(auth, "oauth", as: "oauth", path: "Auth")
        }
        if let s3 = top["Storage"]?["AWSS3"] {
            consumed.insert("Storage")
            let object = try object(s3, "Storage.AWSS3", name)
            take(object, "bucket", as: "aws_user_files_s3_bucket", path: "Storage.AWSS3")
            take(object, "region", as: "aws_user_files_s3_bucket_region", path: "Storage.AWSS3")
        }
        if let api = top["API"]?.asObject, isV5API(api) {
            consumed.insert("API")
            take(api, "endpoints", as: "aws_cloud_logic_custom", path: "API")
            take(api, "graphql_endpoint", as: "aws_appsync_graphqlEndpoint", path: "API")
            take(api, "graphql_endpoint_iam_region", as: "aws_appsync_region", path: "API")
            for key in api.keys where key.hasPrefix("aws_appsync_") { take(api, key, as: key, path: "API") }
        }
        if let pinpoint = top["Analytics"]?["AWSPinpoint"] {
            consumed.insert("Analytics")
            let object = try object(pinpoint, "Analytics.AWSPinpoint", name)
            take(object, "appId", as: "aws_mobile_analytics_app_id", path: "Analytics.AWSPinpoint")
            take(object, "region", as: "aws_mobile_analytics_app_region", path: "Analytics.AWSPinpoint")
        }
        return (merged, aliases, consumed)
    }

    private static func flatAuthDefaults(_ reader: FlatReader, findings: inout [ConfigurationFinding]) throws -> [String: JSONValue] {
        var defaults: [String: JSONValue] = [
            "authenticationFlowType": .string(try reader.optionalString("authenticationFlowType") ?? "USER_SRP_AUTH")
        ]
        guard let oauth = reader.top["oauth"], !oauth.isNull, oauth.asObject?.isEmpty == false else { return defaults }
        let oauthPath = reader.aliases["oauth"] ?? "oauth"
        guard oauth.asObject != nil else { throw invalid("`\(oauthPath)` in \(reader.name) is \(oauth.typeDescription); an object is required.") }
        let nested = FlatReader(top: oauth.asObject ?? [:], name: reader.name, prefix: oauthPath)
        guard let domain = try nested.optionalString("domain") else {
            findings.append(noHostedUI("\(oauthPath).domain", in: reader.name))
            return defaults
        }
        var cli: [String: JSONValue] = ["WebDomain": .string(domain)]
        cli["SignInRedirectURI"] = try nested.uriList("redirectSignIn")
        cli["SignOutRedirectURI"] = try nested.uriList("redirectSignOut")
        cli["AppClientId"] = try nested.optionalString("clientId").map(JSONValue.string)
        if let scopes = oauth["scope"] ?? oauth["scopes"] { cli["Scopes"] = scopes }
        defaults["OAuth"] = .object(cli)
        return defaults
    }

    // MARK: v6 resources object

    static func translateResources(_ json: JSONValue, name: String) throws -> ConfigurationDocument.Translation {
        let top = json.asObject ?? [:]
        var result = ConfigurationDocument.Translation()
        result.sourcePaths = ConfigurationSourcePaths.resources
        if let cognitoValue = top["Auth"]?["Cognito"] {
            let cognito = FlatReader(top: try object(cognitoValue, "Auth.Cognito", name), name: name, prefix: "Auth.Cognito")
            let poolId = try cognito.optionalString("userPoolId")
            let identityPoolId = try cognito.optionalString("identityPoolId")
            guard poolId != nil || identityPoolId != nil else {
                throw invalid("`Auth.Cognito` in \(name) has neither `userPoolId` nor `identityPoolId`; one of them is required.")
            }
            var block: [String: JSONValue] = ["AmplifyJS": cognitoValue]
            if let poolId {
                var pool: [String: JSONValue] = [
                    "PoolId": .string(poolId), "AppClientId": .string(try cognito.requiredString("userPoolClientId", because: "userPoolId is set")),
                ]
                pool["Region"] = regionPrefix(poolId, separator: "_").map(JSONValue.string)
                pool["Endpoint"] = try cognito.optionalString("userPoolEndpoint").map(JSONValue.string)
                block["CognitoUserPool"] = ["Default": .object(pool)]
                var defaults: [String: JSONValue] = ["authenticationFlowType": "USER_SRP_AUTH"]
                if let oauthValue = cognitoValue["loginWith"]?["oauth"], !oauthValue.isNull {
                    let oauth = FlatReader(
                        top: try object(oauthValue, "Auth.Cognito.loginWith.oauth", name), name: name, prefix: "Auth.Cognito.loginWith.oauth")
                    if let domain = try oauth.optionalString("domain") {
                        var cli: [String: JSONValue] = ["WebDomain": .string(domain)]
                        cli["SignInRedirectURI"] = try oauth.uriList("redirectSignIn")
                        cli["SignOutRedirectURI"] = try oauth.uriList("redirectSignOut")
                        cli["Scopes"] = oauthValue["scopes"]
                        defaults["OAuth"] = .object(cli)
                    } else {
                        result.findings.append(noHostedUI("Auth.Cognito.loginWith.oauth.domain", in: name))
                    }
                }
                block["Auth"] = ["Default": .object(defaults)]
            }
            if let identityPoolId {
                var identity: [String: JSONValue] = ["PoolId": .string(identityPoolId)]
                identity["Region"] = regionPrefix(identityPoolId, separator: ":").map(JSONValue.string)
                identity["Endpoint"] = try cognito.optionalString("identityPoolEndpoint").map(JSONValue.string)
                block["CredentialsProvider"] = ["CognitoIdentity": ["Default": .object(identity)]]
            }
            result.categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(block)]]
        }
        if let s3Value = top["Storage"]?["S3"] {
            let s3 = FlatReader(top: try object(s3Value, "Storage.S3", name), name: name, prefix: "Storage.S3")
            var block: [String: JSONValue] = ["AmplifyJS": s3Value]
            block["bucket"] = .string(try s3.requiredString("bucket", because: "the S3 plugin needs its bucket"))
            block["region"] = .string(try s3.requiredString("region", because: "the S3 plugin needs the bucket's region"))
            if let buckets = s3Value["buckets"]?.asObject {
                block["buckets"] = .array(
                    buckets.keys.sorted().map { key in
                        let bucket = buckets[key] ?? .null
                        var entry: [String: JSONValue] = ["name": .string(key)]
                        entry["bucket_name"] = bucket["bucketName"]
                        entry["aws_region"] = bucket["region"]
                        entry["paths"] = bucket["paths"]
                        return .object(entry)
                    })
            }
            result.categories["storage"] = ["plugins": ["awsS3StoragePlugin": .object(block)]]
        }
        var apis: [String: JSONValue] = [:]
        if let graphQLValue = top["API"]?["GraphQL"] {
            let graphQL = FlatReader(top: try object(graphQLValue, "API.GraphQL", name), name: name, prefix: "API.GraphQL")
            var block: [String: JSONValue] = ["endpointType": "GraphQL"]
            block["endpoint"] = .string(try graphQL.requiredString("endpoint", because: "the API needs it"))
            block["region"] = try graphQL.optionalString("region").map(JSONValue.string)
            block["authorizationType"] = try graphQL.optionalString("defaultAuthMode").map { .string(authorizationType(fromJS: $0)) }
            block["apiKey"] = try graphQL.optionalString("apiKey").map(JSONValue.string)
            apis[graphQLAPIName] = .object(block)
        }
        if let eventsValue = top["API"]?["Events"] {
            let events = FlatReader(top: try object(eventsValue, "API.Events", name), name: name, prefix: "API.Events")
            var block: [String: JSONValue] = ["endpointType": "Events"]
            block["endpoint"] = .string(try events.requiredString("endpoint", because: "the Events API needs it"))
            block["region"] = try events.optionalString("region").map(JSONValue.string)
            block["authorizationType"] = try events.optionalString("defaultAuthMode").map { .string(authorizationType(fromJS: $0)) }
            block["apiKey"] = try events.optionalString("apiKey").map(JSONValue.string)
            apis[eventsAPIName] = .object(block)
        }
        if let restValue = top["API"]?["REST"] {
            for (apiName, api) in try object(restValue, "API.REST", name) {
                let rest = FlatReader(top: try object(api, "API.REST.\(apiName)", name), name: name, prefix: "API.REST.\(apiName)")
                var block: [String: JSONValue] = ["endpointType": "REST", "authorizationType": "AWS_IAM"]
                block["endpoint"] = .string(try rest.requiredString("endpoint", because: "the API needs it"))
                block["region"] = try rest.optionalString("region").map(JSONValue.string)
                apis[apiName] = .object(block)
            }
        }
        if !apis.isEmpty { result.categories["api"] = ["plugins": ["awsAPIPlugin": .object(apis)]] }
        if let pinpoint = top["Analytics"]?["Pinpoint"] {
            result.categories["analytics"] = [
                "plugins": [
                    "awsPinpointAnalyticsPlugin": [
                        "pinpointAnalytics": ["appId": pinpoint["appId"] ?? .null, "region": pinpoint["region"] ?? .null]
                    ]
                ]
            ]
        }
        for (key, value) in top where !["Auth", "Storage", "API", "Analytics"].contains(key) {
            result.categories[key.lowercased()] = value
        }
        // What this package has no client for inside the categories it has (`API.Events`,
        // `Analytics.Kinesis`, ...) is listed, not dropped without a word.
        let read = ["Auth": ["Cognito"], "Storage": ["S3"], "API": ["GraphQL", "REST", "Events"], "Analytics": ["Pinpoint"]]
        for (category, known) in read.sorted(by: { $0.key < $1.key }) {
            for key in (top[category]?.asObject ?? [:]).keys.sorted() where !known.contains(key) {
                result.findings.append(
                    ConfigurationFinding(
                        kind: .notHandled, path: "\(category).\(key)",
                        message: "The `\(category).\(key)` block of \(name) is not handled: this package has no client for it.",
                        suggestion: "Nothing to do: the rest of the file configures."))
            }
        }
        return result
    }

    /// An OAuth block whose domain is empty or missing: Amplify JS accepts it and fails only at
    /// a hosted-UI sign-in, so the rest configures, without the hosted UI.
    private static func noHostedUI(_ path: String, in name: String) -> ConfigurationFinding {
        ConfigurationFinding(
            kind: .placeholder, path: path,
            message:
                "`\(path)` in \(name) is empty or missing, so no hosted UI is configured (signInWithWebUI will say so); the rest of Auth configures.",
            suggestion: "Set the Cognito domain (`<prefix>.auth.<region>.amazoncognito.com`) if the hosted UI is used, or remove the OAuth block.")
    }

    /// amplify-swift's name of a JS auth mode (`apiKey` → `API_KEY`, ...); unknown ones pass as they are.
    static func authorizationType(fromJS mode: String) -> String {
        switch mode {
        case "apiKey": "API_KEY"
        case "iam", "identityPool": "AWS_IAM"
        case "userPool": "AMAZON_COGNITO_USER_POOLS"
        case "oidc": "OPENID_CONNECT"
        case "lambda": "AWS_LAMBDA"
        case "none": "NONE"
        default: mode
        }
    }

    // MARK: Reading values

    /// `us-east-1` of `us-east-1_AbC` or `us-east-1:0000-…`.
    private static func regionPrefix(_ id: String, separator: Character) -> String? {
        guard let index = id.firstIndex(of: separator), index != id.startIndex else { return nil }
        return String(id[..<index])
    }

    private static func object(_ value: JSONValue, _ path: String, _ name: String) throws -> [String: JSONValue] {
        guard let object = value.asObject else { throw invalid("`\(path)` in \(name) is \(value.typeDescription); an object is required.") }
        return object
    }

    private static func invalid(_ description: String) -> ConfigurationError {
        .invalidAmplifyConfigurationFile(description, "Regenerate the file with the Amplify tooling (`amplify pull`), or fix the value it names.")
    }

    /// Typed reads from one object of a JS file, with errors naming the key's path.
    private struct FlatReader {
        let top: [String: JSONValue]
        let name: String
        var prefix = ""
        /// For a key that came from a v5 category object, the path it has in the file.
        var aliases: [String: String] = [:]

        init(top: [String: JSONValue], name: String, prefix: String = "", aliases: [String: String] = [:]) {
            self.top = top
            self.name = name
            self.prefix = prefix
            self.aliases = aliases
        }

        /// Where `key` is in the file.
        func path(_ key: String) -> String { aliases[key] ?? (prefix.isEmpty ? key : "\(prefix).\(key)") }

        /// A string, or `nil` when absent, `null` or empty (hand-edited files leave those).
        func optionalString(_ key: String) throws -> String? {
            guard let value = top[key], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                throw AmplifyJSTranslator.invalid("`\(path(key))` in \(name) is \(value.typeDescription); a string is required.")
            }
            return text.isEmpty ? nil : text
        }

        func requiredString(_ key: String, because reason: String) throws -> String {
            guard let text = try optionalString(key) else {
                throw AmplifyJSTranslator.invalid("`\(path(key))` in \(name) is missing; a non-empty string is required (\(reason)).")
            }
            return text
        }

        /// A redirect URI list: a comma-separated string or an array, as the CLI's `OAuth` block
        /// takes it.
        func uriList(_ key: String) throws -> JSONValue? {
            guard let value = top[key], !value.isNull else { return nil }
            if let text = value.stringValue { return .string(text) }
            guard let items = value.asArray, items.allSatisfy({ $0.stringValue != nil }) else {
                throw AmplifyJSTranslator.invalid(
                    "`\(path(key))` in \(name) is \(value.typeDescription); a string or an array of strings is required.")
            }
            return .array(items)
        }
    }
}
