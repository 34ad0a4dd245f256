import AWSPluginsCore
import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import Foundation

/// Devices on Cognito: `ListDevices`, `ForgetDevice` and `UpdateDeviceStatus` with the access
/// token; the session's own device is the access token's `device_key` claim. A sign-in whose
/// answer carries `NewDeviceMetadata` (the pool tracks devices) confirms the device with
/// `ConfirmDevice` (its SRP verifier, ``CognitoDeviceVerifier``), named by the host name.
extension CognitoAuthEngine: AuthDeviceEngine {
    /// The signed-in user's devices (every page of ListDevices, 60 a page).
    public func fetchDevices() async throws -> [AWSAuthDevice] {
        let service = service
        var devices: [AWSAuthDevice] = []
        var page: String?
        repeat {
            let token = page
            let answer = try await withAccessToken { access in
                var body: [String: JSONValue] = ["AccessToken": .string(access), "Limit": 60]
                body["PaginationToken"] = token.map(JSONValue.string)
                return try await service.call("ListDevices", body)
            }
            devices += (answer["Devices"]?.asArray ?? []).compactMap(Self.device)
            page = answer["PaginationToken"]?.stringValue
        } while page?.isEmpty == false
        return devices
    }

    /// ForgetDevice for `id` (`nil`: the session's own device).
    public func forgetDevice(id: String?) async throws {
        let key: String
        if let id { key = id } else { key = try await currentDeviceKey() }
        try await deviceCall("ForgetDevice", ["DeviceKey": .string(key)])
        await keeper.clearDeviceSecret(deviceKey: key)
    }

    /// InitiateAuth `flow`, with the kept device of `username` as `DEVICE_KEY` (outside server
    /// contexts); when Cognito no longer knows that device, its secret is forgotten and the
    /// sign-in starts again without it.
    func initiateWithDevice(flow: String, parameters: [String: String], username: String) async throws -> JSONValue {
        guard !inServerContext, let secret = await keeper.deviceSecret(username: username) else {
            return try await service.initiateAuth(flow: flow, parameters: parameters, username: username)
        }
        var withDevice = parameters
        withDevice["DEVICE_KEY"] = secret.deviceKey
        do {
            return try await service.initiateAuth(flow: flow, parameters: withDevice, username: username)
        } catch AuthError.configuration(_, _, let underlying as AWSCognitoAuthError) where underlying == .resourceNotFound {
            await keeper.clearDeviceSecret(deviceKey: secret.deviceKey)
            return try await service.initiateAuth(flow: flow, parameters: parameters, username: username)
        }
    }

    /// Answers `DEVICE_SRP_AUTH` with the kept device secret: `SRP_A`, then the
    /// `DEVICE_PASSWORD_VERIFIER` claim (``CognitoSRP/deviceClaim(deviceGroupKey:deviceKey:devicePassword:ephemeral:saltHex:serverPublicHex:secretBlock:timestamp:)``).
    /// - Throws: `AuthError.service` when no secret is kept for the user or the challenge is malformed.
    func answerDeviceSRP(_ challenge: JSONValue, usernames: [String]) async throws -> (AuthSignInResult, SignedInUser?) {
        var found: (String, DeviceSecret)?
        for name in usernames where found == nil {
            if let secret = await keeper.deviceSecret(username: name) { found = (name, secret) }
        }
        let username = usernames.first ?? ""
        guard let (owner, secret) = found else {
            throw AuthError.service(
                "Cognito asked this device to prove itself (DEVICE_SRP_AUTH), but no device secret is kept for '\(username)'.",
                "Forget the device (forgetDevice) from another session, then sign in again.")
        }
        do {
            let ephemeral = try CognitoSRP.start()
            let verifier = try await service.respondToAuthChallenge(
                name: "DEVICE_SRP_AUTH", session: challenge["Session"]?.stringValue,
                responses: ["DEVICE_KEY": secret.deviceKey, "SRP_A": ephemeral.publicValueHex], username: username)
            guard verifier["ChallengeName"]?.stringValue == "DEVICE_PASSWORD_VERIFIER" else { return try await handle(verifier, username: owner) }
            let parameters = verifier["ChallengeParameters"]
            guard let salt = parameters?["SALT"]?.stringValue, let serverPublic = parameters?["SRP_B"]?.stringValue,
                let block = parameters?["SECRET_BLOCK"]?.stringValue
            else {
                throw AuthError.service("Cognito's DEVICE_PASSWORD_VERIFIER challenge lacks SALT, SRP_B or SECRET_BLOCK.", "Check the endpoint.")
            }
            let timestamp = CognitoSRP.timestamp(Date())
            let claim = try CognitoSRP.deviceClaim(
                deviceGroupKey: secret.deviceGroupKey, deviceKey: secret.deviceKey, devicePassword: secret.devicePassword, ephemeral: ephemeral,
                saltHex: salt, serverPublicHex: serverPublic, secretBlock: block, timestamp: timestamp)
            let answer = try await service.respondToAuthChallenge(
                name: "DEVICE_PASSWORD_VERIFIER", session: verifier["Session"]?.stringValue,
                responses: [
                    "DEVICE_KEY": secret.deviceKey, "PASSWORD_CLAIM_SECRET_BLOCK": block, "PASSWORD_CLAIM_SIGNATURE": claim.signature,
                    "TIMESTAMP": timestamp,
                ],
                username: parameters?["USERNAME"]?.stringValue ?? username)
            return try await handle(answer, username: owner)
        } catch let error as CryptoError {
            throw AuthError.service(
                "The device's SRP challenge could not be answered: \(error)", "Check that the endpoint is a Cognito user pool.", error)
        }
    }

