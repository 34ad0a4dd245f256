import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import AmplifySQLite
import AmplifyTestKit
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Testing

@Suite("Local auth: sign-up, confirmation, sign-in")
struct SignUpAndSignInTests {
    @Test("sign up, confirm with the outbox code, sign in: each step's result and event, in order")
    func happyPath() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let signUp = try await plugin.signUp(
            username: "alice", password: "Passw0rd!",
            options: AuthSignUpRequest.Options(userAttributes: [AuthUserAttribute(.email, value: "alice@example.com")]))
        guard case .confirmUser(let details?, _, let userId?) = signUp.nextStep else {
            Issue.record("\(signUp.nextStep)")
            return
        }
        #expect(details.destination == .email("a***@e***.com"))
        #expect(signUp.userID == userId)
        let outbox = try await plugin.outbox(for: "alice")
        #expect(outbox.count == 1)
        #expect(outbox.first?.destination == "alice@example.com")
        #expect(outbox.first?.code.count == 6)
        let confirmed = try await plugin.confirmSignUp(for: "alice", confirmationCode: outbox[0].code, options: nil)
        #expect(confirmed.isSignUpComplete)
        let signIn = try await plugin.signIn(username: "alice", password: "Passw0rd!", options: nil)
        #expect(signIn.isSignedIn)
        #expect(try await plugin.getCurrentUser().username == "alice")
        #expect(try await plugin.getCurrentUser().userId == userId)
        #expect(await fixture.eventNames() == ["Auth.signUpAPI", "Auth.confirmSignUpAPI", "Auth.signInAPI", "Auth.signedIn"])
        let signedIn = fixture.events.payloads.last?.data as? SignedInUser
        #expect(signedIn == SignedInUser(username: "alice", userId: userId))
        try await fixture.close(plugin)
    }

    @Test("tokens are ES256 JWTs with iss, sub, aud/client_id, exp, iat, jti and token_use, verifiable with the JWKS")
    func tokens() async throws {
        let fixture = try LocalPoolFixture(["issuer": "urn:test", "clientId": "test-client"])
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "bob")
        let session = try #require(try await plugin.fetchAuthSession(options: nil) as? LocalAuthSession)
        #expect(session.isSignedIn)
        let tokens = try #require(session.tokens)
        let jwk = try #require(try await plugin.jwks()["keys"]?[0])
        #expect(jwk["kty"] == "EC")
        #expect(jwk["alg"] == "ES256")
        let key = try ES256Key(
            publicX: try #require(Base64URL.decode(jwk["x"]?.stringValue ?? "")), y: try #require(Base64URL.decode(jwk["y"]?.stringValue ?? "")))
        let id = try JSONWebToken.verify(tokens.idToken, key: key)
        #expect(id.header["kid"] == jwk["kid"])
        #expect(id.string("iss") == "urn:test")
        #expect(id.string("aud") == "test-client")
        #expect(id.string("token_use") == "id")
        #expect(id.string("sub") == session.userSub)
        #expect(id.string("email") == "bob@example.com")
        #expect(id.claims["iat"] != nil && id.string("jti") != nil)
        let access = try JSONWebToken.verify(tokens.accessToken, key: key)
        #expect(access.string("token_use") == "access")
        #expect(access.string("client_id") == "test-client")
        #expect(access.string("jti") != id.string("jti"))
        // A token changed by one byte, or re-labelled alg none, does not verify.
        var parts = tokens.accessToken.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"sub":"someone-else","exp":9999999999}"#.utf8))
        #expect(throws: JSONWebToken.Problem.badSignature) { try JSONWebToken.verify(parts.joined(separator: "."), key: key) }
        parts[0] = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        #expect(throws: JSONWebToken.Problem.unsupportedAlgorithm("none")) { try JSONWebToken.verify(parts.joined(separator: "."), key: key) }
        try await fixture.close(plugin)
    }

    @Test("wrong password, unknown user, unconfirmed user, signed in twice: each refused as it should be")
    func signInErrors() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "carol", password: "Passw0rd!", options: nil)
        let unconfirmed = try await plugin.signIn(username: "carol", password: "Passw0rd!", options: nil)
        #expect(unconfirmed.nextStep == .confirmSignUp(nil))
        #expect(!unconfirmed.isSignedIn)
        _ = try await plugin.confirmSignUp(for: "carol", confirmationCode: try await fixture.latestCode(plugin, for: "carol"), options: nil)
        let wrong = await authError { _ = try await plugin.signIn(username: "carol", password: "Wrong0ne!", options: nil) }
        let unknown = await authError { _ = try await plugin.signIn(username: "nobody", password: "Passw0rd!", options: nil) }
        guard case .notAuthorized(let wrongText, _, _) = wrong, case .notAuthorized(let unknownText, _, _) = unknown else {
            Issue.record("\(String(describing: wrong)) \(String(describing: unknown))")
            return
        }
        #expect(wrongText == "Incorrect username or password.")
        #expect(unknownText == wrongText)  // who exists is not revealed
        _ = try await plugin.signIn(username: "carol", password: "Passw0rd!", options: nil)
        let twice = await authError { _ = try await plugin.signIn(username: "carol", password: "Passw0rd!", options: nil) }
        guard case .invalidState = twice else {
            Issue.record("\(String(describing: twice))")
            return
        }
        try await fixture.close(plugin)
    }

    @Test("weak passwords and taken usernames are refused with the reason")
    func signUpErrors() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let weak = await authError { _ = try await plugin.signUp(username: "dave", password: "short", options: nil) }
        #expect(weak?.errorDescription == "The password does not meet the policy: it needs at least 8 characters.")
        let noDigit = await authError { _ = try await plugin.signUp(username: "dave", password: "Password", options: nil) }
        #expect(noDigit?.errorDescription == "The password does not meet the policy: it needs a digit.")
        _ = try await plugin.signUp(username: "dave", password: "Passw0rd!", options: nil)
        let taken = await authError { _ = try await plugin.signUp(username: "DAVE", password: "Passw0rd!", options: nil) }
        guard case .validation("username", let text, _, _) = taken else {
            Issue.record("\(String(describing: taken))")
            return
        }
        #expect(text == "A user named 'DAVE' already exists.")
        try await fixture.close(plugin)
    }

    @Test("codes: a wrong code counts down, a used code is gone, an expired code is refused, too many wrong codes void it")
    func codes() async throws {
        // Codes that live long enough for a loaded machine, except where expiry is the point.
        let fixture = try LocalPoolFixture(["codeMaxAttempts": 3])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "erin", password: "Passw0rd!", options: nil)
        let code = try await fixture.latestCode(plugin, for: "erin")
        let wrongCode = code == "000000" ? "111111" : "000000"
        let wrong = await authError { _ = try await plugin.confirmSignUp(for: "erin", confirmationCode: wrongCode, options: nil) }
        #expect(wrong?.errorDescription == "The code is wrong.")
        #expect(wrong?.recoverySuggestion.contains("2 attempts left") == true)
        _ = try await plugin.resendSignUpCode(for: "erin", options: nil)
        let fresh = try await fixture.latestCode(plugin, for: "erin")
        _ = try await plugin.confirmSignUp(for: "erin", confirmationCode: fresh, options: nil)
        let reused = await authError { _ = try await plugin.confirmSignUp(for: "erin", confirmationCode: fresh, options: nil) }
        guard case .invalidState = reused else {
            Issue.record("\(String(describing: reused))")
            return
        }

        _ = try await plugin.signUp(username: "frank", password: "Passw0rd!", options: nil)
        let frankCode = try await fixture.latestCode(plugin, for: "frank")
        let other = frankCode == "000000" ? "111111" : "000000"
        for _ in 0..<2 { _ = await authError { _ = try await plugin.confirmSignUp(for: "frank", confirmationCode: other, options: nil) } }
        let voided = await authError { _ = try await plugin.confirmSignUp(for: "frank", confirmationCode: other, options: nil) }
        #expect(voided?.errorDescription.contains("no longer valid") == true)
        let afterVoid = await authError { _ = try await plugin.confirmSignUp(for: "frank", confirmationCode: frankCode, options: nil) }
        #expect(afterVoid?.errorDescription == "There is no pending code (it was already used or never sent).")
        try await fixture.close(plugin)

        let shortLived = try LocalPoolFixture(["codeLifetimeSeconds": 1, "codeMaxAttempts": 3])
        let expiring = try shortLived.plugin()
        _ = try await expiring.signUp(username: "gina", password: "Passw0rd!", options: nil)
        let ginaCode = try await shortLived.latestCode(expiring, for: "gina")
        try await Task.sleep(for: .milliseconds(1_200))
        let expired = await authError { _ = try await expiring.confirmSignUp(for: "gina", confirmationCode: ginaCode, options: nil) }
        #expect(expired?.errorDescription == "The code has expired.")
        try await shortLived.close(expiring)
    }

    @Test("repeated wrong passwords lock the account, even against the right password")
    func lockout() async throws {
        let fixture = try LocalPoolFixture(["lockout": ["maxFailedAttempts": 3, "lockoutSeconds": 60]])
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(username: "gina", password: "Passw0rd!", options: nil)
        _ = try await plugin.confirmSignUp(for: "gina", confirmationCode: try await fixture.latestCode(plugin, for: "gina"), options: nil)
        for _ in 0..<3 { _ = await authError { _ = try await plugin.signIn(username: "gina", password: "Wrong0ne!", options: nil) } }
        let locked = await authError { _ = try await plugin.signIn(username: "gina", password: "Passw0rd!", options: nil) }
        #expect(locked?.errorDescription.hasPrefix("Too many failed sign-in attempts; the account is locked for") == true)
        try await fixture.close(plugin)
    }

    @Test("passwords are stored only as scrypt hashes; the key, the secret and the stores are mode 0600")
    func storage() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        try await signUpAndIn(plugin, fixture, "hank", password: "Sup3rSecretPass")
        let users = try SQLiteDatabase(path: fixture.folder + "/users.sqlite")
        let row = try #require(try await users.run("SELECT password_hash, password_salt FROM users").first)
        #expect(row["password_hash"].blob?.count == 32)
        #expect(row["password_salt"].blob?.count == 16)
        await users.close()
        for name in ["users.sqlite", "credentials.sqlite", "signing-key.pem", "pool-secret"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.folder + "/" + name)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
        }
        for name in ["users.sqlite", "users.sqlite-wal"] {
            let bytes = FileManager.default.contents(atPath: fixture.folder + "/" + name) ?? Data()
            #expect(bytes.range(of: Data("Sup3rSecretPass".utf8)) == nil, "\(name) holds the password")
        }
        try await fixture.close(plugin)
    }
}

