import Amplify

/// A bucket's Gen 2 access rules (`storage.buckets[].paths` of `amplify_outputs.json`, version
/// 1.2 on): for each path pattern (`"photos/*"`, `"private/{entity_id}/*"`), which callers may do
/// what. Checked before a call reaches the bucket, so a refused call fails at once with an error
/// naming the rule, as S3 (whose IAM policies the backend generates from the same rules) would
/// refuse it.
///
/// The rules, as amplify-backend defines them: a path falls under the pattern with the longest
/// prefix it starts with (a nested pattern replaces its parent's rules); `{entity_id}` matches one
/// path segment. Grants: `guest` (callers not signed in), `authenticated` (signed in),
/// `groups<Name>` / `group<Name>` (signed in and in the group), `entityidentity` / `entity…`
/// (signed in, and the `{entity_id}` segment is the caller's identity id); `resource` grants to
/// backend functions and never to a client. Permissions: `get`, `list`, `write`, `delete`, and
/// `read` (`get` and `list`). A path under no pattern is refused. With no rules, nothing is checked.
public struct StorageAccessRules: Sendable, Equatable {
    /// What a call does to a path.
    public enum Permission: String, Sendable, CaseIterable {
        /// Download, or a download URL.
        case get
        /// List.
        case list
        /// Upload, or an upload URL.
        case write
        /// Remove.
        case delete
    }

    /// One path pattern and its grants.
    public struct Rule: Sendable, Equatable {
        /// The pattern as the file writes it (`"private/{entity_id}/*"`).
        public let pattern: String
        /// Each grantee's permissions (`"authenticated": [.get, .list]`).
        public let grants: [String: Set<Permission>]

        /// The pattern without its trailing `*`.
        var prefix: String { pattern.hasSuffix("*") ? String(pattern.dropLast()) : pattern }
    }

    /// Who is calling, as far as the rules care.
    public struct Caller: Sendable, Equatable {
        /// Whether a user is signed in.
        public var isAuthenticated: Bool
        /// The user's groups (`cognito:groups`).
        public var groups: [String]
        /// The caller's identity id (what `{entity_id}` stands for), when known.
        public var identityId: String?

        /// A caller.
        public init(isAuthenticated: Bool, groups: [String] = [], identityId: String? = nil) {
            self.isAuthenticated = isAuthenticated
            self.groups = groups
            self.identityId = identityId
        }

        /// Nobody signed in.
        public static let guest = Caller(isAuthenticated: false)

        var description: String {
            guard isAuthenticated else { return "not signed in (a guest)" }
            return groups.isEmpty ? "signed in, in no group" : "signed in, in group\(groups.count == 1 ? "" : "s") \(groups.joined(separator: ", "))"
        }
    }

    /// The patterns, longest first.
    public let rules: [Rule]

    /// No rules: nothing is checked.
    public init() {
        rules = []
    }

    /// Rules from `paths`.
    public init(paths: [String: [String: [String]]]) {
        rules = paths.map { pattern, grants in
            Rule(pattern: pattern, grants: grants.mapValues { Set($0.flatMap(Self.permissions)) })
        }.sorted { ($0.prefix.count, $0.pattern) > ($1.prefix.count, $1.pattern) }
    }

    /// Reads a `paths` object (absent: no rules).
    /// - Throws: `ConfigurationValueError` at `keyPath` for anything but an object of objects
    ///   of string arrays.
    public init(json: JSONValue?, keyPath: String) throws(ConfigurationValueError) {
        guard let json, !json.isNull else {
            self.init()
            return
        }
        let expected = "an object of path patterns, each an object of grantees and their permission arrays"
        guard let patterns = json.asObject else { throw ConfigurationValueError(keyPath: keyPath, expected: expected, found: json) }
        var paths: [String: [String: [String]]] = [:]
        for (pattern, grants) in patterns {
            guard let grantObject = grants.asObject else {
                throw ConfigurationValueError(keyPath: "\(keyPath).\(pattern)", expected: expected, found: grants)
            }
            var table: [String: [String]] = [:]
            for (grantee, list) in grantObject {
                guard let items = list.asArray?.compactMap(\.stringValue), items.count == list.asArray?.count else {
                    throw ConfigurationValueError(keyPath: "\(keyPath).\(pattern).\(grantee)", expected: "an array of permissions", found: list)
                }
                table[grantee] = items
            }
            paths[pattern] = table
        }
        self.init(paths: paths)
    }

