/// Translates a Gen 2 `amplify_outputs.json` (versions "1" to "1.5", snake_case sections) into
/// the Gen 1 category shape, so each plugin reads one shape:
/// - `auth` becomes an `awsCognitoAuthPlugin` block (`CognitoUserPool.Default` when there is a
///   user pool, `CredentialsProvider.CognitoIdentity.Default` when there is an identity pool,
///   `Auth.Default`), with the original section kept under `AmplifyOutputs` (groups,
///   passwordless, MFA methods and OAuth providers are read from there);
/// - `storage` becomes an `awsS3StoragePlugin` block (`bucket`, `region` of the default bucket,
///   and every bucket of `buckets` with its `paths` access rules);
/// - `data` becomes `api.plugins.awsAPIPlugin.data` (`endpointType` GraphQL, `endpoint`,
///   `region`, `authorizationType`, `apiKey`, `additionalAuthorizationTypes`);
/// - `analytics.amazon_pinpoint` becomes an `awsPinpointAnalyticsPlugin` block (retired: a warning);
/// - `custom.events` (an AppSync Events API, as Amplify JS reads it) becomes
///   `api.plugins.awsAPIPlugin.events` (`endpointType` Events);
/// - `custom` is kept as ``AmplifyConfiguration/custom``; `geo` and `notifications` are kept as
///   blocks this package does not handle;
/// - a section that already has a `plugins` object (this package's extension, for the embedded
///   local plugins) is taken as it is.
///
/// Keys beyond the schema are findings (warnings), not errors; a missing or mistyped required
/// key is an error naming its path.
enum AmplifyOutputsTranslator {
    /// The versions whose schema this package knows.
    static let knownVersions = ["1", "1.1", "1.2", "1.3", "1.4", "1.5"]

    private static let topKeys: Set<String> = ["$schema", "version", "auth", "data", "storage", "analytics", "geo", "notifications", "custom"]
    private static let authKeys: Set<String> = [
        "aws_region", "authentication_flow_type", "user_pool_id", "user_pool_client_id", "identity_pool_id", "password_policy", "oauth",
        "standard_required_attributes", "username_attributes", "user_verification_types", "groups", "unauthenticated_identities_enabled",
        "mfa_configuration", "mfa_methods", "passwordless",
    ]
    private static let storageKeys: Set<String> = ["aws_region", "bucket_name", "buckets"]
    private static let bucketKeys: Set<String> = ["name", "bucket_name", "aws_region", "paths"]
    private static let dataKeys: Set<String> = [
        "aws_region", "url", "model_introspection", "api_key", "default_authorization_type", "authorization_types", "conflict_resolution_mode",
    ]
    private static let eventsKeys: Set<String> = ["url", "aws_region", "default_authorization_type", "api_key"]
    private static let permissions: Set<String> = ["get", "list", "write", "delete", "read"]
    private static let mfaMethods: Set<String> = ["SMS", "TOTP", "EMAIL"]

    /// A reader of one file, collecting findings as it goes.
    private struct Reader {
        let name: String
        var findings: [ConfigurationFinding] = []

        mutating func warnUnknown(_ section: [String: JSONValue], known: Set<String>, at path: String) {
            for key in section.keys.sorted() where !known.contains(key) {
                let fullPath = path.isEmpty ? key : "\(path).\(key)"
                findings.append(
                    ConfigurationFinding(
                        kind: .unknownKey, path: fullPath,
                        message:
                            "`\(fullPath)` in \(name) is not part of the amplify_outputs.json schema (versions \(knownVersions.joined(separator: ", "))); it is ignored.",
                        suggestion: "Remove it, or check its spelling; `npx ampx generate outputs` writes only schema keys."))
            }
        }

        func object(_ value: JSONValue, _ path: String) throws -> [String: JSONValue] {
            guard let object = value.asObject else {
                throw invalid(
                    "`\(path)` in \(name) is \(value.typeDescription), but it must be an object.",
                    "Regenerate the file with `npx ampx generate outputs`.")
            }
            return object
        }

        func string(_ section: [String: JSONValue], _ key: String, in path: String) throws -> String {
            guard let value = section[key]?.stringValue, !value.isEmpty else {
                let found = section[key].map { "is \($0.typeDescription)" } ?? "is missing"
                throw invalid(
                    "`\(path).\(key)` in \(name) \(found); a non-empty string is required.",
                    "Regenerate the file with `npx ampx generate outputs`, or add `\(key)` to the `\(path)` section.")
            }
            return value
        }

