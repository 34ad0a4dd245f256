import AWSPluginsCore
import Amplify

/// How one Events call is authorized (Amplify JS's `EventsOptions`): the auth mode, and for
/// `AWS_LAMBDA` or `OPENID_CONNECT` a token to send instead of asking the plugin's provider.
/// `nil` members take the API's default mode and the plugin's sources.
public struct EventsOptions: Sendable {
    /// The auth mode (`nil`: the API's `authorizationType`).
    public var authMode: AWSAuthorizationType?
    /// The token for `AWS_LAMBDA`, `OPENID_CONNECT` or `AMAZON_COGNITO_USER_POOLS`, when the
    /// caller has it (Amplify JS's `authToken`).
    public var authToken: String?

    /// Options.
    /// - Parameters:
    ///   - authMode: the auth mode (`nil`: the API's default).
    ///   - authToken: the token to send, instead of the plugin's provider's.
    public init(authMode: AWSAuthorizationType? = nil, authToken: String? = nil) {
        self.authMode = authMode
        self.authToken = authToken
    }
}

/// What an Events subscription's sequence yields: the state of its connection (`connecting`
/// again after a drop, while it reconnects and subscribes again; events published in that gap
/// are not delivered, AppSync Events keeps no history) and the events themselves.
public enum EventsSubscriptionEvent: Sendable, Equatable {
    /// The subscription's connection changed state.
    case connection(SubscriptionConnectionState)
    /// One event, as the JSON value its publisher sent.
    case data(JSONValue)
}

/// One event a publish delivered to AppSync (`successful`) or that AppSync refused (`failed`).
public struct EventsPublishedEvent: Sendable, Equatable {
    /// AppSync's identifier for the event.
    public let identifier: String
    /// The event's position in the publish.
    public let index: Int
    /// For a refused event, AppSync's code (an HTTP-like status).
    public let code: Int?
    /// For a refused event, AppSync's message.
    public let message: String?

    /// An event result (for tests and code-built results).
    /// - Parameters:
    ///   - identifier: AppSync's identifier for the event.
    ///   - index: the event's position in the publish.
    ///   - code: the refusal's code.
    ///   - message: the refusal's message.
    public init(identifier: String, index: Int, code: Int? = nil, message: String? = nil) {
        self.identifier = identifier
        self.index = index
        self.code = code
        self.message = message
    }

    init?(_ json: JSONValue) {
        guard let index = json["index"]?.intValue else { return nil }
        self.init(
            identifier: json["identifier"]?.stringValue ?? "", index: index, code: json["code"]?.intValue, message: json["message"]?.stringValue)
    }
}

/// What AppSync answered to a publish (Amplify JS's `PublishResponse`).
public struct EventsPublishResult: Sendable, Equatable {
    /// The events AppSync accepted.
    public let successful: [EventsPublishedEvent]
    /// The events AppSync refused, each with its reason.
    public let failed: [EventsPublishedEvent]

    /// A result (for tests and code-built results).
    /// - Parameters:
    ///   - successful: the events AppSync accepted.
    ///   - failed: the events AppSync refused.
    public init(successful: [EventsPublishedEvent], failed: [EventsPublishedEvent]) {
        self.successful = successful
        self.failed = failed
    }

    /// Reads `{"successful": [...], "failed": [...]}` (HTTP) or a `publish_success` message.
    init(_ json: JSONValue) {
        successful = (json["successful"]?.asArray ?? []).compactMap(EventsPublishedEvent.init)
        failed = (json["failed"]?.asArray ?? []).compactMap(EventsPublishedEvent.init)
    }
}
