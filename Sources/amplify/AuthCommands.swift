import AWSCognitoAuthPlugin
import AmplifyAuthCore
import AmplifyPlugins
import ArgumentParser
import Foundation
import LocalAuthPlugin

/// `amplify auth …`: every Auth call from the shell. The session persists in the credential
/// store, so `sign-in` in one command and `whoami` in the next work together.
struct AuthGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "Sign-up, sign-in, sessions and users.",
        discussion: "The session persists in the credential store, so `auth sign-in` in one command and `auth whoami` in the next work together.",
        subcommands: [
            AuthCommands.SignUp.self, AuthCommands.ConfirmSignUp.self, AuthCommands.ResendCode.self, AuthCommands.SignIn.self,
            AuthCommands.VerifyToken.self, AuthCommands.SignOut.self, AuthCommands.WhoAmI.self, AuthCommands.Session.self,
            AuthCommands.Attributes.self, AuthCommands.UpdateAttribute.self, AuthCommands.ChangePassword.self,
            AuthCommands.ResetPassword.self, AuthCommands.ConfirmResetPassword.self, AuthCommands.DeleteUser.self,
            AuthCommands.Outbox.self, AuthCommands.JWKS.self, AuthCommands.VerifyAttribute.self, AuthCommands.ConfirmAttribute.self,
            AuthCommands.SetUpTOTP.self, AuthCommands.VerifyTOTP.self, AuthCommands.MFA.self, AuthCommands.Devices.self,
            AuthCommands.RememberDevice.self, AuthCommands.ForgetDevice.self, AuthCommands.Token.self, AuthCommands.AddToGroup.self,
            AuthCommands.RemoveFromGroup.self, AuthCommands.Groups.self,
        ])
}

/// The `amplify auth` commands, and what they share.
enum AuthCommands {
    struct SignUp: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-up", abstract: "Create a user.",
            discussion:
                "Creates USER with the email attribute; a confirmation code goes to EMAIL (the local pool keeps it in its outbox). \(PasswordArguments.help)"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name.", valueName: "user")) var username: String
        @Option(help: ArgumentHelp("The user's email attribute, where the code goes.", valueName: "email")) var email: String?
        @Flag(help: "Read the password from standard input (one line).") var passwordStdin = false
        @Argument(parsing: .allUnrecognized, help: .hidden) var unexpected: [String] = []

        func validate() throws { try PasswordArguments.refuse(unexpected, command: "auth sign-up", takes: "USER, --email and --password-stdin") }

