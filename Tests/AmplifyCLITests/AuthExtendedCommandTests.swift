import AmplifyCrypto
import Foundation
import Testing

/// `amplify auth verify-attribute`, `confirm-attribute`, `setup-totp`, `verify-totp` and `mfa` on the local pool.
@Suite("amplify auth: attribute verification, TOTP, MFA")
struct AuthExtendedCommandTests {
    @Test(
        "verify-attribute and confirm-attribute verify the email; setup-totp prints the otpauth URI, verify-totp takes its code, mfa --totp preferred shows it on"
    )
    func verificationAndTOTP() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-auth-mfa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"auth": {"plugins": {"localAuthPlugin": {"directory": "pool", "passwordHashCost": 1024}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        func latestCode() async throws -> String {
            let outbox = try await Tool.run(["--json", "auth", "outbox"], in: folder)
            let messages = try JSONSerialization.jsonObject(with: Data(outbox.stdout.utf8)) as? [[String: String]]
            return try #require(messages?.last?["code"])
        }
        #expect(
            try await Tool.run(["auth", "sign-up", "dee", "--email", "dee@example.com", "--password-stdin"], in: folder, input: "Passw0rd!\n")
                .exitCode == 0)
        #expect(try await Tool.run(["auth", "confirm-sign-up", "dee", try await latestCode()], in: folder).exitCode == 0)
        #expect(try await Tool.run(["auth", "sign-in", "dee", "--password-stdin"], in: folder, input: "Passw0rd!\n").exitCode == 0)

        let sent = try await Tool.run(["auth", "verify-attribute", "email"], in: folder)
        #expect(sent.stdout.hasPrefix("Code sent to "), "\(sent.stderr)")
        #expect(try await Tool.run(["auth", "confirm-attribute", "email", try await latestCode()], in: folder).stdout == "email is verified.\n")
        #expect(try await Tool.run(["auth", "attributes"], in: folder).stdout.contains("email_verified=true\n"))

        let setup = try await Tool.run(["--json", "auth", "setup-totp", "--app", "Notes"], in: folder)
        let details = try JSONSerialization.jsonObject(with: Data(setup.stdout.utf8)) as? [String: String]
        let secret = try #require(details?["secret"])
        #expect(details?["uri"] == "otpauth://totp/Notes:dee?secret=\(secret)&issuer=Notes")
        let code = TOTP(secret: try #require(Base32.decode(secret))).code()
        #expect(try await Tool.run(["auth", "verify-totp", code], in: folder).exitCode == 0)
        #expect(try await Tool.run(["auth", "mfa", "--totp", "preferred"], in: folder).stdout == "On: totp\nPreferred: totp\n")
        let bad = try await Tool.run(["auth", "mfa", "--sms", "sometimes"], in: folder)
        #expect(bad.exitCode != 0)
        #expect(bad.stderr.contains("--sms takes disabled, enabled, preferred or not-preferred; got 'sometimes'."))
    }

    @Test(
        "sign-in --first-factor choose asks for the factor and the password; devices lists the sign-in's device, remember-device and forget-device change it; --first-factor email-otp asks for the code sent and refuses a wrong one"
    )
    func passwordlessAndDevices() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-auth-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"auth": {"plugins": {"localAuthPlugin": {"directory": "pool", "passwordHashCost": 1024}}}}"#.utf8)
            .write(to: folder.appendingPathComponent("amplifyconfiguration.json"))
        #expect(
            try await Tool.run(["auth", "sign-up", "eve", "--email", "eve@example.com", "--password-stdin"], in: folder, input: "Passw0rd!\n")
                .exitCode == 0)
        let outbox = try await Tool.run(["--json", "auth", "outbox"], in: folder)
        let code = try #require((try JSONSerialization.jsonObject(with: Data(outbox.stdout.utf8)) as? [[String: String]])?.last?["code"])
        #expect(try await Tool.run(["auth", "confirm-sign-up", "eve", code], in: folder).exitCode == 0)

        let chosen = try await Tool.run(
            ["auth", "sign-in", "eve", "--first-factor", "choose", "--password-stdin"], in: folder, input: "PASSWORD\nPassw0rd!\n")
        #expect(chosen.stdout == "Signed in as eve.\n", "\(chosen.stderr)")
        let devices = try await Tool.run(["--json", "auth", "devices"], in: folder)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(devices.stdout.utf8)) as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["remembered"] as? Bool == false)
        #expect(try await Tool.run(["auth", "remember-device"], in: folder).stdout == "This device is remembered.\n")
        #expect(try await Tool.run(["auth", "devices"], in: folder).stdout.hasSuffix("  remembered\n"))
        let unknown = try await Tool.run(["auth", "forget-device", "local_nope"], in: folder)
        #expect(unknown.exitCode != 0 && unknown.stderr.contains("The signed-in user has no device 'local_nope'."))
        #expect(try await Tool.run(["auth", "forget-device"], in: folder).exitCode == 0)
        #expect(try await Tool.run(["auth", "devices"], in: folder).stdout == "No devices.\n")
        #expect(try await Tool.run(["auth", "sign-out"], in: folder).exitCode == 0)

        let otp = try await Tool.run(["auth", "sign-in", "eve", "--first-factor", "email-otp", "--password-stdin"], in: folder, input: "000000\n")
        #expect(otp.exitCode != 0)
        #expect(otp.stderr.contains("The code is wrong."), "\(otp.stderr)")
        let bad = try await Tool.run(["auth", "sign-in", "eve", "--first-factor", "magic"], in: folder)
        #expect(bad.stderr.contains("--first-factor takes email-otp, sms-otp, password, password-srp or choose; got 'magic'."))
    }
}
