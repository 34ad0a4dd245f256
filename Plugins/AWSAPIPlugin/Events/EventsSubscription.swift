import AWSPluginsCore
import Amplify

/// One Events subscription as its connection sees it: its id, its channel, how its `subscribe`
/// is authorized, and where its states, events and end go. Made off the loop; its closures run
/// on the loop thread.
final class EventsSubscription: Sendable {
    let id: String
    /// The channel path, validated (`/namespace/…`, a trailing `*` allowed).
    let channel: String
    /// The `subscribe` message's authorization (the subscribe auth mode's), fetched when it was made.
    let authorization: PreparedAuthorization
    /// Fetches that authorization again (a resubscribe after a reconnect: tokens and temporary
    /// credentials may have expired meanwhile).
    let authorize: @Sendable () async throws -> PreparedAuthorization
    let state: @Sendable (SubscriptionConnectionState) -> Void
    /// Gets one event, decoded; held until ``flush`` (the end of the loop turn that read it).
    let deliver: @Sendable (JSONValue) -> Void
    let flush: @Sendable () -> Void
    let fail: @Sendable (APIError) -> Void
    let complete: @Sendable () -> Void

    init(
        id: String, channel: String, authorization: PreparedAuthorization, authorize: @escaping @Sendable () async throws -> PreparedAuthorization,
        state: @escaping @Sendable (SubscriptionConnectionState) -> Void,
        deliver: @escaping @Sendable (JSONValue) -> Void, flush: @escaping @Sendable () -> Void, fail: @escaping @Sendable (APIError) -> Void,
        complete: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.channel = channel
        self.authorization = authorization
        self.authorize = authorize
        self.state = state
        self.deliver = deliver
        self.flush = flush
        self.fail = fail
        self.complete = complete
    }
}

/// One publish over an Events WebSocket: the channel, the events' JSON texts, the authorization
/// of its message, and where AppSync's answer goes. Made off the loop; `finish` runs on the loop
/// thread, once.
struct EventsPublish: Sendable {
    let id: String
    let channel: String
    let events: [String]
    let authorization: PreparedAuthorization
    let finish: @Sendable (Result<EventsPublishResult, APIError>) -> Void
}

extension PreparedAuthorization {
    /// The `authorization` object of an Events message (or, with `body` `{}`, of the handshake):
    /// `{host, x-api-key}`, `{host, Authorization}`, or the SigV4 headers of a `POST` of `body`
    /// to the API's `/event` path.
    func eventsHeaders(endpoint: APIEndpointConfiguration, body: String) -> [String: String] {
        let path = endpoint.endpoint.path.isEmpty ? "/event" : endpoint.endpoint.path
        return realtimeHeaders(host: endpoint.endpoint.hostHeader, path: path, body: Array(body.utf8))
    }
}

/// The bodies Events messages are signed over, written as Amplify JS writes them
/// (`JSON.stringify`: compact, `channel` first, `/` not escaped).
enum EventsMessageBody {
    /// `{"channel":"…"}`: what a `subscribe` is signed over.
    static func subscribe(channel: String) -> String {
        var bytes = Array(#"{"channel":"#.utf8)
        JSONValue.writeString(channel, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `{"channel":"…","events":["…",…]}`: a publish's body over HTTP, and what a WebSocket
    /// `publish` is signed over.
    static func publish(channel: String, events: [String]) -> String {
        var bytes = Array(#"{"channel":"#.utf8)
        JSONValue.writeString(channel, into: &bytes)
        bytes.append(contentsOf: #","events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(event, into: &bytes)
        }
        bytes.append(contentsOf: "]}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }
}
