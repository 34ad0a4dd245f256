import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: devices (fetchDevices, rememberDevice, forgetDevice)")
struct DeviceTests {
    @Test(
        "each sign-in tracks a device named by the host; rememberDevice marks the session's own; a refresh keeps its device_key; every call reports its API event"
    )
    func signInTracksADevice() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "dee")
        let devices = try await plugin.fetchDevices(options: nil)
        let device = try #require(devices.first as? LocalAuthDevice)
        #expect(devices.count == 1)
        #expect(!device.name.isEmpty && device.attributes?["device_name"] == device.name)
        #expect(!device.isRemembered)
        let session = try #require(try await plugin.fetchAuthSession(options: nil) as? LocalAuthSession)
        #expect(try JSONWebToken(parsing: try #require(session.tokens?.accessToken)).string("device_key") == device.id)

        let refreshed = try #require(try await plugin.fetchAuthSession(options: .forceRefresh()) as? LocalAuthSession)
        #expect(refreshed.tokens?.accessToken != session.tokens?.accessToken)
        #expect(try JSONWebToken(parsing: try #require(refreshed.tokens?.accessToken)).string("device_key") == device.id)
        try await plugin.rememberDevice(options: nil)
        let remembered = try #require(try await plugin.fetchDevices(options: nil).first as? LocalAuthDevice)
        #expect(remembered.id == device.id && remembered.isRemembered)
        #expect(
            await fixture.eventNames().filter { $0.hasSuffix("API") }.suffix(5) == [
                "Auth.fetchDevicesAPI", "Auth.fetchSessionAPI", "Auth.fetchSessionAPI", "Auth.rememberDeviceAPI", "Auth.fetchDevicesAPI",
            ])
        try await fixture.close(plugin)
    }

    @Test(
        "forgetDevice(device) forgets another sign-in's device, forgetDevice() the session's own; an unknown device, or remembering a forgotten one, is a validation error"
    )
    func forgetDevices() async throws {
        let fixture = try LocalPoolFixture()
        let here = try fixture.plugin()
        let there = try fixture.plugin(store: "elsewhere.sqlite")
        try await signUpAndIn(here, fixture, "fay")
        #expect(try await there.signIn(username: "fay", password: "Passw0rd!", options: nil).isSignedIn)
        let theirs = try #require(try await there.fetchDevices(options: nil).first)
        #expect(try await here.fetchDevices(options: nil).count == 2)

        try await here.forgetDevice(theirs, options: nil)
        let left = try await here.fetchDevices(options: nil)
        #expect(left.count == 1 && left.first?.id != theirs.id)
        let unknown = await authError { try await here.forgetDevice(theirs, options: nil) }
        #expect(unknown?.errorDescription == "The user has no device '\(theirs.id)' (it was forgotten, or belongs to someone else).")
        try await here.forgetDevice(nil, options: nil)
        #expect(try await here.fetchDevices(options: nil).isEmpty)
        let forgotten = await authError { try await here.rememberDevice(options: nil) }
        guard case .validation? = forgotten else {
            Issue.record("\(String(describing: forgotten))")
            return
        }
        try await fixture.close(here, there)
    }

    @Test("the device calls need a signed-in user; Amplify.Auth-style callers reach them through AuthCategoryDeviceBehavior")
    func needsASignedInUser() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let behavior: any AuthCategoryDeviceBehavior = plugin
        let signedOut = await authError { _ = try await behavior.fetchDevices(options: nil) }
        guard case .signedOut? = signedOut else {
            Issue.record("\(String(describing: signedOut))")
            return
        }
        let remember = await authError { try await behavior.rememberDevice(options: nil) }
        guard case .signedOut? = remember else {
            Issue.record("\(String(describing: remember))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test("Amplify.Auth's device and WebAuthn calls inside a server context reach the context's plugin and act as its user, not the process-wide one")
    func facadeInAServerContext() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "gus")
        let processWide = try #require(try await plugin.fetchDevices(options: nil).first)
        _ = try await plugin.signUp(
            username: "hal", password: "Passw0rd!", options: .init(userAttributes: [AuthUserAttribute(.email, value: "hal@example.com")]))
        _ = try await plugin.confirmSignUp(for: "hal", confirmationCode: try await fixture.latestCode(plugin, for: "hal"), options: nil)
        let context = try plugin.emptyServerContext()
        let devices = try await context.run {
            _ = try await Amplify.Auth.signIn(username: "hal", password: "Passw0rd!")
            try await Amplify.Auth.rememberDevice()
            return try await Amplify.Auth.fetchDevices()
        }
        #expect(devices.count == 1 && devices.first?.id != processWide.id)
        #expect((devices.first as? LocalAuthDevice)?.isRemembered == true)
        #expect(try await context.run { try await Amplify.Auth.listWebAuthnCredentials() }.credentials.isEmpty)
        #expect((try await plugin.fetchDevices(options: nil).first as? LocalAuthDevice)?.isRemembered == false)
        try await fixture.close(plugin)
    }

    @Test(
        "a remembered device spares the user's MFA on this machine's next sign-ins (its secret kept in the credential store); another machine, or the device once forgotten, is asked for the code"
    )
    func rememberedDeviceSkipsMFA() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "ivy")
        let secret = try #require(Base32.decode(try await plugin.setUpTOTP().sharedSecret))
        let totp = TOTP(secret: secret)
        try await plugin.verifyTOTPSetup(code: totp.code(), options: nil)
        try await plugin.updateMFAPreference(totp: .preferred)
        try await plugin.rememberDevice(options: nil)
        let remembered = try #require(try await plugin.fetchDevices(options: nil).first)
        _ = await plugin.signOut(options: nil)

        // The next process on this machine's credential store.
        await plugin.reset()
        let restarted = try fixture.plugin()
        #expect(try await restarted.signIn(username: "ivy", password: "Passw0rd!", options: nil).nextStep == .done)
        #expect(try await restarted.fetchDevices(options: nil).map(\.id) == [remembered.id])
        _ = await restarted.signOut(options: nil)

        let elsewhere = try fixture.plugin(store: "elsewhere.sqlite")
        #expect(try await elsewhere.signIn(username: "ivy", password: "Passw0rd!", options: nil).nextStep == .confirmSignInWithTOTPCode)
        _ = await elsewhere.signOut(options: nil)

        _ = try await restarted.signIn(username: "ivy", password: "Passw0rd!", options: nil)
        try await restarted.forgetDevice(nil, options: nil)
        _ = await restarted.signOut(options: nil)
        #expect(try await restarted.signIn(username: "ivy", password: "Passw0rd!", options: nil).nextStep == .confirmSignInWithTOTPCode)
        try await fixture.close(restarted, elsewhere)
    }
}
