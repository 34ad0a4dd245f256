/// Who may use a route: Cognito groups (`cognito:groups`), the access token's scopes, or a check of
/// your own, combined with `&&` and `||`. The HTTP-server integrations apply it as middleware and
/// route helpers; ``check(_:realm:)`` is the framework-free rule.
///
///     let admins = AccessPolicy.group("admins")
///     let editors = AccessPolicy.anyGroup(["editors", "admins"]) && .scope("content/write")
public struct AccessPolicy: Sendable, CustomStringConvertible {
    private indirect enum Rule: Sendable {
        case group(String)
        case scope(String)
        case custom(String, @Sendable (AuthenticatedUser) -> Bool)
        case all([Rule])
        case any([Rule])
    }

    private let rule: Rule

    private init(_ rule: Rule) { self.rule = rule }

    /// Members of `name`.
    public static func group(_ name: String) -> AccessPolicy { AccessPolicy(.group(name)) }

    /// Members of at least one of `names`.
    public static func anyGroup(_ names: [String]) -> AccessPolicy { AccessPolicy(.any(names.map(Rule.group))) }

    /// Tokens granting `scope` (OAuth scopes: `aws.cognito.signin.user.admin`, a resource server's `api/read`).
    public static func scope(_ scope: String) -> AccessPolicy { AccessPolicy(.scope(scope)) }

    /// Users for whom `allows` says yes; `name` describes it in the refusal ("`name` is required").
    public static func custom(_ name: String, _ allows: @escaping @Sendable (AuthenticatedUser) -> Bool) -> AccessPolicy {
        AccessPolicy(.custom(name, allows))
    }

    /// Every signed-in user.
    public static let signedIn = AccessPolicy(.all([]))

    /// Both policies.
    public static func && (lhs: AccessPolicy, rhs: AccessPolicy) -> AccessPolicy { AccessPolicy(.all([lhs.rule, rhs.rule])) }

    /// Either policy.
    public static func || (lhs: AccessPolicy, rhs: AccessPolicy) -> AccessPolicy { AccessPolicy(.any([lhs.rule, rhs.rule])) }

    /// `nil` when `user` may pass; otherwise the answer: 401 with a bare challenge when nobody is
    /// signed in, 403 `insufficient_scope` naming the groups or scopes missing.
    public func check(_ user: AuthenticatedUser?, realm: String = "amplify") -> AuthChallenge? {
        guard let user else { return .missingCredentials(realm: realm) }
        guard !Self.allows(rule, user) else { return nil }
        return AuthChallenge(
            status: 403, code: .insufficientScope, message: "This needs \(description).", scope: Self.scopes(rule).nonEmptyJoined, realm: realm)
    }

    /// What the policy asks, in words: `the group 'admins' and the scope 'api/write'`.
    public var description: String { Self.describe(rule) }

    private static func allows(_ rule: Rule, _ user: AuthenticatedUser) -> Bool {
        switch rule {
        case .group(let name): user.isMember(of: name)
        case .scope(let scope): user.hasScope(scope)
        case .custom(_, let allows): allows(user)
        case .all(let rules): rules.allSatisfy { allows($0, user) }
        case .any(let rules): rules.contains { allows($0, user) }
        }
    }

    private static func scopes(_ rule: Rule) -> [String] {
        switch rule {
        case .scope(let scope): [scope]
        case .group, .custom: []
        case .all(let rules), .any(let rules): rules.flatMap(scopes)
        }
    }

    private static func describe(_ rule: Rule) -> String {
        switch rule {
        case .group(let name): "the group '\(name)'"
        case .scope(let scope): "the scope '\(scope)'"
        case .custom(let name, _): name
        case .all(let rules): rules.isEmpty ? "a signed-in user" : rules.map(describe).joined(separator: " and ")
        case .any(let rules): rules.isEmpty ? "nobody" : "(" + rules.map(describe).joined(separator: " or ") + ")"
        }
    }
}

extension [String] {
    fileprivate var nonEmptyJoined: String? { isEmpty ? nil : joined(separator: " ") }
}