    private static func permissions(_ name: String) -> [Permission] {
        name == "read" ? [.get, .list] : Permission(rawValue: name).map { [$0] } ?? []
    }

    /// Whether there are no rules.
    public var isEmpty: Bool { rules.isEmpty }

    /// The rule `path` falls under: the pattern with the longest prefix it starts with
    /// (`{entity_id}` matching one segment), and the segment that stood for `{entity_id}`.
    public func rule(for path: String) -> (rule: Rule, entity: String?)? {
        for rule in rules {
            if let entity = Self.match(path, prefix: rule.prefix) { return (rule, entity.isEmpty ? nil : entity) }
        }
        return nil
    }

    /// `nil` if `path` does not start with `prefix`; otherwise the segment `{entity_id}` matched
    /// (empty when the prefix has none).
    private static func match(_ path: String, prefix: String) -> String? {
        let token = "{entity_id}"
        guard let range = prefix.range(of: token) else { return path.hasPrefix(prefix) ? "" : nil }
        let head = String(prefix[..<range.lowerBound])
        let tail = String(prefix[range.upperBound...])
        guard path.hasPrefix(head) else { return nil }
        let rest = path.dropFirst(head.count)
        guard let slash = rest.firstIndex(of: "/") ?? (tail.isEmpty ? rest.endIndex : nil) else { return nil }
        let entity = String(rest[..<slash])
        guard !entity.isEmpty, String(rest[slash...]).hasPrefix(tail) else { return nil }
        return entity
    }

    /// Checks that `caller` may `permission` on `path` in the bucket called `bucket`.
    /// - Throws: `StorageError.accessDenied(_:_:_:)` naming the rule (or saying no rule covers
    ///   the path).
    public func check(_ permission: Permission, path: String, caller: Caller, bucket: String) throws {
        guard !isEmpty else { return }
        guard let (rule, entity) = rule(for: path) else {
            throw StorageError.accessDenied(
                "'\(path)' in bucket '\(bucket)' is under none of its access rules (\(rules.map(\.pattern).sorted().joined(separator: ", "))), so nobody may \(permission.rawValue) it.",
                "Use a path under one of those patterns, or add one to defineStorage's `access`.")
        }
        var granted: [String] = []
        for (grantee, permissions) in rule.grants.sorted(by: { $0.key < $1.key }) where permissions.contains(permission) {
            granted.append(grantee)
            if Self.applies(grantee, to: caller, entity: entity) { return }
        }
        let who = granted.isEmpty ? "nobody" : granted.joined(separator: ", ")
        throw StorageError.accessDenied(
            "The access rule `\(rule.pattern)` of bucket '\(bucket)' lets \(who) \(permission.rawValue) '\(path)'; the caller is \(caller.description).",
            granted.isEmpty
                ? "Grant \(permission.rawValue) on `\(rule.pattern)` in defineStorage's `access`."
                : "Sign in as a user the rule allows, or change the rule in defineStorage's `access`.")
    }

    private static func applies(_ grantee: String, to caller: Caller, entity: String?) -> Bool {
        switch grantee {
        case "guest": return !caller.isAuthenticated
        case "authenticated": return caller.isAuthenticated
        case "resource": return false
        default:
            if grantee.hasPrefix("group") {
                // `groupsADMINS` (1.2, 1.3) or `groupADMINS` (1.4): a group may itself start with "s".
                let names = [String(grantee.dropFirst(5))] + (grantee.hasPrefix("groups") ? [String(grantee.dropFirst(6))] : [])
                return caller.isAuthenticated && names.contains { caller.groups.contains($0) }
            }
            if grantee.hasPrefix("entity") {
                return caller.isAuthenticated && entity != nil && entity == caller.identityId
            }
            return false
        }
    }
}