        func optionalString(_ section: [String: JSONValue], _ key: String, in path: String) throws -> String? {
            guard let value = section[key], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                throw invalid(
                    "`\(path).\(key)` in \(name) is \(value.typeDescription); a string is required.",
                    "Regenerate the file with `npx ampx generate outputs`.")
            }
            return text.isEmpty ? nil : text
        }

        func strings(_ section: [String: JSONValue], _ key: String, in path: String) throws -> [String] {
            guard let value = section[key], !value.isNull else { return [] }
            guard let items = value.asArray, items.allSatisfy({ $0.stringValue != nil }) else {
                throw invalid(
                    "`\(path).\(key)` in \(name) is \(value.typeDescription); an array of strings is required.",
                    "Regenerate the file with `npx ampx generate outputs`.")
            }
            return items.compactMap(\.stringValue)
        }
    }

    static func translate(_ json: JSONValue, name: String) throws -> ConfigurationDocument.Translation {
        guard let top = json.asObject else {
            throw invalid(
                "\(name) is \(json.typeDescription), but amplify_outputs.json is a JSON object.",
                "Regenerate it with `npx ampx generate outputs`.")
        }
        var result = ConfigurationDocument.Translation()
        result.sourcePaths = ConfigurationSourcePaths.gen2
        var reader = Reader(name: name)
        if top.isEmpty {
            result.findings.append(placeholder(name))
            return result
        }
        guard let version = top["version"]?.stringValue, !version.isEmpty else {
            throw invalid(
                "\(name) has no string `version`, so it is not an amplify_outputs.json.",
                "Regenerate it with `npx ampx generate outputs`, or pass a Gen 1 amplifyconfiguration.json to Amplify.configure(_:) instead.")
        }
        guard version == "1" || version.hasPrefix("1.") else {
            throw invalid(
                "\(name) has `version` \"\(version)\", which this package does not know; it reads versions \(knownVersions.joined(separator: ", ")).",
                "Generate the file with a version 1 schema (`npx ampx generate outputs --outputs-version 1.4`), or update this package.")
        }
        if !knownVersions.contains(version) {
            reader.findings.append(
                ConfigurationFinding(
                    kind: .unknownKey, path: "version",
                    message:
                        "\(name) has `version` \"\(version)\", newer than the versions this package knows (\(knownVersions.joined(separator: ", "))); it is read as 1.5.",
                    suggestion: "Update this package to read what the newer version adds."))
        }
        if top.keys.allSatisfy({ $0 == "version" || $0 == "$schema" }) { reader.findings.append(placeholder(name)) }
        reader.warnUnknown(top, known: topKeys, at: "")

        for (key, section) in top where topKeys.contains(key) && key != "version" && key != "$schema" {
            if section["plugins"] != nil {
                result.categories[key] = section
                continue
            }
            switch key {
            case "auth": result.categories["auth"] = ["plugins": ["awsCognitoAuthPlugin": try auth(section, &reader)]]
            case "storage": result.categories["storage"] = ["plugins": ["awsS3StoragePlugin": try storage(section, &reader)]]
            case "data": result.categories["api"] = ["plugins": ["awsAPIPlugin": ["data": try data(section, &reader)]]]
            case "analytics": if let analytics = try analytics(section, &reader) { result.categories["analytics"] = analytics }
            case "custom": result.custom = section
            default: result.categories[key] = section
            }
        }
        if let events = top["custom"]?["events"], top["custom"]?["plugins"] == nil {
            let block = try self.events(events, &reader)
            // Into what the api section already holds: its other plugins and APIs stay.
            var category = result.categories["api"]?.asObject ?? [:]
            var plugins = category["plugins"]?.asObject ?? [:]
            var apis = plugins["awsAPIPlugin"]?.asObject ?? [:]
            if apis[AmplifyJSTranslator.eventsAPIName] == nil {
                apis[AmplifyJSTranslator.eventsAPIName] = block
                plugins["awsAPIPlugin"] = .object(apis)
                category["plugins"] = .object(plugins)
                result.categories["api"] = .object(category)
            } else {
                reader.findings.append(
                    ConfigurationFinding(
                        kind: .unknownKey, path: "custom.events",
                        message: "`custom.events` in \(reader.name) is not read: the api section already names an API `events`.",
                        suggestion: "Rename one of them."))
            }
        }
        result.findings += reader.findings
        return result
    }

    private static func placeholder(_ name: String) -> ConfigurationFinding {
        ConfigurationFinding(
            kind: .placeholder, path: "",
            message: "\(name) holds no resources (a placeholder): nothing is configured from it.",
            suggestion: "Run `npx ampx sandbox` or `npx ampx generate outputs` to write the real file.")
    }

    // MARK: Sections

    private static func auth(_ value: JSONValue, _ reader: inout Reader) throws -> JSONValue {
        let section = try reader.object(value, "auth")
        reader.warnUnknown(section, known: authKeys, at: "auth")
        let region = try reader.string(section, "aws_region", in: "auth")
        let identityPool = try reader.optionalString(section, "identity_pool_id", in: "auth")
        var block: [String: JSONValue] = ["AmplifyOutputs": value]
        // Identity pool only (guest credentials) is a valid Gen 2 auth section; otherwise both
        // user pool keys are required.
        if identityPool == nil || section["user_pool_id"] != nil || section["user_pool_client_id"] != nil {
            let poolId = try reader.string(section, "user_pool_id", in: "auth")
            let clientId = try reader.string(section, "user_pool_client_id", in: "auth")
            block["CognitoUserPool"] = ["Default": ["PoolId": .string(poolId), "AppClientId": .string(clientId), "Region": .string(region)]]
        }
        let flow = try reader.optionalString(section, "authentication_flow_type", in: "auth") ?? "USER_SRP_AUTH"
        block["Auth"] = ["Default": ["authenticationFlowType": .string(flow)]]
        if let identityPool {
            block["CredentialsProvider"] = ["CognitoIdentity": ["Default": ["PoolId": .string(identityPool), "Region": .string(region)]]]
        }
        for method in try reader.strings(section, "mfa_methods", in: "auth") where !mfaMethods.contains(method) {
            reader.findings.append(
                ConfigurationFinding(
                    kind: .unknownKey, path: "auth.mfa_methods",
                    message:
                        "`auth.mfa_methods` in \(reader.name) names \"\(method)\", which is not an MFA method this package knows (SMS, TOTP, EMAIL).",
                    suggestion: "Check the value; `npx ampx generate outputs` writes SMS, TOTP and EMAIL."))
        }
        if let groups = section["groups"], !groups.isNull {
            guard let list = groups.asArray, list.allSatisfy({ $0.asObject != nil }) else {
                throw invalid(
                    "`auth.groups` in \(reader.name) is \(groups.typeDescription); an array of {\"<group>\": {\"precedence\": n}} objects is required.",
                    "Regenerate the file with `npx ampx generate outputs`.")
            }
        }
        if let passwordless = section["passwordless"], !passwordless.isNull { _ = try reader.object(passwordless, "auth.passwordless") }
        if let oauth = section["oauth"], !oauth.isNull {
            let object = try reader.object(oauth, "auth.oauth")
            _ = try reader.string(object, "domain", in: "auth.oauth")
            _ = try reader.strings(object, "identity_providers", in: "auth.oauth")
            _ = try reader.strings(object, "scopes", in: "auth.oauth")
        }
        return .object(block)
    }

    private static func storage(_ value: JSONValue, _ reader: inout Reader) throws -> JSONValue {
        let section = try reader.object(value, "storage")
        reader.warnUnknown(section, known: storageKeys, at: "storage")
        var buckets: [JSONValue] = []
        if let list = section["buckets"], !list.isNull {
            guard let items = list.asArray else {
                throw invalid(
                    "`storage.buckets` in \(reader.name) is \(list.typeDescription); an array of buckets is required.",
                    "Regenerate the file with `npx ampx generate outputs`.")
            }
            var names = Set<String>()
            for (index, item) in items.enumerated() {
                let path = "storage.buckets[\(index)]"
                let bucket = try reader.object(item, path)
                reader.warnUnknown(bucket, known: bucketKeys, at: path)
                let name = try reader.string(bucket, "name", in: path)
                _ = try reader.string(bucket, "bucket_name", in: path)
                _ = try reader.string(bucket, "aws_region", in: path)
                guard names.insert(name).inserted else {
                    throw invalid(
                        "`\(path).name` in \(reader.name) is \"\(name)\", the name of an earlier bucket too; bucket names must be unique.",
                        "Give each bucket of `defineStorage` its own name.")
                }
                if let paths = bucket["paths"], !paths.isNull { try checkPaths(paths, at: "\(path).paths", &reader) }
                buckets.append(item)
            }
        }
        // The default bucket: the section's own keys, else the first of `buckets`.
        let defaultBucket: (String, String)
        if section["bucket_name"] != nil || buckets.isEmpty {
            defaultBucket = (try reader.string(section, "bucket_name", in: "storage"), try reader.string(section, "aws_region", in: "storage"))
        } else {
            let first = buckets[0].asObject ?? [:]
            defaultBucket = (first["bucket_name"]?.stringValue ?? "", first["aws_region"]?.stringValue ?? "")
        }
        var block: [String: JSONValue] = ["bucket": .string(defaultBucket.0), "region": .string(defaultBucket.1), "AmplifyOutputs": value]
        if !buckets.isEmpty { block["buckets"] = .array(buckets) }
        return .object(block)
    }

    /// `{"<prefix>/*": {"guest": ["get", "list"], "authenticated": [...], "groupsAdmin": [...], "entityidentity": [...]}}`.
    private static func checkPaths(_ value: JSONValue, at path: String, _ reader: inout Reader) throws {
        let paths = try reader.object(value, path)
        for (prefix, rules) in paths.sorted(by: { $0.key < $1.key }) {
            let rulePath = "\(path).\(prefix)"
            let grants = try reader.object(rules, rulePath)
            for who in grants.keys.sorted() {
                let known = who == "guest" || who == "authenticated" || who == "resource" || who.hasPrefix("group") || who.hasPrefix("entity")
                if !known {
                    reader.findings.append(
                        ConfigurationFinding(
                            kind: .unknownKey, path: "\(rulePath).\(who)",
                            message:
                                "`\(rulePath).\(who)` in \(reader.name) is not an access rule this package knows (guest, authenticated, group…, entity…, resource); it is ignored.",
                            suggestion: "Check the rule's name."))
                }
                for permission in try reader.strings(grants, who, in: rulePath) where !permissions.contains(permission) {
                    reader.findings.append(
                        ConfigurationFinding(
                            kind: .unknownKey, path: "\(rulePath).\(who)",
                            message:
                                "`\(rulePath).\(who)` in \(reader.name) grants \"\(permission)\", which is not a permission this package knows (get, list, write, delete, read); it is ignored.",
                            suggestion: "Check the permission's spelling."))
                }
            }
        }
    }

    private static func data(_ value: JSONValue, _ reader: inout Reader) throws -> JSONValue {
        let section = try reader.object(value, "data")
        reader.warnUnknown(section, known: dataKeys, at: "data")
        var block: [String: JSONValue] = [
            "endpointType": "GraphQL",
            "endpoint": .string(try reader.string(section, "url", in: "data")),
            "region": .string(try reader.string(section, "aws_region", in: "data")),
            "authorizationType": .string(try reader.string(section, "default_authorization_type", in: "data")),
            "AmplifyOutputs": value,
        ]
        block["apiKey"] = try reader.optionalString(section, "api_key", in: "data").map(JSONValue.string)
        let additional = try reader.strings(section, "authorization_types", in: "data")
        if !additional.isEmpty { block["additionalAuthorizationTypes"] = .array(additional.map(JSONValue.string)) }
        return .object(block)
    }

    /// `custom.events` (Amplify JS's `AmplifyOutputsCustomProperties.events`): an AppSync Events
    /// API, `api.plugins.awsAPIPlugin.events`.
    private static func events(_ value: JSONValue, _ reader: inout Reader) throws -> JSONValue {
        let section = try reader.object(value, "custom.events")
        reader.warnUnknown(section, known: eventsKeys, at: "custom.events")
        var block: [String: JSONValue] = [
            "endpointType": "Events",
            "endpoint": .string(try reader.string(section, "url", in: "custom.events")),
            "region": .string(try reader.string(section, "aws_region", in: "custom.events")),
            "authorizationType": .string(try reader.string(section, "default_authorization_type", in: "custom.events")),
        ]
        block["apiKey"] = try reader.optionalString(section, "api_key", in: "custom.events").map(JSONValue.string)
        return .object(block)
    }

    private static func analytics(_ value: JSONValue, _ reader: inout Reader) throws -> JSONValue? {
        let section = try reader.object(value, "analytics")
        reader.warnUnknown(section, known: ["amazon_pinpoint"], at: "analytics")
        guard let pinpoint = section["amazon_pinpoint"] else { return nil }
        let object = try reader.object(pinpoint, "analytics.amazon_pinpoint")
        let region = try reader.string(object, "aws_region", in: "analytics.amazon_pinpoint")
        let appId = try reader.string(object, "app_id", in: "analytics.amazon_pinpoint")
        return [
            "plugins": [
                "awsPinpointAnalyticsPlugin": [
                    "pinpointAnalytics": ["appId": .string(appId), "region": .string(region)]
                ]
            ]
        ]
    }

    /// A Gen 2 file that reads but does not decode: amplify-swift's `unableToDecode`.
    private static func invalid(_ description: String, _ suggestion: String) -> ConfigurationError {
        .unableToDecode(description, suggestion)
    }
}
