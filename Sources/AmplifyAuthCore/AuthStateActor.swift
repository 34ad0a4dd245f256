/// The global actor the observable auth state lives on: server code has no main thread, so the
/// state gets an actor of its own. Read it with `await` from elsewhere.
@globalActor
public actor AuthStateActor {
    /// The one instance.
    public static let shared = AuthStateActor()
}
