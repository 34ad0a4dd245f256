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
    private let state: @Sendable () -> ModelListProviderState<Element>
    private let loader: @Sendable () async throws -> [Element]
    private let hasNext: @Sendable () -> Bool
    private let nextPage: @Sendable () async throws -> List<Element>
    private let encoder: @Sendable (any Encoder) throws -> Void

    /// `provider`, its type erased.
    public init<Provider: ModelListProvider>(provider: Provider) where Provider.Element == Element {
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
