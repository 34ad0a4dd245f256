import AWSPluginsCore
import Amplify
import AmplifyCrypto
import Foundation

/// The Cognito Identity Provider calls the plugin makes (JSON 1.1, `AWSCognitoIdentityProviderService.*`,
/// public operations unsigned), with `SECRET_HASH` added whenever the app client has a secret.
/// Every error comes back as an ``Amplify/AuthError`` (see ``AWSCognitoAuthError``).
struct CognitoUserPoolService: Sendable {
    let client: AWSJSONClient
    let clientId: String
    let clientSecret: String?

    /// `base64(HMAC-SHA256(clientSecret, username + clientId))`, or nil without a secret.
    func secretHash(_ username: String) -> String? {
        guard let clientSecret else { return nil }
        return Data(Digest.hmacSHA256(key: Array(clientSecret.utf8), Array((username + clientId).utf8))).base64EncodedString()
    }

    /// Calls `operation` with `body`.
    /// - Throws: ``Amplify/AuthError``.
    func call(_ operation: String, _ body: [String: JSONValue]) async throws -> JSONValue {
        guard !clientId.isEmpty else {
            throw AuthError.configuration(
                "This configuration has no user pool (only an identity pool), so \(operation) cannot be called.",
                "Add CognitoUserPool.Default (PoolId, AppClientId, Region) to the awsCognitoAuthPlugin block to sign users in; guest AWS credentials work without it."
            )
        }
        do {
            return try await client.call("AWSCognitoIdentityProviderService." + operation, .object(body), signed: false)
        } catch {
            throw AuthError.cognito(error, operation: operation)
        }
    }

    // MARK: Sign-up

    func signUp(username: String, password: String, attributes: [AuthUserAttribute]) async throws -> JSONValue {
        var body: [String: JSONValue] = [
            "ClientId": .string(clientId), "Username": .string(username), "Password": .string(password),
            "UserAttributes": .array(attributes.map { ["Name": .string($0.key.rawValue), "Value": .string($0.value)] }),
        ]
        body["SecretHash"] = secretHash(username).map(JSONValue.string)
        return try await call("SignUp", body)
    }

    /// ConfirmSignUp, with SignUp's `Session` when there is one; its answer may carry the session
    /// that signs the user in (`USER_AUTH`).
    func confirmSignUp(username: String, code: String, session: String?) async throws -> JSONValue {
        var body: [String: JSONValue] = ["ClientId": .string(clientId), "Username": .string(username), "ConfirmationCode": .string(code)]
        body["SecretHash"] = secretHash(username).map(JSONValue.string)
        body["Session"] = session.map(JSONValue.string)
        return try await call("ConfirmSignUp", body)
    }

    func resendConfirmationCode(username: String) async throws -> JSONValue {
        var body: [String: JSONValue] = ["ClientId": .string(clientId), "Username": .string(username)]
        body["SecretHash"] = secretHash(username).map(JSONValue.string)
        return try await call("ResendConfirmationCode", body)
    }

    // MARK: Sign-in

    /// InitiateAuth with `flow`; `session` continues a sign-up (`USER_AUTH` after ConfirmSignUp).
    func initiateAuth(flow: String, parameters: [String: String], username: String?, session: String? = nil) async throws -> JSONValue {
        var parameters = parameters
        if let username, let hash = secretHash(username) { parameters["SECRET_HASH"] = hash }
        var body: [String: JSONValue] = [
            "AuthFlow": .string(flow), "ClientId": .string(clientId), "AuthParameters": .object(parameters.mapValues(JSONValue.string)),
        ]
        body["Session"] = session.map(JSONValue.string)
        return try await call("InitiateAuth", body)
    }

    func respondToAuthChallenge(name: String, session: String?, responses: [String: String], username: String) async throws -> JSONValue {
        var responses = responses
        responses["USERNAME"] = username
        if let hash = secretHash(username) { responses["SECRET_HASH"] = hash }
        var body: [String: JSONValue] = [
            "ChallengeName": .string(name), "ClientId": .string(clientId), "ChallengeResponses": .object(responses.mapValues(JSONValue.string)),
        ]
        body["Session"] = session.map(JSONValue.string)
        return try await call("RespondToAuthChallenge", body)
    }

