import AWSPluginsCore
import Amplify
import Foundation

/// Whether an API speaks GraphQL (AppSync), REST (API Gateway) or AppSync Events.
public enum APIEndpointType: String, Sendable, Equatable {
    /// An AppSync GraphQL API.
    case graphQL = "GraphQL"
    /// An API Gateway REST API.
    case rest = "REST"
    /// An AppSync Events API (channels to publish and subscribe; see ``AppSyncEvents``). Its
    /// endpoint is the HTTP one, `https://<id>.appsync-api.<region>.amazonaws.com/event`.
    case events = "Events"
}

/// One API of the plugin's block: `api.plugins.awsAPIPlugin.<name>`.
public struct APIEndpointConfiguration: Sendable, Equatable {
    /// The API's name (its key in the block; it may contain spaces).
    public let name: String
    /// GraphQL or REST.
    public let endpointType: APIEndpointType
    /// The endpoint: AppSync's `…/graphql`, API Gateway's stage URL, AppSync Events' `…/event`.
    public let endpoint: URL
    /// The region (for SigV4); from `region`, or read from an AWS endpoint's host name.
    public let region: String?
    /// The default auth mode.
    public let authorizationType: AWSAuthorizationType
    /// The other modes the API accepts (`additionalAuthorizationTypes`).
    public let additionalAuthorizationTypes: [AWSAuthorizationType]
    /// The API key, for `API_KEY`.
    public let apiKey: String?
    /// The endpoint's path, query and `Host` value as a request to it is signed (read once).
    let target: RequestTarget?

    /// Reads the block of the API named `name`.
    /// - Throws: `ConfigurationValueError` whose key path starts with `name`.
    init(name: String, json: JSONValue) throws(ConfigurationValueError) {
        self.name = name
        guard let block = json.asObject else {
            throw ConfigurationValueError(keyPath: name, expected: "an object with endpointType, endpoint, region and authorizationType", found: json)
        }
        func path(_ key: String) -> String { "\(name).\(key)" }
        func string(_ key: String, required: Bool, expected: String) throws(ConfigurationValueError) -> String? {
            guard let value = block[key], !value.isNull else {
                if required { throw ConfigurationValueError(keyPath: path(key), expected: expected, found: nil) }
                return nil
            }
            guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigurationValueError(keyPath: path(key), expected: expected, found: value)
            }
            return text
        }
        let typeText = try string("endpointType", required: true, expected: "\"GraphQL\", \"REST\" or \"Events\"") ?? ""
        guard let type = APIEndpointType.allCases.first(where: { $0.rawValue.lowercased() == typeText.lowercased() }) else {
            throw ConfigurationValueError(keyPath: path("endpointType"), expected: "\"GraphQL\", \"REST\" or \"Events\"", found: .string(typeText))
        }
        endpointType = type
        let endpointText = try string("endpoint", required: true, expected: "an http or https URL") ?? ""
        guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationValueError(keyPath: path("endpoint"), expected: "an http or https URL", found: .string(endpointText))
        }
        endpoint = url
        target = RequestTarget(url)
        region = try string("region", required: false, expected: "a region such as us-east-1") ?? Self.region(inHost: host)
        let modes = AWSAuthorizationType.allCases.map(\.rawValue).joined(separator: ", ")
        let modeText = try string("authorizationType", required: true, expected: "one of \(modes)") ?? ""
        guard let mode = AWSAuthorizationType(rawValue: modeText) else {
            throw ConfigurationValueError(keyPath: path("authorizationType"), expected: "one of \(modes)", found: .string(modeText))
        }
        authorizationType = mode
        var additional: [AWSAuthorizationType] = []
        if let list = block["additionalAuthorizationTypes"], !list.isNull {
            // Amplify JS writes a comma-separated string; the translators make arrays of it.
            let items =
                list.asArray ?? list.stringValue.map { $0.split(separator: ",").map { JSONValue.string($0.trimmingCharacters(in: .whitespaces)) } }
            guard let items else {
                throw ConfigurationValueError(
                    keyPath: path("additionalAuthorizationTypes"), expected: "an array of auth modes (\(modes))", found: list)
            }
            for (index, item) in items.enumerated() {
                guard let text = item.stringValue, let extra = AWSAuthorizationType(rawValue: text) else {
                    throw ConfigurationValueError(keyPath: path("additionalAuthorizationTypes[\(index)]"), expected: "one of \(modes)", found: item)
                }
                if extra != mode, !additional.contains(extra) { additional.append(extra) }
            }
        }
        additionalAuthorizationTypes = additional
        apiKey = try string("apiKey", required: mode == .apiKey, expected: "the API key (authorizationType is API_KEY)")
        if mode == .awsIAM || additional.contains(.awsIAM), region == nil {
            throw ConfigurationValueError(keyPath: path("region"), expected: "a region such as us-east-1 (AWS_IAM signs with it)", found: nil)
        }
    }

    /// A configuration made in code (tests, servers that build their own).
    /// - Parameters:
    ///   - name: the API's name.
    ///   - endpointType: GraphQL or REST.
    ///   - endpoint: the endpoint URL.
    ///   - region: the region (for SigV4).
    ///   - authorizationType: the default auth mode.
    ///   - additionalAuthorizationTypes: the other modes.
    ///   - apiKey: the API key.
    public init(
        name: String, endpointType: APIEndpointType, endpoint: URL, region: String?, authorizationType: AWSAuthorizationType,
        additionalAuthorizationTypes: [AWSAuthorizationType] = [], apiKey: String? = nil
    ) {
        self.name = name
        self.endpointType = endpointType
        self.endpoint = endpoint
        target = RequestTarget(endpoint)
        self.region = region
        self.authorizationType = authorizationType
        self.additionalAuthorizationTypes = additionalAuthorizationTypes
        self.apiKey = apiKey
    }

    /// Every mode the API accepts: the default first.
    public var authorizationTypes: [AWSAuthorizationType] { [authorizationType] + additionalAuthorizationTypes }

    /// `us-east-1` from `x.appsync-api.us-east-1.amazonaws.com` or `x.execute-api.us-east-1.amazonaws.com`.
    static func region(inHost host: String) -> String? {
        let labels = host.lowercased().split(separator: ".")
        guard labels.count >= 4, labels.suffix(2) == ["amazonaws", "com"] || labels.suffix(3) == ["amazonaws", "com", "cn"],
            let service = labels.firstIndex(where: { $0 == "appsync-api" || $0 == "execute-api" }), service + 1 < labels.count
        else { return nil }
        return String(labels[service + 1])
    }

    /// The real-time endpoint: `wss://<id>.appsync-realtime-api.<region>.amazonaws.com/graphql` for
    /// an AppSync host, otherwise (a custom domain, a local stand-in) the endpoint with `/realtime`
    /// appended; `ws` for an `http` endpoint. An Events API always appends `/realtime`
    /// (`wss://<id>.appsync-realtime-api.<region>.amazonaws.com/event/realtime`).
    public var realtimeEndpoint: URL? {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme?.lowercased() == "http" ? "ws" : "wss"
        let isAppSyncHost = components.host?.contains(".appsync-api.") == true
        if isAppSyncHost, let host = components.host {
            components.host = host.replacingOccurrences(of: ".appsync-api.", with: ".appsync-realtime-api.")
        }
        if endpointType == .events || !isAppSyncHost {
            components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/realtime"
        }
        return components.url
    }
}

