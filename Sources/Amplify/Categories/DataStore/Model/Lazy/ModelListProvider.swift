import AmplifyConcurrency

/// Marks `List` for code that needs to know a value is a list of models.
public protocol ModelListMarker {}

/// Whether a list's models are here, or how to load them.
public enum ModelListProviderState<Element: Model>: Sendable {
    /// Not loaded: the parent's key values and the fields on `Element` that hold them.
    case notLoaded(associatedIdentifiers: [String], associatedFields: [String])
    /// Loaded.
    case loaded([Element])
}

/// What loads and pages a ``List``: the API plugin's provider for lists that come from AppSync,
/// an array for lists built in code. Its methods may be called from any task.
public protocol ModelListProvider: Sendable {
    /// The models' type.
    associatedtype Element: Model
    /// Whether the models are here.
    func getState() -> ModelListProviderState<Element>
    /// The list's models, loading them.
    /// - Throws: ``CoreError/listOperation(_:_:_:)`` or the plugin's error when they cannot load.
    func load() async throws -> [Element]
    /// Whether another page follows.
    func hasNextPage() -> Bool
    /// The next page.
    /// - Throws: ``CoreError/listOperation(_:_:_:)`` when there is none, or the plugin's error.
    func getNextPage() async throws -> List<Element>
    /// Writes the list.
    /// - Throws: what encoding throws.
    func encode(to encoder: any Encoder) throws
}

/// Any ``ModelListProvider`` of `Element`.
public struct AnyModelListProvider<Element: Model>: ModelListProvider {
    /// The provider erased.
    let base: any Sendable
    private let state: @Sendable () -> ModelListProviderState<Element>
    private let loader: @Sendable () async throws -> [Element]
    private let hasNext: @Sendable () -> Bool
    private let nextPage: @Sendable () async throws -> List<Element>
    private let encoder: @Sendable (any Encoder) throws -> Void

    /// `provider`, its type erased.
    public init<Provider: ModelListProvider>(provider: Provider) where Provider.Element == Element {
        base = provider
        state = { provider.getState() }
        loader = { try await provider.load() }
        hasNext = { provider.hasNextPage() }
        nextPage = { try await provider.getNextPage() }
        encoder = { try provider.encode(to: $0) }
    }

    public func getState() -> ModelListProviderState<Element> { state() }
    public func load() async throws -> [Element] { try await loader() }
    public func hasNextPage() -> Bool { hasNext() }
    public func getNextPage() async throws -> List<Element> { try await nextPage() }
    public func encode(to encoder: any Encoder) throws { try self.encoder(encoder) }
}

extension ModelListProvider {
    /// This provider, its type erased.
    public func eraseToAnyModelListProvider() -> AnyModelListProvider<Element> {
        AnyModelListProvider(provider: self)
    }
}

/// The provider of a list built from an array: loaded, one page.
public struct ArrayLiteralListProvider<Element: Model>: ModelListProvider {
    let elements: [Element]

    /// A provider of `elements`.
    public init(elements: [Element]) {
        self.elements = elements
    }

    public func getState() -> ModelListProviderState<Element> { .loaded(elements) }
    public func load() async throws -> [Element] { elements }
    public func hasNextPage() -> Bool { false }

    public func getNextPage() async throws -> List<Element> {
        throw CoreError.clientValidation("A list built from an array has no next page.", "Check hasNextPage() before getNextPage().")
    }

    public func encode(to encoder: any Encoder) throws {
        try elements.encode(to: encoder)
    }
}

/// Decodes the lists of one source (the API plugin registers AppSync's): returns a provider when
/// the data is of its kind, `nil` otherwise.
public protocol ModelListDecoder: SendableMetatype {
    /// A provider of the list `decoder` holds, or `nil` when it is not this decoder's kind.
    static func decode<ModelType: Model>(modelType: ModelType.Type, decoder: any Decoder) -> AnyModelListProvider<ModelType>?
}

/// The list decoders plugins registered, asked in order when a `List` decodes.
public enum ModelListDecoderRegistry {
    static let decoders = Locked<[any ModelListDecoder.Type]>([])

    /// The registered decoders.
    public static var listDecoders: [any ModelListDecoder.Type] { decoders.value }

    /// Registers `listDecoder` (once; registering it again does nothing).
    public static func registerDecoder(_ listDecoder: any ModelListDecoder.Type) {
        decoders.withLock { list in
            if !list.contains(where: { $0 == listDecoder }) { list.append(listDecoder) }
        }
    }
}

/// Fetches the page of a list after a `nextToken`: the API plugin's, for lists it decoded.
package protocol ModelListPager: Sendable {
    /// The page of `M` after `nextToken`.
    /// - Throws: the API's error.
    func nextPage<M: Model>(of type: M.Type, after nextToken: String) async throws -> List<M>
}

/// The provider of a page of an AppSync connection (`{items, nextToken}`): loaded; the next page
/// comes from the pager the API plugin attached, when the service said there is one.
final class ConnectionPageProvider<Element: Model>: ModelListProvider {
    let elements: [Element]
    let nextToken: String?
    let pager = Locked<(any ModelListPager)?>(nil)

    init(elements: [Element], nextToken: String?) {
        self.elements = elements
        self.nextToken = nextToken
    }

    func getState() -> ModelListProviderState<Element> { .loaded(elements) }
    func load() async throws -> [Element] { elements }
    func hasNextPage() -> Bool { nextToken != nil }

    func getNextPage() async throws -> List<Element> {
        guard let nextToken else {
            throw CoreError.clientValidation("The list has no next page.", "Check hasNextPage() before getNextPage().")
        }
        guard let pager = pager.value else {
            throw CoreError.listOperation(
                "The list was not decoded from an Amplify.API response, so there is no request to fetch its next page with.",
                "Query the next page with GraphQLRequest.list(_:where:limit:nextToken:) and this list's nextToken.")
        }
        return try await pager.nextPage(of: Element.self, after: nextToken)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(elements, forKey: .items)
        try container.encode(nextToken, forKey: .nextToken)
    }

    private enum Keys: String, CodingKey { case items, nextToken }
}
