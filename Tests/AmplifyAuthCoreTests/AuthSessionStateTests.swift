import Amplify
import AmplifyAuthCore
import Foundation
import LocalAuthPlugin
import LocalAuthTestSupport
import Observation
import Testing

@Suite("Observable session state")
struct AuthSessionStateTests {
    @Test("the state follows the Hub: awaiting confirmation, signed in, signed out, as a sequence of states")
    func followsEvents() async throws {
        let fixture = try LocalPoolFixture()
        let plugin = try fixture.plugin()
        let state = AuthSessionState(hub: fixture.hub)
        let updates = await state.updates
        let collected = Task { () -> [AuthSessionState.Status] in
            var seen: [AuthSessionState.Status] = []
            for await status in updates {
                seen.append(status)
                if seen.count == 5 { break }
            }
            return seen
        }
        _ = try await plugin.signUp(username: "pat", password: "Passw0rd!", options: nil)
        let code = try await fixture.latestCode(plugin, for: "pat")
        _ = try await plugin.confirmSignUp(for: "pat", confirmationCode: code, options: nil)
        _ = try await plugin.signIn(username: "pat", password: "Passw0rd!", options: nil)
        let userId = try await plugin.getCurrentUser().userId
        _ = await plugin.signOut(options: nil)
        let statuses = await collected.value
        #expect(
            statuses == [
                .signedOut(.initial),
                .awaitingConfirmation(username: "pat"),
                .signedOut(.initial),
                .signedIn(SignedInUser(username: "pat", userId: userId)),
                .signedOut(.signedOut),
            ])
        await state.stop()
        try await fixture.close(plugin)
    }

    @Test("withObservationTracking sees the status change when the session expires")
    func observationTracking() async throws {
        let fixture = try LocalPoolFixture()
        let state = AuthSessionState(hub: fixture.hub)
        await fixture.hub.flush()
        let changed = AsyncStream<Void>.makeStream()
        await MainActorFree.track(state) { changed.continuation.yield() }
        fixture.hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.sessionExpired, data: "pat"))
        var iterator = changed.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await state.status == .signedOut(.sessionExpired))
        await state.stop()
        try await fixture.close()
    }
}

/// Registers an observation of `state.status` on the state's actor.
enum MainActorFree {
    @AuthStateActor
    static func track(_ state: AuthSessionState, onChange: @escaping @Sendable () -> Void) {
        withObservationTracking {
            _ = state.status
        } onChange: {
            onChange()
        }
    }
}