extension APIEndpointType: CaseIterable {}

/// The plugin's whole block: every API by name.
struct AWSAPIPluginConfiguration: Sendable {
    let endpoints: [String: APIEndpointConfiguration]
    /// The only GraphQL and the only REST API, when there is exactly one (a request without an
    /// apiName goes there), found once.
    private let onlyGraphQL: APIEndpointConfiguration?
    private let onlyREST: APIEndpointConfiguration?

    /// Reads `api.plugins.awsAPIPlugin`.
    /// - Throws: `ConfigurationValueError` (key paths inside the block), or `PluginError` when
    ///   there is no block or it is not an object of APIs.
    init(json: JSONValue?) throws {
        guard let json, let object = json.asObject, !object.isEmpty else {
            let found = json.map { "is \($0.typeDescription)" } ?? "is missing"
            throw PluginError.pluginConfigurationError(
                "`api.plugins.awsAPIPlugin` \(found); expected an object with one block per API.",
                "Write `\"api\": {\"plugins\": {\"awsAPIPlugin\": {\"<apiName>\": {\"endpointType\": \"GraphQL\", \"endpoint\": …, \"region\": …, \"authorizationType\": …}}}}`, as the Amplify CLI does."
            )
        }
        var endpoints: [String: APIEndpointConfiguration] = [:]
        for name in object.keys.sorted() {
            guard let block = object[name] else { continue }
            endpoints[name] = try APIEndpointConfiguration(name: name, json: block)
        }
        self.init(endpoints)
    }

    init(endpoints: [APIEndpointConfiguration]) {
        self.init(Dictionary(endpoints.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last }))
    }

    private init(_ endpoints: [String: APIEndpointConfiguration]) {
        self.endpoints = endpoints
        func only(_ type: APIEndpointType) -> APIEndpointConfiguration? {
            let candidates = endpoints.values.filter { $0.endpointType == type }
            return candidates.count == 1 ? candidates.first : nil
        }
        onlyGraphQL = only(.graphQL)
        onlyREST = only(.rest)
    }

    /// The API named `name`, or the only one of `type` when `name` is `nil`.
    /// - Throws: `APIError.invalidConfiguration` saying which APIs there are.
    func endpoint(named name: String?, type: APIEndpointType) throws -> APIEndpointConfiguration {
        if let name {
            guard let endpoint = endpoints[name] else {
                throw APIError.invalidConfiguration(
                    "There is no API named '\(name)'; the configuration names \(Self.list(endpoints.keys)).",
                    "Use one of those names as the request's apiName, or add the API to api.plugins.awsAPIPlugin.")
            }
            guard endpoint.endpointType == type else {
                throw APIError.invalidConfiguration(
                    "The API '\(name)' is a \(endpoint.endpointType.rawValue) API, not a \(type.rawValue) one.",
                    "Send \(endpoint.endpointType == .graphQL ? "GraphQL requests" : "REST requests") to it, or name a \(type.rawValue) API.")
            }
            return endpoint
        }
        if let only = type == .graphQL ? onlyGraphQL : onlyREST { return only }
        let candidates = endpoints.values.filter { $0.endpointType == type }
        guard candidates.count == 1, let only = candidates.first else {
            throw APIError.invalidConfiguration(
                candidates.isEmpty
                    ? "The configuration has no \(type.rawValue) API (it names \(Self.list(endpoints.keys)))."
                    : "The configuration has \(candidates.count) \(type.rawValue) APIs (\(Self.list(candidates.map(\.name)))) and the request names none.",
                "Set the request's apiName to the API to call.")
        }
        return only
    }

    private static func list(_ names: some Collection<String>) -> String {
        names.isEmpty ? "none" : names.sorted().map { "'\($0)'" }.joined(separator: ", ")
    }
}
