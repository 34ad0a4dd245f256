import Amplify

/// The `AuthError` `body` throws (another error as `AuthError.unknown` naming it), or `nil` when it
/// returns: for tests that check which refusal a call gives.
public func authError(_ body: () async throws -> Void) async -> AuthError? {
    do {
        try await body()
        return nil
    } catch let error as AuthError {
        return error
    } catch {
        return .unknown("unexpected \(error)")
    }
}
