import AmplifyConcurrency

/// The models of a `hasMany` field, as generated models declare it (`List<Comment>?`): loaded
/// when they came with the parent or were built from an array, else loaded on ``fetch()``
/// through the API; paged with ``hasNextPage()`` and ``getNextPage()``.
///
/// A class, as in amplify-swift, whose state a lock guards: safe from any task.
public final class List<ModelType: Model>: Collection, Codable, ExpressibleByArrayLiteral, ModelListMarker, Sendable {
    public typealias Index = Int
    public typealias Element = ModelType

    let listProvider: AnyModelListProvider<ModelType>
    private let loaded: Locked<[ModelType]?>

    /// A list its provider loads and pages.
    public init(listProvider: AnyModelListProvider<ModelType>) {
        self.listProvider = listProvider
        switch listProvider.getState() {
        case .loaded(let elements): loaded = Locked(elements)
        case .notLoaded: loaded = Locked(nil)
        }
    }

    /// A loaded list of `elements`.
    public convenience init(elements: [Element]) {
        self.init(listProvider: ArrayLiteralListProvider(elements: elements).eraseToAnyModelListProvider())
    }

    /// A loaded list of `elements`.
    public convenience init(arrayLiteral elements: Element...) {
        self.init(elements: elements)
    }

    /// Whether the models are here.
    public var isLoaded: Bool { loaded.withLock { $0 != nil } }

    /// The models; empty until the list is loaded (call ``fetch()`` first).
    public var elements: [Element] { loaded.withLock { $0 ?? [] } }

    public var startIndex: Index { 0 }
    public var endIndex: Index { elements.count }
    public func index(after index: Index) -> Index { index + 1 }
    public subscript(position: Int) -> Element { elements[position] }
    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }
    public var count: Int { elements.count }

    /// Loads the models if they are not here.
    /// - Throws: the provider's error when they cannot load.
    public func fetch() async throws {
        guard !isLoaded else { return }
        let elements = try await listProvider.load()
        loaded.withLock { if $0 == nil { $0 = elements } }
    }

    /// Whether another page follows (`false` until loaded).
    public func hasNextPage() -> Bool {
        isLoaded && listProvider.hasNextPage()
    }

    /// The next page.
    /// - Throws: ``CoreError/listOperation(_:_:_:)`` when the list is not loaded, or the
    ///   provider's error (there is no next page, the request failed).
    public func getNextPage() async throws -> List<Element> {
        guard isLoaded else {
            throw CoreError.listOperation("The list is not loaded.", "Call fetch() before getNextPage().")
        }
        return try await listProvider.getNextPage()
    }

    /// Decodes with the first registered list decoder that knows the data; else an array of
    /// models, or AppSync's `{items, nextToken}` object.
    /// - Throws: `DecodingError` naming what did not decode.
    public convenience init(from decoder: any Decoder) throws {
        for listDecoder in ModelListDecoderRegistry.listDecoders {
            if let provider = listDecoder.decode(modelType: ModelType.self, decoder: decoder) {
                self.init(listProvider: provider)
                return
            }
        }
        if let connection = try? decoder.container(keyedBy: ConnectionKeys.self), connection.contains(.items) {
            let elements = try connection.decodeIfPresent([Element].self, forKey: .items) ?? []
            let nextToken = try connection.decodeIfPresent(String.self, forKey: .nextToken)
            self.init(listProvider: ConnectionPageProvider(elements: elements, nextToken: nextToken).eraseToAnyModelListProvider())
            return
        }
        let container = try decoder.singleValueContainer()
        self.init(elements: container.decodeNil() ? [] : try container.decode([Element].self))
    }

    private enum ConnectionKeys: String, CodingKey { case items, nextToken }

    /// The token of the next page, when the list came from a service that has one.
    public var nextToken: String? {
        (listProvider.base as? ConnectionPageProvider<ModelType>)?.nextToken
    }

    /// Lets ``getNextPage()`` fetch the page after a connection's `nextToken` (the API plugin
    /// gives each list it decodes the request to repeat).
    package func attachPaging(_ pager: any ModelListPager) {
        (listProvider.base as? ConnectionPageProvider<ModelType>)?.pager.withLock { $0 = pager }
    }

    /// Writes the list through its provider.
    /// - Throws: what encoding throws.
    public func encode(to encoder: any Encoder) throws {
        try listProvider.encode(to: encoder)
    }
}

/// A list whose next page a plugin can be told how to fetch.
package protocol PageableModelList {
    /// Lets the list fetch the page after its `nextToken` with `pager`.
    func attachPaging(_ pager: any ModelListPager)
}

extension List: PageableModelList {}
