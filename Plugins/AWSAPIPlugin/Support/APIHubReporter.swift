import Amplify

/// Dispatches the plugin's outcomes on the Hub's `.api` channel, through the core's
/// ``HubReporter``; a payload is built only when the event would reach anything.
struct APIHubReporter: Sendable {
    private let reporter: HubReporter

    init(hub: (any HubCategoryBehavior)?) {
        reporter = HubReporter(hub: hub)
    }

    func dispatch(_ event: String, context: APIOperationContext, data: any Sendable) {
        if reporter.wantsEvents(on: .api) { deliver(event, context: context, data: data) }
    }

    private func deliver(_ event: String, context: APIOperationContext, data: any Sendable) {
        reporter.dispatch(to: .api, payload: HubPayload(eventName: event, context: context, data: data))
    }

    /// Runs `body` and dispatches its value or error under `event`, then returns or rethrows it.
    /// - Throws: what `body` throws.
    func reporting<T: Sendable>(_ event: String, context: @autoclosure () -> APIOperationContext, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            if reporter.wantsEvents(on: .api) { deliver(event, context: context(), data: value) }
            return value
        } catch {
            if reporter.wantsEvents(on: .api) {
                deliver(event, context: context(), data: error as? any AmplifyError ?? APIError.unknown("\(error)", "", error))
            }
            throw error
        }
    }
}
