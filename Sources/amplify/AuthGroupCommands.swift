import AWSCognitoAuthPlugin
import AmplifyPlugins
import ArgumentParser
import Foundation
import LocalAuthPlugin

/// `amplify auth add-to-group`, `remove-from-group`, `groups` (the local pool's groups, which its
/// tokens name in `cognito:groups`), and `amplify auth token` (the signed-in user's token, for
/// `curl -H "Authorization: Bearer $(amplify auth token)"` against a server).
extension AuthCommands {
    struct AddToGroup: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-to-group", abstract: "Put a user in a group (local plugin only).",
            discussion: "Tokens issued from now on (the next sign-in or refresh) name the group in cognito:groups.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user.") var username: String
        @Argument(help: "The group.") var group: String

        func execute() async throws -> CommandResult {
            try await localPlugin().addUser(username, toGroup: group)
            return CommandResult(text: "\(username) is in \(group).", json: ["username": .string(username), "group": .string(group), "member": true])
        }
    }

    struct RemoveFromGroup: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-from-group", abstract: "Take a user out of a group (local plugin only).",
            discussion: "Tokens issued from now on no longer name the group.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user.") var username: String
        @Argument(help: "The group.") var group: String

        func execute() async throws -> CommandResult {
            try await localPlugin().removeUser(username, fromGroup: group)
            return CommandResult(
                text: "\(username) is not in \(group).", json: ["username": .string(username), "group": .string(group), "member": false])
        }
    }

    struct Groups: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "groups", abstract: "A user's groups (local plugin only).", discussion: "Prints the groups USER is in, one per line.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user.") var username: String

        func execute() async throws -> CommandResult {
            let groups = try await localPlugin().groups(of: username)
            return CommandResult(text: groups.joined(separator: "\n"), json: .array(groups.map(JSONValue.string)))
        }
    }

    struct Token: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: "The signed-in user's access token (--id: ID token).",
            discussion: """
                For trying a server from the shell: curl -H "Authorization: Bearer $(amplify auth token)" http://127.0.0.1:8080/me. \
                The token is a credential: it is printed only when asked for, never logged.
                """)
        @OptionGroup var global: GlobalOptions
        @Flag(name: .customLong("id"), help: "The ID token instead of the access token.") var idToken = false

        func execute() async throws -> CommandResult {
            let session = try await Amplify.Auth.fetchAuthSession()
            var token: String?
            if let local = session as? LocalAuthSession, let tokens = local.tokens { token = idToken ? tokens.idToken : tokens.accessToken }
            if let cognito = session as? AWSAuthCognitoSession, case .success(let tokens) = cognito.userPoolTokensResult {
                token = idToken ? tokens.idToken : tokens.accessToken
            }
            guard let token else { throw AuthError.signedOut("Nobody is signed in.", "Sign in first: amplify auth sign-in USER.") }
            return CommandResult(text: token, json: ["token": .string(token), "use": .string(idToken ? "id" : "access")])
        }
    }
}
