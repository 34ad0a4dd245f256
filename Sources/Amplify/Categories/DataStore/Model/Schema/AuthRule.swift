/// Who an `@auth` rule allows.
public enum AuthStrategy: Sendable, Hashable {
    /// The record's owner.
    case owner
    /// Members of groups.
    case groups
    /// Any signed-in user.
    case `private`
    /// Anyone.
    case `public`
    /// A Lambda authorizer's decision.
    case custom
}

/// What an `@auth` rule allows.
public enum ModelOperation: Sendable, Hashable {
    /// Creating records.
    case create
    /// Updating records.
    case update
    /// Deleting records.
    case delete
    /// Reading records.
    case read
}

/// How an `@auth` rule's callers are identified.
public enum AuthRuleProvider: Sendable, Hashable {
    /// An API key.
    case apiKey
    /// An OpenID Connect provider.
    case oidc
    /// IAM.
    case iam
    /// A Cognito user pool.
    case userPools
    /// A Lambda function.
    case function
}

/// A model's or field's auth rules.
public typealias AuthRules = [AuthRule]

/// One `@auth` rule.
public struct AuthRule: Sendable, Hashable {
    /// Who it allows.
    public let allow: AuthStrategy
    /// The field holding the owner (`owner` unless set).
    public let ownerField: String?
    /// The token claim that identifies the owner.
    public let identityClaim: String?
    /// The token claim that lists the caller's groups.
    public let groupClaim: String?
    /// The groups allowed.
    public let groups: [String]
    /// The field holding the groups allowed.
    public let groupsField: String?
    /// What it allows.
    public let operations: [ModelOperation]
    /// How callers are identified.
    public let provider: AuthRuleProvider?

    /// A rule.
    public init(
        allow: AuthStrategy, ownerField: String? = nil, identityClaim: String? = nil, groupClaim: String? = nil,
        groups: [String] = [], groupsField: String? = nil, provider: AuthRuleProvider? = nil, operations: [ModelOperation] = []
    ) {
        self.allow = allow
        self.ownerField = ownerField
        self.identityClaim = identityClaim
        self.groupClaim = groupClaim
        self.groups = groups
        self.groupsField = groupsField
        self.provider = provider
        self.operations = operations
    }
}