        func execute() async throws -> CommandResult {
            let password = try PasswordReader.read(prompt: "Password for \(username): ", fromStandardInput: passwordStdin)
            let attributes = email.map { [AuthUserAttribute(.email, value: $0)] } ?? []
            let result = try await Amplify.Auth.signUp(username: username, password: password, options: .init(userAttributes: attributes))
            return signUpResult(username, result)
        }
    }

    struct ConfirmSignUp: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm-sign-up", abstract: "Confirm a new user with the code.", discussion: "Confirms USER with the CODE that was sent.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name.", valueName: "user")) var username: String
        @Argument(help: ArgumentHelp("The confirmation code.", valueName: "code")) var code: String

        func execute() async throws -> CommandResult {
            let result = try await Amplify.Auth.confirmSignUp(for: username, confirmationCode: code)
            return signUpResult(username, result)
        }
    }

    struct ResendCode: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "resend-code", abstract: "Send a new sign-up code.", discussion: "Sends USER a new confirmation code.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name.", valueName: "user")) var username: String

        func execute() async throws -> CommandResult {
            let details = try await Amplify.Auth.resendSignUpCode(for: username)
            let destination = describe(details.destination)
            return CommandResult(text: "A new code was sent to \(destination).", json: ["sentTo": .string(destination)])
        }
    }

    struct SignIn: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in", abstract: "Sign a user in (--web: through the hosted UI).",
            discussion:
                "Signs USER in; the session is kept in the credential store for later commands. A challenge (new password, SMS, email or TOTP code, MFA method, custom answer) is asked for next, from the terminal or as the next line of standard input. With --first-factor (passwordless, USER_AUTH) no password is asked first: email-otp or sms-otp sends a one-time code and asks for it, password or password-srp asks for the password, choose asks which factor to use. With --web (Cognito), prints the hosted UI's sign-in URL (and runs COMMAND URL, or $BROWSER URL, to open it) and waits for the browser's redirect on the loopback redirect URI. \(PasswordArguments.help)"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name (not with --web).", valueName: "user")) var username: String?
        @Flag(help: "Read the password (and the answers to challenges) from standard input, a line each.") var passwordStdin = false
        @Flag(help: "Sign in through the hosted UI (Cognito).") var web = false
        @Option(
            help: ArgumentHelp(
                "Sign in without a password first (USER_AUTH): email-otp, sms-otp, password, password-srp or choose.", valueName: "factor"))
        var firstFactor: String?
        @Option(help: ArgumentHelp("The command that opens the sign-in URL (default: $BROWSER).", valueName: "command")) var browser: String?
        @Argument(parsing: .allUnrecognized, help: .hidden) var unexpected: [String] = []

        func validate() throws {
            try PasswordArguments.refuse(unexpected, command: "auth sign-in", takes: "USER and --password-stdin, or --web")
            if web, username != nil { throw ValidationError("auth sign-in --web takes no USER: the hosted UI asks who signs in.") }
            if !web, username == nil { throw ValidationError("auth sign-in needs USER (or --web).") }
            if web, firstFactor != nil { throw ValidationError("auth sign-in --web takes no --first-factor: the hosted UI asks.") }
            _ = try Self.flow(firstFactor)
        }

        /// The `USER_AUTH` flow `--first-factor` asks for (`nil`: the configured flow).
        static func flow(_ option: String?) throws -> AuthFlowType? {
            guard let option else { return nil }
            switch option {
            case "choose": return .userAuth(preferredFirstFactor: nil)
            case "email-otp": return .userAuth(preferredFirstFactor: .emailOTP)
            case "sms-otp": return .userAuth(preferredFirstFactor: .smsOTP)
            case "password": return .userAuth(preferredFirstFactor: .password)
            case "password-srp": return .userAuth(preferredFirstFactor: .passwordSRP)
            default: throw ValidationError("--first-factor takes email-otp, sms-otp, password, password-srp or choose; got '\(option)'.")
            }
        }

        func execute() async throws -> CommandResult {
            if web { return try await webSignIn(browser: browser ?? ProcessInfo.processInfo.environment["BROWSER"]) }
            guard let username else { throw UsageError("auth sign-in needs USER (or --web).") }
            var result: AuthSignInResult
            if let flow = try Self.flow(firstFactor) {
                // A password factor takes the password now; a one-time code or a choice is asked for next.
                let wantsPassword = flow == .userAuth(preferredFirstFactor: .password) || flow == .userAuth(preferredFirstFactor: .passwordSRP)
                let password = wantsPassword ? try PasswordReader.read(prompt: "Password for \(username): ", fromStandardInput: passwordStdin) : nil
                result = try await Amplify.Auth.signIn(
                    username: username, password: password,
                    options: AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: flow)))
            } else {
                let password = try PasswordReader.read(prompt: "Password for \(username): ", fromStandardInput: passwordStdin)
                result = try await Amplify.Auth.signIn(username: username, password: password)
            }
            while let prompt = challengePrompt(result.nextStep) {
                let answer = try PasswordReader.read(prompt: prompt, fromStandardInput: passwordStdin)
                result = try await Amplify.Auth.confirmSignIn(challengeResponse: answer)
            }
            let text = result.isSignedIn ? "Signed in as \(username)." : "Not signed in yet: next step \(result.nextStep)."
            return CommandResult(text: text, json: ["signedIn": .boolean(result.isSignedIn), "nextStep": .string("\(result.nextStep)")])
        }
    }

    struct VerifyToken: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-token", abstract: "Verify a user pool token (Cognito).",
            discussion:
                "Checks an ID token (or, with --access, an access token) against the user pool's JWKS: signature, issuer, audience, use and expiry. Prints the subject and username; exits 1 with the reason when the token is refused. With - or no TOKEN, the token is read from standard input (a token on the command line shows in ps and the shell's history)."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The token (a JWT), or - (the default) to read it from standard input.", valueName: "token")) var token: String?
        @Flag(help: "The token is an access token (default: an ID token).") var access = false
        @Option(
            name: .customLong("grace-seconds"),
            help: ArgumentHelp("Clock skew allowed for exp and nbf, in seconds (default 0, as aws-jwt-verify).", valueName: "seconds"))
        var graceSeconds: Double = 0

        func validate() throws {
            guard graceSeconds.isFinite, graceSeconds >= 0, graceSeconds <= 86_400 else {
                throw ValidationError("--grace-seconds must be a number of seconds from 0 to 86400.")
            }
        }

        func execute() async throws -> CommandResult {
            let input = try token.flatMap { $0 == "-" ? nil : $0 } ?? TokenReader.readStandardInput()
            let verifier = try cognitoPlugin().tokenVerifier(leeway: graceSeconds)
            let use: CognitoTokenVerifier.TokenUse = access ? .access : .id
            do {
                let verified = try await verifier.verify(input, as: use)
                let expires = ISO8601DateFormatter().string(from: verified.expiresAt)
                return CommandResult(
                    text:
                        "Valid \(use.rawValue) token of \(PrintableText(verified.username ?? verified.subject)) (sub \(PrintableText(verified.subject))); expires at \(expires).",
                    json: [
                        "valid": true, "sub": .string(verified.subject), "username": verified.username.map(JSONValue.string) ?? .null,
                        "expiresAt": .string(expires),
                    ])
            } catch let error as CognitoTokenError {
                throw AuthError.notAuthorized("The token was refused: \(error).", "Sign in again for a fresh token, or check which pool issued it.")
            }
        }
    }

    struct SignOut: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out", abstract: "Sign out (everywhere with --global).",
            discussion: "Signs out and revokes the session's refresh token; --global revokes every session of the user.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .customLong("global"), help: "Revoke every session of the user.") var everywhere = false

        func execute() async throws -> CommandResult {
            let result = await Amplify.Auth.signOut(options: .init(globalSignOut: everywhere))
            let text: String
            if let local = result as? LocalSignOutResult {
                text = local.message ?? (result.signedOutLocally ? "Signed out." : "Could not sign out.")
            } else if let cognito = result as? AWSCognitoSignOutResult {
                text = cognito.description
            } else {
                text = result.signedOutLocally ? "Signed out." : "Could not sign out."
            }
            return CommandResult(text: text, json: ["signedOutLocally": .boolean(result.signedOutLocally)])
        }
    }

    struct WhoAmI: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "whoami", abstract: "The signed-in user.",
            discussion: "Prints the signed-in user's name and id; exits 1 when nobody is signed in.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let user = try await Amplify.Auth.getCurrentUser()
            return CommandResult(
                text: "\(user.username) (\(user.userId))", json: ["username": .string(user.username), "userId": .string(user.userId)])
        }
    }

    struct Session: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "session", abstract: "The current session.",
            discussion: "Prints whether a user is signed in and when the tokens expire (never the tokens).")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
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
        }
    }

    struct Attributes: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "attributes", abstract: "The signed-in user's attributes.", discussion: "Prints NAME=VALUE per attribute.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let attributes = try await Amplify.Auth.fetchUserAttributes()
            return CommandResult(
                text: attributes.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: "\n"),
                json: .object(Dictionary(attributes.map { ($0.key.rawValue, JSONValue.string($0.value)) }, uniquingKeysWith: { $1 })))
        }
    }

    struct UpdateAttribute: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "update-attribute", abstract: "Change one attribute.",
            discussion: "Sets attribute NAME (email, name, custom:plan, ...) of the signed-in user.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The attribute (email, name, custom:plan, ...).", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("Its new value.", valueName: "value")) var value: String

        func execute() async throws -> CommandResult {
            let attribute = AuthUserAttribute(AuthUserAttributeKey(rawValue: name), value: value)
            let result = try await Amplify.Auth.update(userAttribute: attribute)
            return CommandResult(
                text: result.isUpdated ? "Updated \(name)." : "Pending: \(result.nextStep).", json: ["updated": .boolean(result.isUpdated)])
        }
    }

    struct ChangePassword: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-password", abstract: "Change the signed-in user's password.",
            discussion: "Asks for the current and the new password (with --password-stdin: two lines). \(PasswordArguments.help)")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Read the current and the new password from standard input, a line each.") var passwordStdin = false
        @Argument(parsing: .allUnrecognized, help: .hidden) var unexpected: [String] = []

        func validate() throws { try PasswordArguments.refuse(unexpected, command: "auth change-password", takes: "only --password-stdin") }

        func execute() async throws -> CommandResult {
            let old = try PasswordReader.read(prompt: "Current password: ", fromStandardInput: passwordStdin)
            let new = try PasswordReader.read(prompt: "New password: ", fromStandardInput: passwordStdin)
            try await Amplify.Auth.update(oldPassword: old, to: new)
            return CommandResult(text: "Password changed.", json: ["changed": true])
        }
    }

    struct ResetPassword: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Send a password reset code.", discussion: "Sends USER a code for confirm-reset-password.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name.", valueName: "user")) var username: String

        func execute() async throws -> CommandResult {
            let result = try await Amplify.Auth.resetPassword(for: username)
            guard case .confirmResetPasswordWithCode(let details, _) = result.nextStep else {
                return CommandResult(text: "Password reset.", json: ["reset": true])
            }
            let destination = describe(details.destination)
            return CommandResult(text: "A reset code was sent to \(destination).", json: ["sentTo": .string(destination)])
        }
    }

    struct ConfirmResetPassword: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm-reset-password", abstract: "Set a new password with the reset code.",
            discussion: "Sets USER's new password with the CODE from reset-password. \(PasswordArguments.help)")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The user's name.", valueName: "user")) var username: String
        @Argument(help: ArgumentHelp("The code from reset-password.", valueName: "code")) var code: String
        @Flag(help: "Read the new password from standard input (one line).") var passwordStdin = false
        @Argument(parsing: .allUnrecognized, help: .hidden) var unexpected: [String] = []

        func validate() throws {
            try PasswordArguments.refuse(unexpected, command: "auth confirm-reset-password", takes: "USER, CODE and --password-stdin")
        }

        func execute() async throws -> CommandResult {
            let password = try PasswordReader.read(prompt: "New password: ", fromStandardInput: passwordStdin)
            try await Amplify.Auth.confirmResetPassword(for: username, with: password, confirmationCode: code)
            return CommandResult(text: "Password reset; sign in with the new password.", json: ["reset": true])
        }
    }

    struct DeleteUser: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-user", abstract: "Delete the signed-in user.", discussion: "Deletes the signed-in user and ends the session.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            try await Amplify.Auth.deleteUser()
            return CommandResult(text: "User deleted.", json: ["deleted": true])
        }
    }

    struct Outbox: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox", abstract: "Codes the local pool sent (local plugin only).",
            discussion: "Prints the confirmation and reset codes the local user pool delivered to its outbox, oldest first.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .customLong("user"), help: ArgumentHelp("Only this user's codes.", valueName: "user")) var username: String?

        func execute() async throws -> CommandResult {
            let messages = try await localPlugin().outbox(for: username)
            return CommandResult(
                text: messages.map { "\($0.username)\t\($0.purpose.rawValue)\t\($0.code)\t\($0.destination)" }.joined(separator: "\n"),
                json: .array(
                    messages.map {
                        [
                            "username": .string($0.username), "purpose": .string($0.purpose.rawValue), "code": .string($0.code),
                            "destination": .string($0.destination),
                        ]
                    }))
        }
    }

    struct JWKS: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "jwks", abstract: "The local pool's public keys (JWKS).",
            discussion: "Prints the JWKS document other services verify the local pool's tokens with.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let document = try await localPlugin().jwks()
            return CommandResult(text: document.compactText, json: document)
        }
    }

    static func cognitoPlugin() throws -> AWSCognitoAuthPlugin {
        guard let plugin = Amplify.Auth.addedPlugins.compactMap({ $0 as? AWSCognitoAuthPlugin }).first else {
            throw AuthError.configuration(
                "This command needs the Cognito auth plugin.", "Configure `auth.plugins.awsCognitoAuthPlugin` (the file the Amplify CLI writes).")
        }
        return plugin
    }

    /// The prompt for a sign-in step that needs an answer, or nil when none does.
    static func challengePrompt(_ step: AuthSignInStep) -> String? {
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
        case .continueSignInWithFirstFactorSelection(let factors):
            "First factor (\(factors.map(\.challengeResponse).sorted().joined(separator: " or "))): "
        case .confirmSignInWithPassword: "Password: "
        default: nil
        }
    }

    /// The hosted UI sign-in: prints the URL (on standard error, so --json output stays clean) and
    /// runs the browser command with it, if one is given.
    static func webSignIn(browser: String?) async throws -> CommandResult {
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

    static func localPlugin() throws -> LocalAuthPlugin {
        guard let plugin = try Amplify.Auth.getPlugin(for: LocalAuthPlugin.pluginKey) as? LocalAuthPlugin else {
            throw AuthError.configuration("This command needs the local auth plugin.", "Configure `auth.plugins.localAuthPlugin`.")
        }
        return plugin
    }

    static func signUpResult(_ username: String, _ result: AuthSignUpResult) -> CommandResult {
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
