/// Something in a configuration file that was read but not applied, reported instead of
/// failing the whole file (amplify-swift's rule: a key with no plugin is logged, the rest
/// configures).
///
/// Findings come from two places: reading the file (a key outside the Gen 2 schema, a
/// placeholder file, a category this package does not have) and `Amplify.configure` (a plugin
/// key with no plugin added or registered, a retired service). Each is logged at `warn` (or
/// `info` for ``Kind/notHandled``) under the category "Amplify" and dispatched on the Hub's
/// `.logging` channel as ``HubPayload/EventName-swift.enum/Amplify/configurationWarning``;
/// `Amplify.configurationFindings` keeps those of the last `configure`.
public struct ConfigurationFinding: Sendable, Equatable, CustomStringConvertible {
    /// What kind of finding it is.
    public enum Kind: String, Sendable, Equatable {
        /// A plugin key that no added plugin and no registered factory answers to.
        case unusedPlugin
        /// A block for a service that reached end of support (Amazon Pinpoint).
        case retiredService
        /// A key this package does not know inside a section it reads (a Gen 2 key beyond the
        /// schema, a typo).
        case unknownKey
        /// A file that holds no resources at all (`{}`, `{"version": "1"}`).
        case placeholder
        /// A block for a category this package does not have (geo, predictions, ...): listed,
        /// not a warning.
        case notHandled
        /// A value a plugin accepted but that cannot work as written (a user pool id whose region
        /// is not the block's `Region`); see ``ConfigurationWarningsProviding``.
        case suspiciousValue
    }

    /// What kind of finding it is.
    public var kind: Kind
    /// The JSON path in the file (`analytics.plugins.awsPinpointAnalyticsPlugin`).
    public var path: String
    /// What was found, in a sentence that names the file.
    public var message: String
    /// What to do about it.
    public var suggestion: String

    /// A finding of `kind` at `path`. The message and suggestion quote the file's keys and
    /// values: their control characters are escaped (``PrintableText``), so a file cannot add
    /// lines to a log or move a terminal's cursor.
    public init(kind: Kind, path: String, message: String, suggestion: String) {
        self.kind = kind
        self.path = PrintableText(path).description
        self.message = PrintableText(message).description
        self.suggestion = PrintableText(suggestion).description
    }

    /// Whether it is a warning (`amplify config check --strict` fails on warnings); ``Kind/notHandled``
    /// is only listed.
    public var isWarning: Bool { kind != .notHandled }

    /// The message.
    public var description: String { message }
}
