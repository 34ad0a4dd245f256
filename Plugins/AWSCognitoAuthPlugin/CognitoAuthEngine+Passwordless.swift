import Amplify
import AmplifyAuthCore
import AmplifyCrypto
import Foundation

/// Choice-based sign-in (`AuthFlowType.userAuth`) on Cognito: InitiateAuth `USER_AUTH` with the
/// preferred first factor (`PREFERRED_CHALLENGE`), or `SELECT_CHALLENGE`, answered with the
/// factor chosen; `EMAIL_OTP` / `SMS_OTP` codes, the password over TLS (`PASSWORD`) or by SRP
/// (`PASSWORD_SRP`, then `PASSWORD_VERIFIER`).
extension CognitoAuthEngine {
    /// InitiateAuth `USER_AUTH` for `username`.
    func choiceBasedSignIn(username: String, password: String?, preferred: AuthFactorType?) async throws -> (AuthSignInResult, SignedInUser?) {
        var parameters = ["USERNAME": username]
        parameters["PREFERRED_CHALLENGE"] = preferred?.challengeResponse
        var ephemeral: CognitoSRP.Ephemeral?
        if let password, !password.isEmpty {
            switch preferred {
            case .password?: parameters["PASSWORD"] = password
            case .passwordSRP?:
                let started = try CognitoSRP.start()
                parameters["SRP_A"] = started.publicValueHex
                ephemeral = started
            default: break
            }
        }
        let answer = try await service.initiateAuth(flow: "USER_AUTH", parameters: parameters, username: username)
        if answer["ChallengeName"]?.stringValue == "PASSWORD_VERIFIER", let ephemeral, let password {
            return try await answerPasswordVerifier(answer, typedUsername: username, password: password, ephemeral: ephemeral)
        }
        return try await handle(answer, username: username)
    }

    /// Answers `SELECT_CHALLENGE` with the factor `response` names. An OTP factor is sent at once
    /// (Cognito then sends the code); a password factor first asks for the password
    /// (`.confirmSignInWithPassword`), sent with the choice by the next `confirmSignIn`.
    /// - Throws: `AuthError.validation` for a factor Cognito did not offer.
    func selectFirstFactor(_ response: String, challenge: PendingChallenge) async throws -> (AuthSignInResult, SignedInUser?) {
        if let chosen = challenge.parameters[Self.chosenFactorKey], let factor = AuthFactorType(challengeResponse: chosen) {
            return try await answerWithPassword(response, factor: factor, challenge: challenge)
        }
        let offered = (challenge.parameters[Self.offeredFactorsKey] ?? "").split(separator: ",").map(String.init)
        guard let factor = AuthFactorType(challengeResponse: response), offered.contains(factor.challengeResponse) else {
            throw AuthError.validation(
                "challengeResponse", "'\(response)' is not one of the first factors offered (\(offered.sorted().joined(separator: ", "))).",
                "Answer with the challengeResponse of one of them.")
        }
        switch factor {
        case .password, .passwordSRP:
            var parameters = challenge.parameters
            parameters[Self.chosenFactorKey] = factor.challengeResponse
            pending = PendingChallenge(name: challenge.name, session: challenge.session, username: challenge.username, parameters: parameters)
            return (AuthSignInResult(nextStep: .confirmSignInWithPassword), nil)
        case .emailOTP, .smsOTP:
            let answer = try await service.respondToAuthChallenge(
                name: "SELECT_CHALLENGE", session: challenge.session, responses: ["ANSWER": factor.challengeResponse], username: challenge.username)
            return try await handle(answer, username: challenge.username)
        }
    }

    /// SELECT_CHALLENGE with `ANSWER` `PASSWORD` and the password, or `PASSWORD_SRP` and `SRP_A`
    /// (then the `PASSWORD_VERIFIER` claim).
    private func answerWithPassword(_ password: String, factor: AuthFactorType, challenge: PendingChallenge) async throws -> (
        AuthSignInResult, SignedInUser?
    ) {
        if factor == .passwordSRP {
            let ephemeral = try CognitoSRP.start()
            let answer = try await service.respondToAuthChallenge(
                name: "SELECT_CHALLENGE", session: challenge.session,
                responses: ["ANSWER": "PASSWORD_SRP", "SRP_A": ephemeral.publicValueHex], username: challenge.username)
            guard answer["ChallengeName"]?.stringValue == "PASSWORD_VERIFIER" else { return try await handle(answer, username: challenge.username) }
            return try await answerPasswordVerifier(answer, typedUsername: challenge.username, password: password, ephemeral: ephemeral)
        }
        let answer = try await service.respondToAuthChallenge(
            name: "SELECT_CHALLENGE", session: challenge.session, responses: ["ANSWER": "PASSWORD", "PASSWORD": password],
            username: challenge.username)
        return try await handle(answer, username: challenge.username)
    }

    /// Where a pending `SELECT_CHALLENGE` keeps the factors offered (comma-separated).
    static let offeredFactorsKey = "amplify:offered"
    /// Where it keeps the password factor chosen, waiting for the password.
    static let chosenFactorKey = "amplify:chosen"
}