@Suite("Local auth: Hub events")
struct LocalAuthEventTests {
    @Test("every call dispatches its API event with its result, and the lifecycle events follow")
    func everyCallReports() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        _ = try await plugin.signUp(
            username: "rae", password: "Passw0rd!", options: .init(userAttributes: [AuthUserAttribute(.email, value: "r@example.com")]))
        _ = try await plugin.resendSignUpCode(for: "rae", options: nil)
        _ = try await plugin.confirmSignUp(for: "rae", confirmationCode: try await fixture.latestCode(plugin, for: "rae"), options: nil)
        _ = try await plugin.signIn(username: "rae", password: "Passw0rd!", options: nil)
        let challenge = await authError { _ = try await plugin.confirmSignIn(challengeResponse: "x", options: nil) }
        guard case .invalidState = challenge else {
            Issue.record("\(String(describing: challenge))")
            return
        }
        _ = try await plugin.fetchAuthSession(options: nil)
        _ = try await plugin.fetchUserAttributes(options: nil)
        _ = try await plugin.update(userAttribute: AuthUserAttribute(.name, value: "Rae"), options: nil)
        _ = try await plugin.update(userAttributes: [AuthUserAttribute(.nickname, value: "R")], options: nil)
        try await plugin.update(oldPassword: "Passw0rd!", to: "N3wPassword", options: nil)
        _ = try await plugin.resetPassword(for: "rae", options: nil)
        try await plugin.confirmResetPassword(
            for: "rae", with: "Res3tPassword", confirmationCode: try await fixture.latestCode(plugin, for: "rae"), options: nil)
        _ = await plugin.signOut(options: nil)
        _ = try await plugin.signIn(username: "rae", password: "Res3tPassword", options: nil)
        try await plugin.deleteUser()
        #expect(
            await fixture.eventNames() == [
                "Auth.signUpAPI", "Auth.resendSignUpCodeAPI", "Auth.confirmSignUpAPI", "Auth.signInAPI", "Auth.signedIn",
                "Auth.confirmSignInAPI", "Auth.fetchSessionAPI", "Auth.fetchUserAttributesAPI", "Auth.updateUserAttributeAPI",
                "Auth.updateUserAttributesAPI", "Auth.changePasswordAPI", "Auth.resetPasswordAPI", "Auth.confirmResetPasswordAPI",
                "Auth.signOutAPI", "Auth.signedOut", "Auth.signInAPI", "Auth.signedIn", "Auth.deleteUserAPI", "Auth.userDeleted",
            ])
        let signIn = fixture.events.payloads.first { $0.eventName == "Auth.signInAPI" }
        #expect(signIn?.context as? String == "rae")
        if case .success(let result)? = signIn?.data as? Result<AuthSignInResult, AuthError> {
            #expect(result.isSignedIn)
        } else {
            Issue.record("signInAPI carries \(String(describing: signIn?.data))")
        }
        let failed = fixture.events.payloads.first { $0.eventName == "Auth.confirmSignInAPI" }
        if case .failure(.invalidState)? = failed?.data as? Result<AuthSignInResult, AuthError> {
        } else {
            Issue.record("confirmSignInAPI carries \(String(describing: failed?.data))")
        }
        try await fixture.close(plugin)
    }
}