    /// REFRESH_TOKEN_AUTH. `username` is the one the session belongs to (its `SECRET_HASH` uses
    /// the user's `sub`-style username Cognito issued the token to); `deviceKey`, the session's
    /// tracked device, goes as `DEVICE_KEY` (a pool that tracks devices binds the refresh token to it).
    func refresh(refreshToken: String, username: String, deviceKey: String? = nil) async throws -> JSONValue {
        var parameters = ["REFRESH_TOKEN": refreshToken]
        parameters["DEVICE_KEY"] = deviceKey
        return try await initiateAuth(flow: "REFRESH_TOKEN_AUTH", parameters: parameters, username: username)
    }

    /// AssociateSoftwareToken during sign-in (MFA_SETUP): the TOTP secret and the next session.
    func associateSoftwareToken(session: String) async throws -> JSONValue {
        try await call("AssociateSoftwareToken", ["Session": .string(session)])
    }

    /// VerifySoftwareToken during sign-in (MFA_SETUP): checks the first code, returns the next session.
    func verifySoftwareToken(session: String, code: String) async throws -> JSONValue {
        try await call("VerifySoftwareToken", ["Session": .string(session), "UserCode": .string(code)])
    }

    // MARK: Signed-in calls (authorized by the access token)

    func getUser(accessToken: String) async throws -> JSONValue {
        try await call("GetUser", ["AccessToken": .string(accessToken)])
    }

    func updateUserAttributes(accessToken: String, attributes: [AuthUserAttribute]) async throws -> JSONValue {
        try await call(
            "UpdateUserAttributes",
            [
                "AccessToken": .string(accessToken),
                "UserAttributes": .array(attributes.map { ["Name": .string($0.key.rawValue), "Value": .string($0.value)] }),
            ])
    }

    func changePassword(accessToken: String, old: String, new: String) async throws {
        _ = try await call(
            "ChangePassword", ["AccessToken": .string(accessToken), "PreviousPassword": .string(old), "ProposedPassword": .string(new)])
    }

    func globalSignOut(accessToken: String) async throws {
        _ = try await call("GlobalSignOut", ["AccessToken": .string(accessToken)])
    }

    func deleteUser(accessToken: String) async throws {
        _ = try await call("DeleteUser", ["AccessToken": .string(accessToken)])
    }

    func revokeToken(refreshToken: String) async throws {
        var body: [String: JSONValue] = ["ClientId": .string(clientId), "Token": .string(refreshToken)]
        body["ClientSecret"] = clientSecret.map(JSONValue.string)
        _ = try await call("RevokeToken", body)
    }

    // MARK: Passwords

    func forgotPassword(username: String) async throws -> JSONValue {
        var body: [String: JSONValue] = ["ClientId": .string(clientId), "Username": .string(username)]
        body["SecretHash"] = secretHash(username).map(JSONValue.string)
        return try await call("ForgotPassword", body)
    }

    func confirmForgotPassword(username: String, code: String, password: String) async throws {
        var body: [String: JSONValue] = [
            "ClientId": .string(clientId), "Username": .string(username), "ConfirmationCode": .string(code), "Password": .string(password),
        ]
        body["SecretHash"] = secretHash(username).map(JSONValue.string)
        _ = try await call("ConfirmForgotPassword", body)
    }

    /// `CodeDeliveryDetails` (`Destination`, `DeliveryMedium`, `AttributeName`) as Amplify's type.
    static func deliveryDetails(_ json: JSONValue?) -> AuthCodeDeliveryDetails {
        let destination = json?["Destination"]?.stringValue
        let medium: DeliveryDestination =
            switch json?["DeliveryMedium"]?.stringValue {
            case "EMAIL": .email(destination)
            case "SMS": .sms(destination)
            case "PHONE": .phone(destination)
            default: .unknown(destination)
            }
        return AuthCodeDeliveryDetails(
            destination: medium, attributeKey: json?["AttributeName"]?.stringValue.map(AuthUserAttributeKey.init(rawValue:)))
    }
}
