import AmplifyConcurrency
import Foundation

/// A Hub event as it crosses between processes (the Redis and the AppSync Events bridges):
/// versioned JSON.
///
/// `{"v":1,"id":"…","origin":"…","channel":"auth","event":"Auth.signedOut","time":1764…,
///   "dataType":"Swift.String","data":"alice","context":null}`
///
/// `id` is unique per event (listeners deduplicate by it in streams mode); `origin` is the
/// publishing bridge's id, so a process never delivers its own event back to itself; `seq`
/// (the AppSync Events bridge's) numbers one sender's events 1, 2, 3, … so that a receiver
/// sees what it missed.
package struct HubWireEvent: Codable, Equatable, Sendable {
    /// The format's version; a bridge ignores (and counts) events of versions it does not know.
    package static let version = 1

    package var v: Int
    package var id: String
    package var origin: String
    package var channel: String
    package var event: String
    package var time: Double
    package var dataType: String?
    package var data: JSONValue?
    package var contextType: String?
    package var context: JSONValue?
    package var seq: Int?

    package init(
        v: Int, id: String, origin: String, channel: String, event: String, time: Double, dataType: String?, data: JSONValue?,
        contextType: String?, context: JSONValue?, seq: Int? = nil
    ) {
        self.v = v
        self.id = id
        self.origin = origin
        self.channel = channel
        self.event = event
        self.time = time
        self.dataType = dataType
        self.data = data
        self.contextType = contextType
        self.context = context
        self.seq = seq
    }
}

/// What a listener finds in `HubPayload.context` of an event that came from another process.
public struct RemoteHubEvent: Sendable, Equatable {
    /// The event's unique id (the same in every process that receives it).
    public let id: String
    /// The publishing bridge's id.
    public let origin: String
    /// The stream entry id (the Redis bridge's streams mode), e.g. `1764512345678-0`.
    public let streamEntryId: String?
    /// When the publisher dispatched it.
    public let sentAt: Date
    /// The publisher's own context, decoded as ``HubPayloadCodec`` could (else as JSON).
    public let originalContext: (any Sendable)?

    package init(id: String, origin: String, streamEntryId: String?, sentAt: Date, originalContext: (any Sendable)?) {
        self.id = id
        self.origin = origin
        self.streamEntryId = streamEntryId
        self.sentAt = sentAt
        self.originalContext = originalContext
    }

    /// Compares ids, origins and entry ids.
    public static func == (lhs: RemoteHubEvent, rhs: RemoteHubEvent) -> Bool {
        lhs.id == rhs.id && lhs.origin == rhs.origin && lhs.streamEntryId == rhs.streamEntryId
    }
}

/// Turns payload data and context into JSON and back, for the bridges that carry Hub events
/// between processes.
///
/// Encodes `JSONValue`, `String`, `Bool`, `Int`, `Double`, arrays and dictionaries of them, and
/// any `Encodable` value. On the receiving side a value comes back as its own type when that
/// type was registered with ``register(_:)`` (and the built-in ones above), otherwise as
/// `JSONValue`.
public enum HubPayloadCodec {
    private static let decoders = Locked<[String: @Sendable (JSONValue) throws -> any Sendable]>([:])

    /// Decodes values published as `type` back into `type` (register the same types in every
    /// process, before events arrive).
    public static func register<T: Decodable & Sendable>(_ type: T.Type) {
        decoders.withLock {
            $0[typeName(T.self)] = { json in try JSONDecoder().decode(T.self, from: JSONEncoder().encode(json)) }
        }
    }

    private static let typeNames = Locked<[ObjectIdentifier: String]>([:])
    private static let stringType = String(reflecting: String.self)
    private static let boolType = String(reflecting: Bool.self)
    private static let intType = String(reflecting: Int.self)
    private static let doubleType = String(reflecting: Double.self)

    /// `String(reflecting:)` of `type`, remembered (it is slow to compute per event).
    package static func typeName(_ type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let known = typeNames.withLock({ $0[id] }) { return known }
        let name = String(reflecting: type)
        typeNames.withLock { $0[id] = name }
        return name
    }

    /// The JSON of `value` and its type's name, or why it cannot be encoded.
    package static func encode(_ value: (any Sendable)?) -> Result<(JSONValue, String)?, HubPayloadEncodingError> {
        guard let value else { return .success(nil) }
        let type = typeName(Swift.type(of: value))
        if let json = value as? JSONValue { return .success((json, type)) }
        if let text = value as? String { return .success((.string(text), type)) }
        if let flag = value as? Bool { return .success((.boolean(flag), type)) }
        if let number = value as? Int { return .success((.number(Double(number)), type)) }
        if let number = value as? Double { return .success((.number(number), type)) }
        if let encodable = value as? any Encodable {
            do {
                let data = try JSONEncoder().encode(encodable)
                return .success((try JSONDecoder().decode(JSONValue.self, from: data), type))
            } catch {
                return .failure(HubPayloadEncodingError(typeName: type, reason: "\(error)"))
            }
        }
        return .failure(HubPayloadEncodingError(typeName: type, reason: "it is not Encodable"))
    }

    /// `json` as the registered type called `type`, else as a built-in value, else as `JSONValue`.
    package static func decode(_ json: JSONValue?, type: String?) -> (any Sendable)? {
        guard let json else { return nil }
        if let type, let decoder = decoders.withLock({ $0[type] }), let value = try? decoder(json) { return value }
        switch (type, json) {
        case (stringType, .string(let text)): return text
        case (boolType, .boolean(let flag)): return flag
        case (intType, _): return json.intValue ?? json
        case (doubleType, .number(let number)): return number
        default: return json
        }
    }
}

/// A payload's data or context could not be encoded for a bridge; the event was delivered
/// locally only, and the bridge counted and logged it.
public struct HubPayloadEncodingError: Error, Sendable, Equatable {
    /// The value's type.
    public let typeName: String
    /// Why.
    public let reason: String
}

extension HubWireEvent {
    /// The wire event for `payload` on `channel`, sent by the bridge `origin` (numbered
    /// `sequence` when the bridge numbers its events), or why its data or context cannot cross.
    package static func encoding(channel: HubChannel, payload: HubPayload, origin: String, sequence: Int? = nil) -> Result<
        HubWireEvent, HubPayloadEncodingError
    > {
        let data: (JSONValue, String)?
        let context: (JSONValue, String)?
        do {
            data = try HubPayloadCodec.encode(payload.data).get()
            context = try HubPayloadCodec.encode(payload.context).get()
        } catch {
            return .failure(error)
        }
        return .success(
            HubWireEvent(
                v: version, id: UUID().uuidString, origin: origin, channel: channel.name, event: payload.eventName,
                time: Date().timeIntervalSince1970, dataType: data?.1, data: data?.0, contextType: context?.1, context: context?.0, seq: sequence))
    }

    /// The channel and payload a receiving bridge dispatches: data and context decoded as
    /// ``HubPayloadCodec`` can, the context a ``RemoteHubEvent``.
    package func remotePayload(streamEntryId: String? = nil) -> (HubChannel, HubPayload) {
        let remote = RemoteHubEvent(
            id: id, origin: origin, streamEntryId: streamEntryId, sentAt: Date(timeIntervalSince1970: time),
            originalContext: HubPayloadCodec.decode(context, type: contextType))
        return (HubChannel(name: channel), HubPayload(eventName: event, context: remote, data: HubPayloadCodec.decode(data, type: dataType)))
    }
}
