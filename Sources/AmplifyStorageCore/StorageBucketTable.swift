import Amplify

/// The buckets a Storage plugin's block names (`"buckets": [{"name", "bucket_name", "aws_region",
/// "paths"}]`, as the Gen 2 `storage.buckets` section is carried into it), and how a call's
/// `StorageBucket` resolves against them. Both Storage plugins of this package use it; a plugin
/// of your own can too.
public struct StorageBucketTable: Sendable, Equatable {
    /// One bucket.
    public struct Entry: Sendable, Equatable {
        /// Its name in the backend (`.fromOutputs(name:)`), or the S3 name for a bucket given by
        /// `BucketInfo`.
        public let name: String
        /// The S3 bucket.
        public let bucketName: String
        /// Its region.
        public let region: String
        /// Its Gen 2 access rules (empty: none are enforced).
        public let rules: StorageAccessRules

        /// An entry.
        public init(name: String, bucketName: String, region: String, rules: StorageAccessRules = StorageAccessRules()) {
            self.name = name
            self.bucketName = bucketName
            self.region = region
            self.rules = rules
        }
    }

    /// The buckets, by name, in the block's order.
    public let entries: [Entry]

    /// No named buckets.
    public init() {
        entries = []
    }

    /// Reads `buckets` from a plugin's block (absent: none).
    /// - Throws: `ConfigurationValueError` naming the entry that is not an object with the three
    ///   strings, or whose `paths` is not an object of objects of string arrays.
    public init(json: JSONValue?) throws(ConfigurationValueError) {
        guard let list = json?["buckets"], !list.isNull else {
            entries = []
            return
        }
        guard let items = list.asArray else {
            throw ConfigurationValueError(keyPath: "buckets", expected: "an array of {name, bucket_name, aws_region} objects", found: list)
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            func string(_ key: String) throws(ConfigurationValueError) -> String {
                guard let value = item[key]?.stringValue, !value.isEmpty else {
                    throw ConfigurationValueError(keyPath: "buckets[\(index)].\(key)", expected: "a non-empty string", found: item[key])
                }
                return value
            }
            let rules = try StorageAccessRules(json: item["paths"], keyPath: "buckets[\(index)].paths")
            entries.append(Entry(name: try string("name"), bucketName: try string("bucket_name"), region: try string("aws_region"), rules: rules))
        }
        self.entries = entries
    }

    /// The entry a call's `bucket` stands for: `nil` for no bucket (the plugin's default); the
    /// named entry for `.fromOutputs(name:)`; for `.fromBucketInfo`, the entry of that S3 bucket
    /// when the block names it (its rules apply), else one made from the info.
    /// - Throws: `StorageError.validation(_:_:_:_:)` for a name the block does not have, naming
    ///   the names it has.
    public func resolve(_ bucket: (any StorageBucket)?) throws -> Entry? {
        switch bucket {
        case nil:
            return nil
        case let outputs as OutputsStorageBucket:
            if let entry = entries.first(where: { $0.name == outputs.name }) { return entry }
            let known = entries.isEmpty ? "the configuration names no buckets" : "its buckets are \(entries.map(\.name).joined(separator: ", "))"
            throw StorageError.validation(
                "bucket", "No bucket named '\(outputs.name)' is in the Storage configuration; \(known).",
                "Use a name from `storage.buckets` in amplify_outputs.json, or .fromBucketInfo(BucketInfo(bucketName:region:)).")
        case let resolved as ResolvedStorageBucket:
            let info = resolved.bucketInfo
            if let entry = entries.first(where: { $0.bucketName == info.bucketName && $0.region == info.region }) { return entry }
            return Entry(name: info.bucketName, bucketName: info.bucketName, region: info.region)
        case let other?:
            throw StorageError.validation(
                "bucket", "\(type(of: other)) is not a bucket this plugin knows.", "Use .fromOutputs(name:) or .fromBucketInfo(_:).")
        }
    }
}
