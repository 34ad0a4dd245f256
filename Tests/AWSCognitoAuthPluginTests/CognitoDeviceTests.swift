import AWSCognitoAuthPlugin
import Amplify
import AmplifyTestKit
import Foundation
import Testing

/// Device tracking against a recorded exchange (moto has none; see Fixtures/README.md).
@Suite("Cognito: devices (ConfirmDevice, ListDevices, UpdateDeviceStatus, ForgetDevice)")
struct CognitoDeviceTests {
    @Test(
        "a sign-in with NewDeviceMetadata confirms the device and its refreshes send DEVICE_KEY; fetchDevices reads every ListDevices page; rememberDevice and forgetDevice() act on the access token's device_key; a device Cognito does not know is resourceNotFound"
    )
    func devices() async throws {
        let replay = try await RecordedExchangeTests.Replay("devices.json")
        #expect(try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        // A refresh names the device (DEVICE_KEY): a pool that tracks devices binds the refresh token to it.
        #expect(try await replay.plugin.fetchAuthSession(options: .forceRefresh()).isSignedIn)
        let devices = try await replay.plugin.fetchDevices(options: nil).compactMap { $0 as? AWSAuthDevice }
        #expect(devices.map(\.id) == ["us-east-1_dev-bo-1", "us-east-1_dev-other"])
        #expect(devices.map(\.name) == ["build-host", "bo's phone"])
        #expect(devices.last?.attributes?["dev:device_remembered_status"] == "remembered")
        #expect(devices.first?.createdDate == Date(timeIntervalSince1970: 1_764_547_200))
        #expect(devices.first?.lastAuthenticatedDate == Date(timeIntervalSince1970: 1_764_547_260))
        try await replay.plugin.rememberDevice(options: nil)
        let other = try #require(devices.last)
        try await replay.plugin.forgetDevice(other, options: nil)
        let again = await authError { try await replay.plugin.forgetDevice(other, options: nil) }
        guard case .service(_, _, let underlying as AWSCognitoAuthError)? = again, underlying == .resourceNotFound else {
            Issue.record("\(String(describing: again))")
            return
        }
        try await replay.plugin.forgetDevice(nil, options: nil)
        #expect(
            await replay.eventNames().filter { $0.contains("Device") } == [
                HubPayload.EventName.Auth.fetchDevicesAPI, HubPayload.EventName.Auth.rememberDeviceAPI, HubPayload.EventName.Auth.forgetDeviceAPI,
                HubPayload.EventName.Auth.forgetDeviceAPI, HubPayload.EventName.Auth.forgetDeviceAPI,
            ])
        try await replay.close()
    }

    @Test(
        "without device tracking the session has no device: rememberDevice and forgetDevice() say so (invalidState) and send nothing; signed out, they are signedOut"
    )
    func noDevice() async throws {
        let replay = try await RecordedExchangeTests.Replay("attribute_verification.json")
        let signedOut = await authError { try await replay.plugin.rememberDevice(options: nil) }
        guard case .signedOut? = signedOut else {
            Issue.record("\(String(describing: signedOut))")
            return
        }
        _ = try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil)
        let remember = await authError { try await replay.plugin.rememberDevice(options: nil) }
        #expect(
            remember?.errorDescription
                == "This session has no device: the user pool does not track devices, or this sign-in's device was not confirmed.")
        guard case .invalidState? = remember else {
            Issue.record("\(String(describing: remember))")
            return
        }
        let forget = await authError { try await replay.plugin.forgetDevice(nil, options: nil) }
        guard case .invalidState? = forget else {
            Issue.record("\(String(describing: forget))")
            return
        }
        // The recording's next call is still the first GetUserAttributeVerificationCode: nothing was sent.
        _ = try await replay.plugin.sendVerificationCode(forUserAttributeKey: .email, options: nil)
        try await replay.close()
    }

    @Test(
        "a remembered device's next sign-in, in another process on the same credential store, sends DEVICE_KEY and answers DEVICE_SRP_AUTH and DEVICE_PASSWORD_VERIFIER with the kept secret"
    )
    func rememberedDeviceSignsInWithDeviceSRP() async throws {
        let replay = try await RecordedExchangeTests.Replay("device_srp.json")
        #expect(try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        try await replay.plugin.rememberDevice(options: nil)
        _ = await replay.plugin.signOut(options: nil)
        await replay.plugin.reset()
        let next = try replay.restarted()
        #expect(try await next.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        #expect(try await next.getCurrentUser().username == "bo")
        await next.reset()
        try await replay.close()
    }

    @Test("a sign-in inside a server context confirms its device but keeps no secret: the next sign-in sends no DEVICE_KEY")
    func serverContextKeepsNoDeviceSecret() async throws {
        let replay = try await RecordedExchangeTests.Replay("device_context.json")
        let context = try replay.plugin.emptyServerContext()
        let inside = try await context.run { try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil) }
        #expect(inside.isSignedIn)
        _ = await context.run { await replay.plugin.signOut(options: nil) }
        #expect(try await replay.plugin.signIn(username: "bo", password: "Passw0rd!x", options: nil).isSignedIn)
        try await replay.close()
    }
}
