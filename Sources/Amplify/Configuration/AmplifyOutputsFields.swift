/// Reads the members of one object of an `amplify_outputs.json` by their snake_case names, as
/// the file spells them, or by their camelCase names when the caller decodes with
/// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` (amplify-swift's way, which renames the
/// file's keys before any type sees them). A missing required member is reported under its
/// snake_case name, the one the file should have.
struct AmplifyOutputsFields<Keys: CodingKey> {
    private let container: KeyedDecodingContainer<AnyKey>

    /// The object `decoder` holds.
    /// - Throws: `DecodingError.typeMismatch` when it is not an object.
    init(_ decoder: any Decoder, _ keys: Keys.Type) throws {
        container = try decoder.container(keyedBy: AnyKey.self)
    }

    /// The member `key`, which must be there.
    /// - Throws: `DecodingError.keyNotFound` naming the snake_case key, or the member's own error.
    func required<T: Decodable>(_ key: Keys) throws -> T {
        try container.decode(T.self, forKey: present(key) ?? AnyKey(key.stringValue))
    }

    /// The member `key`, or `nil` when it is missing or `null`.
    /// - Throws: the member's own `DecodingError` when it is there but of the wrong type.
    func optional<T: Decodable>(_ key: Keys) throws -> T? {
        guard let name = present(key) else { return nil }
        return try container.decodeIfPresent(T.self, forKey: name)
    }

    /// The spelling of `key` the object has: snake_case first, then camelCase.
    private func present(_ key: Keys) -> AnyKey? {
        let snake = AnyKey(key.stringValue)
        if container.contains(snake) { return snake }
        let camel = AnyKey(Self.camelCase(key.stringValue))
        return container.contains(camel) ? camel : nil
    }

    /// `user_pool_id` → `userPoolId`, as `convertFromSnakeCase` renames it.
    static func camelCase(_ snake: String) -> String {
        let parts = snake.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = parts.first, parts.count > 1 else { return snake }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    }

    /// Any member name.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
