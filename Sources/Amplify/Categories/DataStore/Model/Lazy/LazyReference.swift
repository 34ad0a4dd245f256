import AmplifyConcurrency

/// One field of a lazily loaded model's key.
public struct LazyReferenceIdentifier: Codable, Sendable, Equatable {
    /// The field's name.
    public let name: String
    /// Its value.
    public let value: String

    /// An identifier field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension [LazyReferenceIdentifier] {
    /// The identifier's text, as ``ModelIdentifierProtocol/stringValue`` writes it.
    public var stringValue: String {
        LazyReferenceModelIdentifier(fields: map { (name: $0.name, value: $0.value) }).stringValue
    }
}

struct LazyReferenceModelIdentifier: ModelIdentifierProtocol {
    var fields: [(name: String, value: any Persistable)]
}

/// What a lazily loaded reference holds, for encoders that need it.
public enum _LazyReferenceValueState {  // swift-format-ignore: AlwaysUseLowerCamelCase
    /// Not loaded: the referenced model's key.
    case notLoaded(identifiers: [LazyReferenceIdentifier]?)
    /// Loaded.
    case loaded(model: (any Model)?)
}

/// A lazily loaded reference's state, for encoders that need it.
public protocol _LazyReferenceValue {  // swift-format-ignore: AlwaysUseLowerCamelCase
    /// The state.
    var _state: _LazyReferenceValueState { get }
}

/// The model a `belongsTo` or `hasOne` field refers to, as generated models with lazy loading
/// declare it (`var _post: LazyReference<Post>`): loaded when it came with the data, else its
/// key, loaded through the API on ``get()``.
///
/// A class, as in amplify-swift, whose state a lock guards: safe from any task.
public final class LazyReference<ModelType: Model>: Codable, _LazyReferenceValue, Sendable {
    private enum State {
        case notLoaded(identifiers: [LazyReferenceIdentifier]?)
        case loaded(ModelType?)
    }

    let modelProvider: AnyModelProvider<ModelType>
    private let state: Locked<State>

    /// A reference its provider loads.
    public init(modelProvider: AnyModelProvider<ModelType>) {
        self.modelProvider = modelProvider
        switch modelProvider.getState() {
        case .loaded(let model): state = Locked(.loaded(model))
        case .notLoaded(let identifiers): state = Locked(.notLoaded(identifiers: identifiers))
        }
    }

    /// A loaded reference to `reference` (or to nothing).
    public convenience init(_ reference: ModelType?) {
        self.init(modelProvider: DefaultModelProvider(element: reference).eraseToAnyModelProvider())
    }

    /// A reference to the model with these key fields, not loaded.
    public convenience init(identifiers: [LazyReferenceIdentifier]?) {
        self.init(modelProvider: DefaultModelProvider<ModelType>(identifiers: identifiers).eraseToAnyModelProvider())
    }

    public var _state: _LazyReferenceValueState {
        switch state.withLock({ $0 }) {
        case .notLoaded(let identifiers): .notLoaded(identifiers: identifiers)
        case .loaded(let model): .loaded(model: model)
        }
    }

    /// The model, loading it the first time.
    /// - Throws: the provider's error when it cannot load.
    public func get() async throws -> ModelType? {
        if case .loaded(let model) = state.withLock({ $0 }) { return model }
        let model = try await modelProvider.load()
        state.withLock { $0 = .loaded(model) }
        return model
    }

    /// The model, which must exist.
    /// - Throws: ``CoreError/clientValidation(_:_:_:)`` when there is none, or the provider's error.
    public func require() async throws -> ModelType {
        guard let model = try await get() else {
            throw CoreError.clientValidation(
                "The \(ModelType.modelName) this reference points to does not exist.", "Use get() where the reference may be empty.")
        }
        return model
    }

    /// Decodes with the first registered decoder that knows the data; else the whole model when
    /// the object is one, or its key when it holds only that.
    /// - Throws: `DecodingError` when the object is neither.
    public convenience init(from decoder: any Decoder) throws {
        for modelDecoder in ModelProviderRegistry.decoders.value {
            if let provider = modelDecoder.decode(modelType: ModelType.self, decoder: decoder) {
                self.init(modelProvider: provider)
                return
            }
        }
        if let container = try? decoder.singleValueContainer(), container.decodeNil() {
            self.init(identifiers: nil)
            return
        }
        // The key alone (`post { id __typename }`): no attempt at the whole model, whose failure
        // would cost an error per reference.
        if let identifiers = Self.keyOnlyIdentifiers(in: decoder) {
            self.init(identifiers: identifiers)
            return
        }
        do {
            self.init(try ModelType(from: decoder))
        } catch {
            guard let container = try? decoder.container(keyedBy: AnyCodingKey.self), let identifiers = Self.keyIdentifiers(in: container) else {
                throw error
            }
            self.init(identifiers: identifiers)
        }
    }

    /// The key of the model `decoder` holds when the object has nothing but its key fields (and
    /// `__typename`); `nil` otherwise.
    package static func keyOnlyIdentifiers(in decoder: any Decoder) -> [LazyReferenceIdentifier]? {
        guard let container = try? decoder.container(keyedBy: AnyCodingKey.self) else { return nil }
        let keyFields = ModelType.schema.primaryKey.fields
        let present = container.allKeys
        guard !keyFields.isEmpty, present.count <= keyFields.count + 1,
            present.allSatisfy({ key in key.stringValue == "__typename" || keyFields.contains { $0.name == key.stringValue } })
        else { return nil }
        return keyIdentifiers(in: container)
    }

