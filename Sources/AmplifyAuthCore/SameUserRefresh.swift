import Amplify

extension AuthSessionKeeper {
    /// `exchange`, refusing an answer that is another user's session: a refresh never changes
    /// whom a session (or a server context) acts as. A request can pair one user's access token
    /// with another's refresh token; the exchange then answers with the other user's tokens,
    /// which are dropped here, never adopted, stored or sent back.
    ///
    /// The plugins also check before they spend anything where they can: the local pool refuses
    /// another user's refresh token without revoking it. Cognito's refresh tokens are opaque, so
    /// its answer is checked after the exchange; its `REFRESH_TOKEN_AUTH` does not rotate the
    /// refresh token, so nothing of the other user's is spent.
    static func requiringSameUser(_ exchange: @escaping Refresh) -> Refresh {
        { current in
            let renewed = try await exchange(current)
            guard current.userId.isEmpty || renewed.userId == current.userId else {
                throw AuthError.notAuthorized(
                    "The refresh token is refused: it belongs to another user than the session's access token.",
                    "Sign in again; a request must carry one user's tokens.")
            }
            return renewed
        }
    }
}
