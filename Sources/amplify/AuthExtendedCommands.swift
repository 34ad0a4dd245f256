import AWSCognitoAuthPlugin
import AmplifyPlugins
import ArgumentParser
import Foundation
import LocalAuthPlugin

/// `amplify auth` commands for attribute verification, TOTP set-up and MFA preferences.
extension AuthCommands {
    struct VerifyAttribute: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-attribute", abstract: "Send a code to verify an attribute.",
            discussion: "Sends a code to the signed-in user's email or phone_number; confirm it with confirm-attribute.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("email or phone_number.", valueName: "name")) var name: String

        func execute() async throws -> CommandResult {
            let details = try await Amplify.Auth.sendVerificationCode(forUserAttributeKey: AuthUserAttributeKey(rawValue: name))
            return CommandResult(text: "Code sent to \(details.destination).", json: ["sent": true, "attribute": .string(name)])
        }
    }

    struct ConfirmAttribute: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm-attribute", abstract: "Verify an attribute with its code.",
            discussion: "Verifies the signed-in user's attribute NAME with the CODE verify-attribute sent.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("email or phone_number.", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("The code.", valueName: "code")) var code: String

        func execute() async throws -> CommandResult {
            try await Amplify.Auth.confirm(userAttribute: AuthUserAttributeKey(rawValue: name), confirmationCode: code)
            return CommandResult(text: "\(name) is verified.", json: ["verified": true, "attribute": .string(name)])
        }
    }

    struct SetUpTOTP: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup-totp", abstract: "Start TOTP set-up; print the otpauth URI.",
            discussion: "Prints the otpauth:// URI (and the secret) for an authenticator app; finish with verify-totp CODE.")
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The issuer the authenticator app shows.", valueName: "name")) var app = "Amplify"

        func execute() async throws -> CommandResult {
            let details = try await Amplify.Auth.setUpTOTP()
            let uri = try details.getSetupURI(appName: app)
            return CommandResult(
                text: "\(uri.absoluteString)\nSecret: \(details.sharedSecret)",
                json: ["uri": .string(uri.absoluteString), "secret": .string(details.sharedSecret)])
        }
    }

    struct VerifyTOTP: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-totp", abstract: "Finish TOTP set-up with a code.", discussion: "Checks the authenticator app's current CODE.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The code the authenticator app shows.", valueName: "code")) var code: String

        func execute() async throws -> CommandResult {
            try await Amplify.Auth.verifyTOTPSetup(code: code)
            return CommandResult(text: "TOTP is set up; turn it on with `amplify auth mfa --totp enabled`.", json: ["verified": true])
        }
    }

    struct MFA: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "mfa", abstract: "Show or change MFA preferences.",
            discussion:
                "Without options prints the methods that are on and the preferred one; --sms, --totp and --email take disabled, enabled, preferred or not-preferred."
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("SMS codes.", valueName: "preference")) var sms: String?
        @Option(help: ArgumentHelp("Authenticator app codes.", valueName: "preference")) var totp: String?
        @Option(help: ArgumentHelp("Email codes.", valueName: "preference")) var email: String?

        static func preference(_ text: String?, _ option: String) throws -> MFAPreference? {
            guard let text else { return nil }
            switch text {
            case "disabled": return .disabled
            case "enabled": return .enabled
            case "preferred": return .preferred
            case "not-preferred": return .notPreferred
            default: throw ValidationError("--\(option) takes disabled, enabled, preferred or not-preferred; got '\(text)'.")
            }
        }

        func validate() throws {
            _ = try Self.preference(sms, "sms")
            _ = try Self.preference(totp, "totp")
            _ = try Self.preference(email, "email")
        }

        func execute() async throws -> CommandResult {
            let plugins = Amplify.Auth.addedPlugins
            let local = plugins.lazy.compactMap { $0 as? LocalAuthPlugin }.first
            let cognito = plugins.lazy.compactMap { $0 as? AWSCognitoAuthPlugin }.first
            let changes = (try Self.preference(sms, "sms"), try Self.preference(totp, "totp"), try Self.preference(email, "email"))
            if changes.0 != nil || changes.1 != nil || changes.2 != nil {
                if let local {
                    try await local.updateMFAPreference(sms: changes.0, totp: changes.1, email: changes.2)
                } else if let cognito {
                    try await cognito.updateMFAPreference(sms: changes.0, totp: changes.1, email: changes.2)
                }
            }
            let preference: UserMFAPreference
            if let local {
                preference = try await local.fetchMFAPreference()
            } else if let cognito {
                preference = try await cognito.fetchMFAPreference()
            } else {
                throw AuthError.configuration(
                    "MFA preferences need the local or the Cognito Auth plugin.", "Configure localAuthPlugin or awsCognitoAuthPlugin.")
            }
            let enabled = (preference.enabled ?? []).map { "\($0)" }.sorted()
            let preferred = preference.preferred.map { "\($0)" }
            return CommandResult(
                text: "On: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))\nPreferred: \(preferred ?? "none")",
                json: ["enabled": .array(enabled.map(JSONValue.string)), "preferred": preferred.map(JSONValue.string) ?? .null])
        }
    }
}
