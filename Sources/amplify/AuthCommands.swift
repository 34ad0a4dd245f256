import AWSCognitoAuthPlugin
import AmplifyAuthCore
import AmplifyPlugins
import Foundation
import LocalAuthPlugin

/// `amplify auth …`: every Auth call from the shell. The session persists in the credential
/// store, so `sign-in` in one command and `whoami` in the next work together.
enum AuthCommands {
    static let passwordOption: Set<String> = ["--password-stdin"]
    static let passwordHelp = "The password comes from a prompt without echo, or from standard input with --password-stdin; never from the command line."

    static var all: [any CLICommand] {
        [
            ActionCommand(
                path: ["auth", "sign-up"], summary: "create a user", usage: "USER --email EMAIL [--password-stdin]",
                details: "Creates USER with the email attribute; a confirmation code goes to EMAIL (the local pool keeps it in its outbox). \(passwordHelp)",
                positional: ["USER"], valueOptions: ["--email"], switchOptions: passwordOption
            ) { arguments, _ in
                let username = arguments.positional[0]
                let password = try PasswordReader.read(prompt: "Password for \(username): ", fromStandardInput: arguments.switches.contains("--password-stdin"))
                let attributes = arguments.values["--email"].map { [AuthUserAttribute(.email, value: $0)] } ?? []
                let result = try await Amplify.Auth.signUp(username: username, password: password, options: .init(userAttributes: attributes))
                return signUpResult(username, result)
            },
            ActionCommand(
                path: ["auth", "confirm-sign-up"], summary: "confirm a new user with the code", usage: "USER CODE",
                details: "Confirms USER with the CODE that was sent.", positional: ["USER", "CODE"]
            ) { arguments, _ in
                let result = try await Amplify.Auth.confirmSignUp(for: arguments.positional[0], confirmationCode: arguments.positional[1])
                return signUpResult(arguments.positional[0], result)
            },
            ActionCommand(
                path: ["auth", "resend-code"], summary: "send a new sign-up code", usage: "USER",
                details: "Sends USER a new confirmation code.", positional: ["USER"]
            ) { arguments, _ in
                let details = try await Amplify.Auth.resendSignUpCode(for: arguments.positional[0])
                let destination = describe(details.destination)
                return CommandResult(text: "A new code was sent to \(destination).", json: ["sentTo": .string(destination)])
            },
            ActionCommand(
                path: ["auth", "sign-in"], summary: "sign a user in (or through the hosted UI with --web)",
                usage: "USER [--password-stdin] | --web [--browser COMMAND]",
                details: "Signs USER in; the session is kept in the credential store for later commands. A challenge (new password, SMS or TOTP code, custom answer) is asked for next, from the terminal or as the next line of standard input. With --web (Cognito), prints the hosted UI's sign-in URL (and runs COMMAND URL, or $BROWSER URL, to open it) and waits for the browser's redirect on the loopback redirect URI. \(passwordHelp)",
                positional: ["USER"], valueOptions: ["--browser"], switchOptions: passwordOption.union(["--web"]), acceptsFewerPositional: true
            ) { arguments, _ in
                let fromStdin = arguments.switches.contains("--password-stdin")
                if arguments.switches.contains("--web") {
                    return try await webSignIn(browser: arguments.values["--browser"] ?? ProcessInfo.processInfo.environment["BROWSER"])
                }
                guard let username = arguments.positional.first else {
                    throw UsageError("auth sign-in needs USER (or --web).")
                }
                let password = try PasswordReader.read(prompt: "Password for \(username): ", fromStandardInput: fromStdin)
                var result = try await Amplify.Auth.signIn(username: username, password: password)
                while let prompt = challengePrompt(result.nextStep) {
                    let answer = try PasswordReader.read(prompt: prompt, fromStandardInput: fromStdin)
                    result = try await Amplify.Auth.confirmSignIn(challengeResponse: answer)
                }
                let text = result.isSignedIn ? "Signed in as \(username)." : "Not signed in yet: next step \(result.nextStep)."
                return CommandResult(text: text, json: ["signedIn": .boolean(result.isSignedIn), "nextStep": .string("\(result.nextStep)")])
            },
            ActionCommand(
                path: ["auth", "verify-token"], summary: "verify a user pool token (Cognito)", usage: "[TOKEN | -] [--access]",
                details: "Checks an ID token (or, with --access, an access token) against the user pool's JWKS: signature, issuer, audience, use and expiry. Prints the subject and username; exits 1 with the reason when the token is refused. With - or no TOKEN, the token is read from standard input (a token on the command line shows in ps and the shell's history).",
                positional: ["TOKEN"], switchOptions: ["--access"], acceptsFewerPositional: true
            ) { arguments, _ in
                let text = arguments.positional.first.flatMap { $0 == "-" ? nil : $0 }
                let input = try text ?? TokenReader.readStandardInput()
                let verifier = try cognitoPlugin().tokenVerifier()
                let use: CognitoTokenVerifier.TokenUse = arguments.switches.contains("--access") ? .access : .id
                do {
                    let token = try await verifier.verify(input, as: use)
                    let expires = ISO8601DateFormatter().string(from: token.expiresAt)
                    return CommandResult(
                        text: "Valid \(use.rawValue) token of \(token.username ?? token.subject) (sub \(token.subject)); expires at \(expires).",
                        json: ["valid": true, "sub": .string(token.subject), "username": token.username.map(JSONValue.string) ?? .null, "expiresAt": .string(expires)])
                } catch let error as CognitoTokenError {
                    throw AuthError.notAuthorized("The token was refused: \(error).", "Sign in again for a fresh token, or check which pool issued it.")
                }
            },
            ActionCommand(
                path: ["auth", "sign-out"], summary: "sign out (everywhere with --global)", usage: "[--global]",
                details: "Signs out and revokes the session's refresh token; --global revokes every session of the user.",
                switchOptions: ["--global"]
            ) { arguments, _ in
                let result = await Amplify.Auth.signOut(options: .init(globalSignOut: arguments.switches.contains("--global")))
                let text: String
                if let local = result as? LocalSignOutResult {
                    text = local.message ?? (result.signedOutLocally ? "Signed out." : "Could not sign out.")
                } else if let cognito = result as? AWSCognitoSignOutResult {
                    text = cognito.description
                } else {
                    text = result.signedOutLocally ? "Signed out." : "Could not sign out."
                }
                return CommandResult(text: text, json: ["signedOutLocally": .boolean(result.signedOutLocally)])
            },
            ActionCommand(path: ["auth", "whoami"], summary: "the signed-in user", usage: "", details: "Prints the signed-in user's name and id; exits 1 when nobody is signed in.") { _, _ in
                let user = try await Amplify.Auth.getCurrentUser()
                return CommandResult(text: "\(user.username) (\(user.userId))", json: ["username": .string(user.username), "userId": .string(user.userId)])
            },
            ActionCommand(path: ["auth", "session"], summary: "the current session", usage: "", details: "Prints whether a user is signed in and when the tokens expire (never the tokens).") { _, _ in
                let session = try await Amplify.Auth.fetchAuthSession()
                var json: [String: JSONValue] = ["isSignedIn": .boolean(session.isSignedIn)]
                var text = session.isSignedIn ? "Signed in" : "Signed out"
                if let local = session as? LocalAuthSession, let expiry = local.tokens?.expiresAt {
                    json["userSub"] = local.userSub.map(JSONValue.string) ?? .null
                    json["expiresAt"] = .string(ISO8601DateFormatter().string(from: expiry))
                    text += "; tokens expire at \(ISO8601DateFormatter().string(from: expiry))"
                }
                if let cognito = session as? AWSAuthCognitoSession {
                    if case .success(let tokens) = cognito.userPoolTokensResult {
                        json["userSub"] = (try? cognito.userSubResult.get()).map(JSONValue.string) ?? .null
                        json["expiresAt"] = .string(ISO8601DateFormatter().string(from: tokens.expiration))
                        text += "; tokens expire at \(ISO8601DateFormatter().string(from: tokens.expiration))"
                    }
                    if case .success(let identity) = cognito.identityIdResult {
                        json["identityId"] = .string(identity)
                        text += "; identity \(identity)"
                    }
                }
                return CommandResult(text: text + ".", json: .object(json))
            },
            ActionCommand(path: ["auth", "attributes"], summary: "the signed-in user's attributes", usage: "", details: "Prints NAME=VALUE per attribute.") { _, _ in
                let attributes = try await Amplify.Auth.fetchUserAttributes()
                return CommandResult(
                    text: attributes.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: "\n"),
                    json: .object(Dictionary(attributes.map { ($0.key.rawValue, JSONValue.string($0.value)) }, uniquingKeysWith: { $1 })))
            },
            ActionCommand(
                path: ["auth", "update-attribute"], summary: "change one attribute", usage: "NAME VALUE",
                details: "Sets attribute NAME (email, name, custom:plan, ...) of the signed-in user.", positional: ["NAME", "VALUE"]
            ) { arguments, _ in
                let attribute = AuthUserAttribute(AuthUserAttributeKey(rawValue: arguments.positional[0]), value: arguments.positional[1])
                let result = try await Amplify.Auth.update(userAttribute: attribute)
                return CommandResult(text: result.isUpdated ? "Updated \(arguments.positional[0])." : "Pending: \(result.nextStep).", json: ["updated": .boolean(result.isUpdated)])
            },
            ActionCommand(
                path: ["auth", "change-password"], summary: "change the signed-in user's password", usage: "[--password-stdin]",
                details: "Asks for the current and the new password (with --password-stdin: two lines). \(passwordHelp)", switchOptions: passwordOption
            ) { arguments, _ in
                let fromStdin = arguments.switches.contains("--password-stdin")
                let old = try PasswordReader.read(prompt: "Current password: ", fromStandardInput: fromStdin)
                let new = try PasswordReader.read(prompt: "New password: ", fromStandardInput: fromStdin)
                try await Amplify.Auth.update(oldPassword: old, to: new)
                return CommandResult(text: "Password changed.", json: ["changed": true])
            },
            ActionCommand(
                path: ["auth", "reset-password"], summary: "send a password reset code", usage: "USER",
                details: "Sends USER a code for confirm-reset-password.", positional: ["USER"]
            ) { arguments, _ in
                let result = try await Amplify.Auth.resetPassword(for: arguments.positional[0])
                guard case .confirmResetPasswordWithCode(let details, _) = result.nextStep else {
                    return CommandResult(text: "Password reset.", json: ["reset": true])
                }
                let destination = describe(details.destination)
                return CommandResult(text: "A reset code was sent to \(destination).", json: ["sentTo": .string(destination)])
            },
            ActionCommand(
                path: ["auth", "confirm-reset-password"], summary: "set a new password with the reset code", usage: "USER CODE [--password-stdin]",
                details: "Sets USER's new password with the CODE from reset-password. \(passwordHelp)", positional: ["USER", "CODE"], switchOptions: passwordOption
            ) { arguments, _ in
                let password = try PasswordReader.read(prompt: "New password: ", fromStandardInput: arguments.switches.contains("--password-stdin"))
                try await Amplify.Auth.confirmResetPassword(for: arguments.positional[0], with: password, confirmationCode: arguments.positional[1])
                return CommandResult(text: "Password reset; sign in with the new password.", json: ["reset": true])
            },
            ActionCommand(path: ["auth", "delete-user"], summary: "delete the signed-in user", usage: "", details: "Deletes the signed-in user and ends the session.") { _, _ in
                try await Amplify.Auth.deleteUser()
                return CommandResult(text: "User deleted.", json: ["deleted": true])
            },
            ActionCommand(
                path: ["auth", "outbox"], summary: "codes the local pool sent (local plugin only)", usage: "[--user USER]",
                details: "Prints the confirmation and reset codes the local user pool delivered to its outbox, oldest first.",
                positional: [], valueOptions: ["--user"]
            ) { arguments, _ in
                let messages = try await localPlugin().outbox(for: arguments.values["--user"])
                return CommandResult(
                    text: messages.map { "\($0.username)\t\($0.purpose.rawValue)\t\($0.code)\t\($0.destination)" }.joined(separator: "\n"),
                    json: .array(messages.map { ["username": .string($0.username), "purpose": .string($0.purpose.rawValue), "code": .string($0.code), "destination": .string($0.destination)] }))
            },
            ActionCommand(path: ["auth", "jwks"], summary: "the local pool's public keys (JWKS)", usage: "", details: "Prints the JWKS document other services verify the local pool's tokens with.") { _, _ in
                let document = try await localPlugin().jwks()
                return CommandResult(text: document.compactText, json: document)
            },
        ]
    }

    private static func cognitoPlugin() throws -> AWSCognitoAuthPlugin {
        guard let plugin = Amplify.Auth.addedPlugins.compactMap({ $0 as? AWSCognitoAuthPlugin }).first else {
            throw AuthError.configuration("This command needs the Cognito auth plugin.", "Configure `auth.plugins.awsCognitoAuthPlugin` (the file the Amplify CLI writes).")
        }
        return plugin
    }

    /// The prompt for a sign-in step that needs an answer, or nil when none does.
    private static func challengePrompt(_ step: AuthSignInStep) -> String? {
        switch step {
        case .confirmSignInWithNewPassword: "New password: "
        case .confirmSignInWithSMSMFACode(let details, _): "Code sent to \(describe(details.destination)): "
        case .confirmSignInWithTOTPCode: "Code from the authenticator app: "
        case .confirmSignInWithOTP(let details): "Code sent to \(describe(details.destination)): "
        case .confirmSignInWithCustomChallenge(let info): "\(info?["question"] ?? info?.values.sorted().first ?? "Answer"): "
        case .continueSignInWithTOTPSetup(let details):
            "Add this secret to an authenticator app: \(details.sharedSecret)\n"
                + ((try? details.getSetupURI(appName: "Amplify").absoluteString).map { "  (or its URI: \($0))\n" } ?? "")
                + "Then enter the app's code: "
        case .continueSignInWithMFASelection(let types): "MFA type (\(types.map(\.rawValue).sorted().joined(separator: " or "))): "
        default: nil
        }
    }

    /// The hosted UI sign-in: prints the URL (on standard error, so --json output stays clean) and
    /// runs the browser command with it, if one is given.
    private static func webSignIn(browser: String?) async throws -> CommandResult {
        let plugin = try cognitoPlugin()
        let result = try await plugin.signInWithWebUI { url in
            FileHandle.standardError.write(Data("Open this URL to sign in:\n  \(url.absoluteString)\n".utf8))
            guard let browser, !browser.isEmpty else { return }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", browser + " \"$0\" >/dev/null 2>&1", url.absoluteString]
            try? process.run()
        }
        let user = try await plugin.getCurrentUser()
        return CommandResult(
            text: "Signed in as \(user.username) through the hosted UI.",
            json: ["signedIn": .boolean(result.isSignedIn), "username": .string(user.username)])
    }

    private static func localPlugin() throws -> LocalAuthPlugin {
        guard let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin else {
            throw AuthError.configuration("This command needs the local auth plugin.", "Configure `auth.plugins.localAuthPlugin`.")
        }
        return plugin
    }

    private static func signUpResult(_ username: String, _ result: AuthSignUpResult) -> CommandResult {
        switch result.nextStep {
        case .confirmUser(let details, _, _):
            let destination = details.map { describe($0.destination) } ?? "the user"
            return CommandResult(
                text: "Signed up \(username); a confirmation code was sent to \(destination).",
                json: ["username": .string(username), "confirmed": false, "userId": result.userID.map(JSONValue.string) ?? .null])
        case .done, .completeAutoSignIn:
            return CommandResult(text: "\(username) is confirmed; sign in.", json: ["username": .string(username), "confirmed": true])
        }
    }

    static func describe(_ destination: DeliveryDestination) -> String {
        switch destination {
        case .email(let value), .phone(let value), .sms(let value), .unknown(let value): value ?? "the user"
        }
    }
}
