/// A value in a plugin's configuration block is missing or of the wrong type.
///
/// Thrown by the `JSONValue.required…` / `optional…` readers. When a plugin throws it from
/// `configure(using:)`, `Amplify.configure()` turns it into a
/// ``PluginError/pluginConfigurationError(_:_:_:)`` that names the full JSON path, for example
/// `auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.PoolId`.
public struct ConfigurationValueError: Error, Sendable, Equatable {
    /// The dotted path inside the plugin's block (`CognitoUserPool.Default.PoolId`).
    public var keyPath: String
    /// What was expected there ("a non-empty string").
    public var expected: String
    /// What was there instead; `nil` when the key was missing.
    public var found: JSONValue?

    /// Describes a value at `keyPath` that was expected to be `expected` but was `found`.
    public init(keyPath: String, expected: String, found: JSONValue?) {
        self.keyPath = keyPath
        self.expected = expected
        self.found = found
    }

    /// "is missing", "is an empty string", "is a number", or a string's value (`is "TODO"`) when
    /// the key does not look like it holds a secret.
    var problem: String {
        guard let found else { return "is missing" }
        guard let text = found.stringValue else { return "is \(found.typeDescription)" }
        if text.isEmpty { return "is an empty string" }
        let lowered = keyPath.lowercased()
        let secret = ["secret", "password", "token", "key", "credential"].contains { lowered.contains($0) }
        guard !secret else { return "is a string" }
        return "is \"\(PrintableText(text, limit: 80))\""
    }
}

extension JSONValue {
    /// The value at `keyPath`, which must exist and not be `null`.
    /// - Throws: ``ConfigurationValueError`` naming the path.
    public func required(_ keyPath: String) throws(ConfigurationValueError) -> JSONValue {
        guard let value = value(at: keyPath), !value.isNull else {
            throw ConfigurationValueError(keyPath: keyPath, expected: "a value", found: nil)
        }
        return value
    }

    /// The non-empty string at `keyPath`.
    /// - Throws: ``ConfigurationValueError`` if it is missing, empty, or not a string.
    public func requiredString(_ keyPath: String) throws(ConfigurationValueError) -> String {
        let value = value(at: keyPath)
        guard let string = value?.stringValue, !string.isEmpty else {
            throw ConfigurationValueError(keyPath: keyPath, expected: "a non-empty string", found: value)
        }
        return string
    }

    /// The object at `keyPath`.
    /// - Throws: ``ConfigurationValueError`` if it is missing or not an object.
    public func requiredObject(_ keyPath: String) throws(ConfigurationValueError) -> JSONValue {
        let value = value(at: keyPath)
        guard let value, value.asObject != nil else {
            throw ConfigurationValueError(keyPath: keyPath, expected: "an object", found: value)
        }
        return value
    }

    /// The string at `keyPath`, or `nil` if the key is absent or `null`.
    /// - Throws: ``ConfigurationValueError`` if it is present but not a string.
    public func optionalString(_ keyPath: String) throws(ConfigurationValueError) -> String? {
        try optional(keyPath, expected: "a string") { $0.stringValue }
    }

    /// The integer at `keyPath`, or `nil` if absent.
    /// - Throws: ``ConfigurationValueError`` if it is present but not a whole number.
    public func optionalInt(_ keyPath: String) throws(ConfigurationValueError) -> Int? {
        try optional(keyPath, expected: "a whole number") { $0.intValue }
    }

    /// The number at `keyPath`, or `nil` if absent.
    /// - Throws: ``ConfigurationValueError`` if it is present but not a number.
    public func optionalDouble(_ keyPath: String) throws(ConfigurationValueError) -> Double? {
        try optional(keyPath, expected: "a number") { $0.doubleValue }
    }

    /// The Boolean at `keyPath`, or `nil` if absent.
    /// - Throws: ``ConfigurationValueError`` if it is present but not `true` or `false`.
    public func optionalBool(_ keyPath: String) throws(ConfigurationValueError) -> Bool? {
        try optional(keyPath, expected: "true or false") { $0.booleanValue }
    }

    private func optional<T>(
        _ keyPath: String, expected: String, _ extract: (JSONValue) -> T?
    ) throws(ConfigurationValueError) -> T? {
        guard let value = value(at: keyPath), !value.isNull else { return nil }
        guard let result = extract(value) else {
            throw ConfigurationValueError(keyPath: keyPath, expected: expected, found: value)
        }
        return result
    }
}