    /// The values of the model's key fields in an object, as text.
    private static func keyIdentifiers(in container: KeyedDecodingContainer<AnyCodingKey>) -> [LazyReferenceIdentifier]? {
        var identifiers: [LazyReferenceIdentifier] = []
        for field in ModelType.schema.primaryKey.fields {
            let key = AnyCodingKey(field.name)
            if let text = try? container.decode(String.self, forKey: key) {
                identifiers.append(LazyReferenceIdentifier(name: field.name, value: text))
            } else if let number = try? container.decode(Int.self, forKey: key) {
                identifiers.append(LazyReferenceIdentifier(name: field.name, value: String(number)))
            } else {
                return nil
            }
        }
        return identifiers.isEmpty ? nil : identifiers
    }

    /// Writes the model, or the key when it is not loaded.
    /// - Throws: what encoding throws.
    public func encode(to encoder: any Encoder) throws {
        switch state.withLock({ $0 }) {
        case .loaded(let model): try model.encode(to: encoder)
        case .notLoaded: try modelProvider.encode(to: encoder)
        }
    }
}

/// Whether a reference's model is here, or its key.
public enum ModelProviderState<Element: Model>: Sendable {
    /// Not loaded: the model's key.
    case notLoaded(identifiers: [LazyReferenceIdentifier]?)
    /// Loaded.
    case loaded(model: Element?)
}

/// What loads a ``LazyReference``. Its methods may be called from any task.
public protocol ModelProvider: Sendable {
    /// The model's type.
    associatedtype Element: Model
    /// The model, loading it.
    /// - Throws: the plugin's error when it cannot load.
    func load() async throws -> Element?
    /// Whether the model is here.
    func getState() -> ModelProviderState<Element>
    /// Writes the reference.
    /// - Throws: what encoding throws.
    func encode(to encoder: any Encoder) throws
}

/// Any ``ModelProvider`` of `Element`.
public struct AnyModelProvider<Element: Model>: ModelProvider {
    private let loader: @Sendable () async throws -> Element?
    private let state: @Sendable () -> ModelProviderState<Element>
    private let encoder: @Sendable (any Encoder) throws -> Void

    /// `provider`, its type erased.
    public init<Provider: ModelProvider>(provider: Provider) where Provider.Element == Element {
        loader = { try await provider.load() }
        state = { provider.getState() }
        encoder = { try provider.encode(to: $0) }
    }

    public func load() async throws -> Element? { try await loader() }
    public func getState() -> ModelProviderState<Element> { state() }
    public func encode(to encoder: any Encoder) throws { try self.encoder(encoder) }
}

extension ModelProvider {
    /// This provider, its type erased.
    public func eraseToAnyModelProvider() -> AnyModelProvider<Element> {
        AnyModelProvider(provider: self)
    }
}

/// The provider of a reference built in code: loaded, or a key nothing can load (`nil`).
public struct DefaultModelProvider<Element: Model>: ModelProvider {
    let loadedState: ModelProviderState<Element>

    /// A loaded reference to `element`.
    public init(element: Element? = nil) {
        loadedState = .loaded(model: element)
    }

    /// A reference to the model with these key fields.
    public init(identifiers: [LazyReferenceIdentifier]?) {
        loadedState = .notLoaded(identifiers: identifiers)
    }

    public func load() async throws -> Element? {
        if case .loaded(let model) = loadedState { return model }
        return nil
    }

    public func getState() -> ModelProviderState<Element> { loadedState }

    public func encode(to encoder: any Encoder) throws {
        switch loadedState {
        case .notLoaded(let identifiers):
            var container = encoder.singleValueContainer()
            try container.encode(identifiers)
        case .loaded(let element):
            try element.encode(to: encoder)
        }
    }
}

/// Decodes the references of one source (the API plugin registers AppSync's).
public protocol ModelProviderDecoder: SendableMetatype {
    /// A provider of the reference `decoder` holds, or `nil` when it is not this decoder's kind.
    static func decode<ModelType: Model>(modelType: ModelType.Type, decoder: any Decoder) -> AnyModelProvider<ModelType>?
}

/// The reference decoders plugins registered, asked in order when a `LazyReference` decodes.
public enum ModelProviderRegistry {
    static let decoders = Locked<[any ModelProviderDecoder.Type]>([])

    /// Registers `decoder` (once; registering it again does nothing).
    public static func registerDecoder(_ decoder: any ModelProviderDecoder.Type) {
        decoders.withLock { list in
            if !list.contains(where: { $0 == decoder }) { list.append(decoder) }
        }
    }

    /// Where a provider's data came from.
    public enum DecoderSource {
        /// DataStore.
        public static let dataStore = "DataStore"
        /// AppSync.
        public static let appSync = "AppSync"
    }
}

/// A coding key of any name.
package struct AnyCodingKey: CodingKey {
    package let stringValue: String
    package var intValue: Int? { nil }

    package init(_ name: String) { stringValue = name }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
