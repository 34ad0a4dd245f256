import Amplify
import AmplifyAuthCore

/// Groups, as Cognito's administrators manage them (`AdminAddUserToGroup`,
/// `AdminRemoveUserFromGroup`, `AdminListGroupsForUser`): a user's groups are named in the
/// `cognito:groups` claim of the tokens issued after the change (a sign-in or a refresh), which
/// the HTTP-server integrations' group policies read.
extension LocalAuthPlugin {
    /// Puts `username` in `group` (a no-op when they already are).
    /// - Throws: `AuthError.validation(_:_:_:_:)` for an unknown user or a group name that is
    ///   empty, over 128 characters, or has spaces or control characters.
    public func addUser(_ username: String, toGroup group: String) async throws {
        try await engine().setMembership(username: username, group: try Self.checkedGroup(group), member: true)
    }

    /// Takes `username` out of `group` (a no-op when they are not in it).
    /// - Throws: as ``addUser(_:toGroup:)``.
    public func removeUser(_ username: String, fromGroup group: String) async throws {
        try await engine().setMembership(username: username, group: try Self.checkedGroup(group), member: false)
    }

    /// The groups `username` is in, by name.
    /// - Throws: `AuthError.validation(_:_:_:_:)` for an unknown user.
    public func groups(of username: String) async throws -> [String] {
        try await engine().groups(username: username)
    }

    /// Cognito's rule for group names: 1 to 128 characters, no whitespace or control characters.
    static func checkedGroup(_ group: String) throws -> String {
        guard !group.isEmpty, group.count <= 128,
            !group.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else {
            throw AuthError.validation(
                "group", "The group name '\(PrintableText(group, limit: 80))' is not valid.",
                "Use 1 to 128 characters without spaces or control characters.")
        }
        return group
    }
}

extension LocalAuthEngine {
    func setMembership(username: String, group: String, member: Bool) async throws {
        let pool = try await prepare()
        let user = try await existingUser(username, pool)
        try await pool.setMembership(sub: user.sub, group: group, member: member)
    }

    func groups(username: String) async throws -> [String] {
        let pool = try await prepare()
        return try await pool.groups(sub: try await existingUser(username, pool).sub)
    }
}
