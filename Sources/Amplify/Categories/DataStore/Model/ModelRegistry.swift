import AmplifyConcurrency
import Foundation

/// The models a process knows by name: their types, schemas and decoders (amplify-swift's
/// `ModelRegistry`). `AmplifyModels().registerModels(registry: ModelRegistry.self)` fills it,
/// as `AWSAPIPlugin(modelRegistration:)` does. Safe from any thread.
public enum ModelRegistry {
    private struct Entry {
        let type: any Model.Type
        let schema: ModelSchema
        let decode: @Sendable (String, JSONDecoder?) throws -> any Model
    }

    private static let entries = Locked<[ModelName: Entry]>([:])

    /// The registered model types.
    public static var models: [any Model.Type] { entries.withLock { $0.values.map(\.type) } }

    /// The registered schemas.
    public static var modelSchemas: [ModelSchema] { entries.withLock { $0.values.map(\.schema) } }

    /// Registers `modelType` under its schema's name.
    public static func register(modelType: any Model.Type) {
        register(modelType: modelType, modelSchema: modelType.schema) { json, decoder in
            try modelType.from(json: json, decoder: decoder)
        }
    }

    /// Registers `modelType` with a schema and a decoder of its JSON.
    public static func register(
        modelType: any Model.Type, modelSchema: ModelSchema,
        jsonDecoder: @escaping @Sendable (String, JSONDecoder?) throws -> any Model
    ) {
        let entry = Entry(type: modelType, schema: modelSchema, decode: jsonDecoder)
        entries.withLock { $0[modelSchema.name] = entry }
    }

    /// The type registered as `name`.
    public static func modelType(from name: ModelName) -> (any Model.Type)? {
        entries.withLock { $0[name]?.type }
    }

    /// The schema registered as `name`.
    public static func modelSchema(from name: ModelName) -> ModelSchema? {
        entries.withLock { $0[name]?.schema }
    }

    /// The schema of `modelType`, if it is registered.
    public static func modelSchema(from modelType: any Model.Type) -> ModelSchema? {
        modelSchema(from: modelType.modelName)
    }

    /// A model of the type registered as `modelName`, decoded from JSON.
    /// - Throws: ``DataStoreError/decodingError(_:_:)`` when no model of that name is registered,
    ///   or what decoding throws.
    public static func decode(modelName: ModelName, from jsonString: String, jsonDecoder: JSONDecoder? = nil) throws -> any Model {
        guard let entry = entries.withLock({ $0[modelName] }) else {
            throw DataStoreError.decodingError(
                "No decoder found for model named \(modelName)",
                "Register the models with ModelRegistry.register(modelType:) (or AmplifyModels().registerModels) at startup.")
        }
        return try entry.decode(jsonString, jsonDecoder)
    }

    /// Forgets every model (for tests).
    package static func reset() {
        entries.withLock { $0 = [:] }
    }
}

extension Model {
    /// A model of this type decoded from JSON, dates in AppSync's formats.
    /// - Throws: `DecodingError` naming the field that did not decode.
    public static func from(json: String, decoder: JSONDecoder? = nil) throws -> Self {
        try (decoder ?? JSONDecoder(dateDecodingStrategy: ModelDateFormatting.decodingStrategy)).decode(Self.self, from: Data(json.utf8))
    }

    /// A model of this type decoded from a JSON object's dictionary.
    /// - Throws: what `JSONSerialization` or decoding throws.
    public static func from(dictionary: [String: Any]) throws -> Self {
        let data = try JSONSerialization.data(withJSONObject: dictionary)
        return try JSONDecoder(dateDecodingStrategy: ModelDateFormatting.decodingStrategy).decode(Self.self, from: data)
    }

    /// The model as JSON, keys sorted.
    /// - Throws: what encoding throws.
    public func toJSON(encoder: JSONEncoder? = nil) throws -> String {
        let encoder =
            encoder
            ?? {
                let encoder = JSONEncoder(dateEncodingStrategy: ModelDateFormatting.encodingStrategy)
                encoder.outputFormatting = .sortedKeys
                return encoder
            }()
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

/// How models' `Foundation.Date` values read and write: as `AWSDateTime` text.
public enum ModelDateFormatting {
    /// Reads an `AWSDateTime`.
    public static let decodingStrategy: JSONDecoder.DateDecodingStrategy = .custom { decoder in
        try Temporal.DateTime(from: decoder).foundationDate
    }

    /// Writes an `AWSDateTime` in UTC.
    public static let encodingStrategy: JSONEncoder.DateEncodingStrategy = .custom { date, encoder in
        try Temporal.DateTime(date, timeZone: .utc).encode(to: encoder)
    }
}

extension JSONDecoder {
    /// A decoder with a date strategy.
    public convenience init(dateDecodingStrategy: JSONDecoder.DateDecodingStrategy) {
        self.init()
        self.dateDecodingStrategy = dateDecodingStrategy
    }
}

extension JSONEncoder {
    /// An encoder with a date strategy.
    public convenience init(dateEncodingStrategy: JSONEncoder.DateEncodingStrategy) {
        self.init()
        self.dateEncodingStrategy = dateEncodingStrategy
    }
}