    /// UpdateDeviceStatus `remembered` for the session's own device.
    public func rememberDevice() async throws {
        let key = try await currentDeviceKey()
        try await deviceCall("UpdateDeviceStatus", ["DeviceKey": .string(key), "DeviceRememberedStatus": "remembered"])
    }

    /// `operation` on one device with the access token. Cognito's `ResourceNotFoundException`
    /// here means the device (not the pool): a service error saying so.
    private func deviceCall(_ operation: String, _ body: [String: JSONValue]) async throws {
        let service = service
        do {
            _ = try await withAccessToken { token in
                var request = body
                request["AccessToken"] = .string(token)
                return try await service.call(operation, request)
            }
        } catch AuthError.configuration(let description, _, let underlying as AWSCognitoAuthError) where underlying == .resourceNotFound {
            throw AuthError.service(description, "The device is not tracked (any more): call fetchDevices() for the user's devices.", underlying)
        }
    }

    /// Whether this call runs in a server context (of any pool).
    var inServerContext: Bool { AuthServerContext.current != nil }

    /// The session's device: its access token's `device_key` claim.
    /// - Throws: `AuthError.signedOut` when nobody is signed in, `AuthError.invalidState` when the
    ///   token names no device.
    private func currentDeviceKey() async throws -> String {
        try await prepare()
        guard let session = await (try sessions()).current else { throw AuthError.signedOut("Nobody is signed in.", "Sign in first.") }
        guard let key = (try? JSONWebToken(parsing: session.accessToken))?.string("device_key"), !key.isEmpty else {
            throw AuthError.invalidState(
                "This session has no device: the user pool does not track devices, or this sign-in's device was not confirmed.",
                "Turn on device tracking for the user pool, then sign in again; or pass the device to forgetDevice(_:).")
        }
        return key
    }

    /// Confirms the device a sign-in's `NewDeviceMetadata` names (ConfirmDevice with a fresh
    /// verifier) and, for the process-wide session, keeps its secret in the credential store for
    /// `usernames`' later sign-ins (`DEVICE_SRP_AUTH`). A refusal does not undo the sign-in: it is logged, and the device stays
    /// unconfirmed.
    func confirmNewDevice(_ answer: JSONValue, accessToken: String, usernames: Set<String>) async {
        guard let metadata = answer["AuthenticationResult"]?["NewDeviceMetadata"], let key = metadata["DeviceKey"]?.stringValue,
            let group = metadata["DeviceGroupKey"]?.stringValue
        else { return }
        do {
            let verifier = try CognitoDeviceVerifier.make(deviceGroupKey: group, deviceKey: key)
            _ = try await service.call(
                "ConfirmDevice",
                [
                    "AccessToken": .string(accessToken), "DeviceKey": .string(key), "DeviceName": .string(DeviceHost.name),
                    "DeviceSecretVerifierConfig": ["PasswordVerifier": .string(verifier.passwordVerifier), "Salt": .string(verifier.salt)],
                ])
            // Kept for the process-wide session only: in a server context the device is the
            // server, not the user's, and remembering it must not spare the user's MFA elsewhere.
            if !inServerContext {
                try await keeper.saveDeviceSecret(
                    DeviceSecret(deviceKey: key, deviceGroupKey: group, devicePassword: verifier.password), usernames: usernames)
            }
        } catch {
            Amplify.Logging.logger(forCategory: "Auth").warn("The new device \(key) could not be confirmed (ConfirmDevice): \(error)")
        }
    }

    /// A ListDevices entry as ``AWSAuthDevice`` (dates are epoch seconds).
    static func device(_ json: JSONValue) -> AWSAuthDevice? {
        guard let key = json["DeviceKey"]?.stringValue else { return nil }
        var attributes: [String: String] = [:]
        for item in json["DeviceAttributes"]?.asArray ?? [] {
            if let name = item["Name"]?.stringValue, let value = item["Value"]?.stringValue { attributes[name] = value }
        }
        func date(_ field: String) -> Date? { json[field]?.doubleValue.map(Date.init(timeIntervalSince1970:)) }
        return AWSAuthDevice(
            id: key, name: attributes["device_name"] ?? "", attributes: attributes, createdDate: date("DeviceCreateDate"),
            lastAuthenticatedDate: date("DeviceLastAuthenticatedDate"), lastModifiedDate: date("DeviceLastModifiedDate"))
    }
}
