import Amplify
import Foundation

/// The key facts of a configuration, per category and plugin, as text or JSON. Values whose
/// names suggest a secret are reported as "set", never printed.
struct ConfigurationSummary {
    struct PluginFacts {
        let key: String
        let facts: [(String, String)]
    }

    let file: String
    let format: String
    let categories: [(CategoryType, [PluginFacts])]
    let skipped: [String]
    /// Paths in the file no category reads (a JS file's `aws_content_delivery`, `Analytics.Kinesis`, ...).
    let notRead: [String]
    /// The top-level keys of a Gen 2 file's `custom` section, kept for the application.
    let customKeys: [String]?
    let resources: [ConfigurationResource]

    /// Known facts: a path inside a plugin block and the label it is shown with.
    private static let knownFacts: [(String, String)] = [
        ("CognitoUserPool.Default.PoolId", "user pool"),
        ("CognitoUserPool.Default.AppClientId", "app client"),
        ("CognitoUserPool.Default.Region", "region"),
        ("CognitoUserPool.Default.Endpoint", "endpoint"),
        ("CognitoUserPool.Default.AppClientSecret", "client secret"),
        ("CredentialsProvider.CognitoIdentity.Default.PoolId", "identity pool"),
        ("Auth.Default.authenticationFlowType", "sign-in flow"),
        ("Auth.Default.OAuth.WebDomain", "hosted UI"),
        ("AmplifyOutputs.oauth.domain", "hosted UI"),
        ("bucket", "bucket"),
        ("region", "region"),
        ("defaultAccessLevel", "default access level"),
        ("pinpointAnalytics.appId", "Pinpoint app"),
        ("pinpointAnalytics.region", "region"),
    ]

    init(_ configuration: AmplifyConfiguration) {
        file = configuration.sourceFile?.path ?? "(in code)"
        format = configuration.format.description
        resources = ConfigurationResource.all(in: configuration)
        categories = CategoryType.configurationOrder.compactMap { category in
            guard let block = configuration[category] else { return nil }
            let plugins = block.plugins.keys.sorted().map { key in
                PluginFacts(
                    key: key,
                    facts: category == .api && key == "awsAPIPlugin"
                        ? Self.apiFacts(block.plugins[key] ?? [:]) : Self.facts(of: block.plugins[key] ?? [:]))
            }
            return (category, plugins)
        }
        skipped = configuration.otherCategories.keys.sorted()
        notRead = configuration.findings.filter { $0.kind == .notHandled && configuration.otherCategories[$0.path] == nil }.map(\.path).sorted()
        customKeys = configuration.custom.map { ($0.asObject ?? [:]).keys.sorted() }
    }

    var pluginCount: Int { categories.reduce(0) { $0 + $1.1.count } }

    /// One fact per API of an `awsAPIPlugin` block: its name, and its type and default auth mode.
    static func apiFacts(_ block: JSONValue) -> [(String, String)] {
        (block.asObject ?? [:]).sorted { $0.key < $1.key }.map { name, api in
            (name, (api["endpointType"]?.stringValue ?? "?") + (api["authorizationType"]?.stringValue.map { " (\($0))" } ?? ""))
        }
    }

    static func facts(of block: JSONValue) -> [(String, String)] {
        var facts: [(String, String)] = []
        var used = Set<String>()
        for (path, label) in knownFacts {
            // An empty string configures nothing (an empty client secret is no secret).
            guard let value = block.value(at: path), let text = scalarText(value), !text.isEmpty else { continue }
            used.insert(path)
            facts.append((label, isSecret(path) ? "set" : text))
        }
        // Any other top-level scalar settings (a third-party plugin's own keys).
        for key in (block.asObject ?? [:]).keys.sorted() where !used.contains(key) {
            guard let value = block[key], let text = scalarText(value) else { continue }
            facts.append((key, isSecret(key) ? "set" : text))
        }
        return facts
    }

    private static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): Int64(exactly: number).map(String.init) ?? String(number)
        case .boolean(let flag): String(flag)
        default: nil
        }
    }

    private static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["secret", "password", "privatekey", "private_key", "apikey", "api_key"].contains { lowered.contains($0) }
            || lowered.hasSuffix("token")
    }

    var text: String {
        var lines = ["Configuration: \(file) (\(format))"]
        if categories.isEmpty { lines.append("  (no categories)") }
        for (category, plugins) in categories {
            lines.append("\(category.displayName):")
            if plugins.isEmpty { lines.append("  (no plugins)") }
            for plugin in plugins {
                let facts = plugin.facts.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
                lines.append("  \(plugin.key)" + (facts.isEmpty ? "" : " — \(facts)"))
            }
        }
        for key in skipped { lines.append("\(key): not handled (this package has no \(key) category)") }
        if !notRead.isEmpty { lines.append("Not read (no category of this package uses them): \(notRead.joined(separator: ", "))") }
        if let customKeys {
            lines.append(
                "custom: kept for the application (AmplifyConfiguration.custom)"
                    + (customKeys.isEmpty ? "" : ": \(customKeys.joined(separator: ", "))"))
        }
        if !resources.isEmpty {
            lines.append("Resources:")
            for resource in resources { lines.append("  \(resource.text)") }
        }
        // Keys and values come from the file: each line is escaped before the lines are
        // joined, so a value cannot add a line or move the terminal's cursor.
        return lines.map { PrintableText($0).description }.joined(separator: "\n")
    }

    var json: JSONValue {
        .object([
            "file": .string(file),
            "format": .string(format),
            "resources": .array(resources.map(\.json)),
            "categories": .array(
                categories.map { category, plugins in
                    .object([
                        "category": .string(category.rawValue),
                        "plugins": .array(
                            plugins.map { plugin in
                                .object([
                                    "key": .string(plugin.key),
                                    "facts": .object(
                                        Dictionary(plugin.facts.map { ($0.0, JSONValue.string($0.1)) }, uniquingKeysWith: { first, _ in first })),
                                ])
                            }),
                    ])
                }),
            "skipped": .array(skipped.map { .string($0) }),
            "notRead": .array(notRead.map { .string($0) }),
            "custom": customKeys.map { .array($0.map(JSONValue.string)) } ?? .null,
        ])
    }
}
