/// A bucket a Storage call acts on, given in its options (`bucket: .fromOutputs(name: "photos")`);
/// without one, a call uses the plugin's default bucket.
public protocol StorageBucket: Sendable {}

/// A bucket given by its S3 name and region.
public struct BucketInfo: Hashable, Sendable {
    /// The S3 bucket's name.
    public let bucketName: String
    /// Its region.
    public let region: String

    /// The bucket `bucketName` in `region`.
    public init(bucketName: String, region: String) {
        self.bucketName = bucketName
        self.region = region
    }
}

extension StorageBucket where Self == OutputsStorageBucket {
    /// The bucket named `name` in the `storage.buckets` of `amplify_outputs.json`.
    public static func fromOutputs(name: String) -> OutputsStorageBucket { OutputsStorageBucket(name: name) }
}

extension StorageBucket where Self == ResolvedStorageBucket {
    /// The bucket `bucketInfo` describes.
    public static func fromBucketInfo(_ bucketInfo: BucketInfo) -> ResolvedStorageBucket { ResolvedStorageBucket(bucketInfo: bucketInfo) }
}

/// A bucket named in `amplify_outputs.json` (`storage.buckets[].name`).
public struct OutputsStorageBucket: StorageBucket, Hashable {
    /// The bucket's name in the backend.
    public let name: String
}

/// A bucket given by its S3 name and region.
public struct ResolvedStorageBucket: StorageBucket, Hashable {
    /// The bucket.
    public let bucketInfo: BucketInfo
}

/// The method a presigned URL is for: download (`GET`) or upload (`PUT`).
public enum StorageAccessMethod: Sendable, Equatable {
    /// A URL to download the object.
    case get
    /// A URL to upload (replace) the object.
    case put
}

/// `getURL` options both Storage plugins of this package understand, given as
/// `StorageGetURLRequest.Options(pluginOptions:)`; amplify-swift's name and fields.
public struct AWSStorageGetURLOptions: Sendable, Equatable {
    /// Whether `getURL` first checks that the object exists and throws
    /// `StorageError.keyNotFound` when it does not (one more request on S3). `false` by default,
    /// as in amplify-swift; it does not apply to `.put` URLs.
    public var validateObjectExistence: Bool
    /// What the URL is for: `.get` (the default) or `.put` (a presigned upload).
    public var method: StorageAccessMethod

    /// Options.
    public init(validateObjectExistence: Bool = false, method: StorageAccessMethod = .get) {
        self.validateObjectExistence = validateObjectExistence
        self.method = method
    }

    /// Options that only check the object exists.
    public init(validateObjectExistence: Bool) {
        self.init(validateObjectExistence: validateObjectExistence, method: .get)
    }
}
