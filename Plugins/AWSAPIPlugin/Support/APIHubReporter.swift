import Amplify

/// Dispatches the plugin's outcomes on the Hub's `.api` channel.
struct APIHubReporter: Sendable {
    let hub: (any HubCategoryBehavior)?
    /// `hub` when it is the default plugin, which can tell whether anybody listens.
    private let defaultHub: DefaultHubPlugin?

    init(hub: (any HubCategoryBehavior)?) {
        self.hub = hub
        defaultHub = hub as? DefaultHubPlugin
    }

    /// Whether an event on `.api` would reach anything now; when not, no payload is built.
    private var wanted: Bool {
        if let defaultHub { return defaultHub.wantsEvents(on: .api) }
        return hub != nil || Amplify.Hub.wantsEvents(on: .api)
    }

    func dispatch(_ event: String, context: APIOperationContext, data: any Sendable) {
        if wanted { deliver(event, context: context, data: data) }
    }

    private func deliver(_ event: String, context: APIOperationContext, data: any Sendable) {
        let payload = HubPayload(eventName: event, context: context, data: data)
        if let hub { hub.dispatch(to: .api, payload: payload) } else { Amplify.Hub.dispatch(to: .api, payload: payload) }
    }

    /// Runs `body` and dispatches its value or error under `event`, then returns or rethrows it.
    /// - Throws: what `body` throws.
    func reporting<T: Sendable>(_ event: String, context: @autoclosure () -> APIOperationContext, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            if wanted { deliver(event, context: context(), data: value) }
            return value
        } catch {
            if wanted { deliver(event, context: context(), data: error as? any AmplifyError ?? APIError.unknown("\(error)", "", error)) }
            throw error
        }
    }
}
