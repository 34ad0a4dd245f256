import AWSCognitoAuthPlugin
import AmplifyPlugins
import ArgumentParser
import Foundation
import LocalAuthPlugin

/// `amplify auth devices`, `remember-device` and `forget-device`: the signed-in user's tracked devices.
extension AuthCommands {
    struct Devices: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List the signed-in user's devices.",
            discussion: "Prints each tracked device: its key, name, whether it is remembered, and when it last signed in.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            let devices = try await Amplify.Auth.fetchDevices()
            let remembered = devices.map(Self.isRemembered)
            let lines = zip(devices, remembered).map { device, remembered in
                "\(device.id)  \(device.name.isEmpty ? "(no name)" : device.name)\(remembered ? "  remembered" : "")"
            }
            let json = zip(devices, remembered).map { device, remembered -> JSONValue in
                ["id": .string(device.id), "name": .string(device.name), "remembered": .boolean(remembered)]
            }
            return CommandResult(text: lines.isEmpty ? "No devices." : lines.joined(separator: "\n"), json: .array(json))
        }

        /// Whether the device's `dev:device_remembered_status` attribute says remembered.
        static func isRemembered(_ device: any AuthDevice) -> Bool {
            let attributes = (device as? LocalAuthDevice)?.attributes ?? (device as? AWSAuthDevice)?.attributes
            return attributes?["dev:device_remembered_status"] == "remembered"
        }
    }

    struct RememberDevice: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "remember-device", abstract: "Remember this session's device.",
            discussion: "Marks the device the signed-in session is on as remembered.")
        @OptionGroup var global: GlobalOptions

        func execute() async throws -> CommandResult {
            try await Amplify.Auth.rememberDevice()
            return CommandResult(text: "This device is remembered.", json: ["remembered": true])
        }
    }

    struct ForgetDevice: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget-device", abstract: "Forget a device (default: this session's).",
            discussion: "Stops tracking the device with key ID (from `amplify auth devices`), or without ID this session's own.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The device key (default: this session's device).", valueName: "id")) var id: String?

        func execute() async throws -> CommandResult {
            if let id {
                guard let device = try await Amplify.Auth.fetchDevices().first(where: { $0.id == id }) else {
                    throw AuthError.validation("id", "The signed-in user has no device '\(id)'.", "List the devices with `amplify auth devices`.")
                }
                try await Amplify.Auth.forgetDevice(device)
            } else {
                try await Amplify.Auth.forgetDevice()
            }
            return CommandResult(text: "Forgot \(id ?? "this session's device").", json: ["forgotten": .string(id ?? "current")])
        }
    }
}
