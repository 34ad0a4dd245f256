import AWSPluginsCore
import Amplify
import Foundation

/// The S3 calls the plugin makes, over ``AWSRESTClient`` (signed, retried, errors mapped).
package struct S3Operations: Sendable {
    let client: AWSRESTClient
    let addressing: S3Addressing

    /// One uploaded part.
    struct Part: Sendable {
        let number: Int
        let eTag: String
    }

    func putObject(_ key: String, body: HTTPBody, headers: [(name: String, value: String)], progress: @escaping @Sendable (Int64, Int64) -> Void)
        async throws
    {
        var request = AWSRESTRequest(method: "PUT", path: addressing.objectPath(key), headers: headers, body: body)
        request.uploadProgress = progress
        _ = try await client.send(request)
    }

    func createMultipartUpload(_ key: String, headers: [(name: String, value: String)]) async throws -> String {
        let answer = try await client.sendForXML(
            AWSRESTRequest(method: "POST", path: addressing.objectPath(key), query: [("uploads", "")], headers: headers))
        guard let uploadId = answer.text(of: "UploadId"), !uploadId.isEmpty else {
            throw AWSPluginsError(code: "InvalidResponse", "CreateMultipartUpload answered without an UploadId.", "Check the endpoint.")
        }
        return uploadId
    }

    func uploadPart(_ key: String, uploadId: String, number: Int, body: HTTPBody, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws
        -> Part
    {
        var request = AWSRESTRequest(
            method: "PUT", path: addressing.objectPath(key), query: [("partNumber", String(number)), ("uploadId", uploadId)], body: body)
        request.uploadProgress = progress
        let response = try await client.send(request)
        guard let eTag = response.header("ETag") else {
            throw AWSPluginsError(code: "InvalidResponse", "UploadPart \(number) answered without an ETag.", "Check the endpoint.")
        }
        return Part(number: number, eTag: eTag)
    }

    func completeMultipartUpload(_ key: String, uploadId: String, parts: [Part]) async throws {
        let items = parts.sorted { $0.number < $1.number }.map {
            "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.escape($0.eTag))</ETag></Part>"
        }.joined()
        let body = Array("<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(items)</CompleteMultipartUpload>".utf8)
        _ = try await client.sendForXML(
            AWSRESTRequest(
                method: "POST", path: addressing.objectPath(key), query: [("uploadId", uploadId)],
                headers: [("Content-Type", "application/xml")], body: .bytes(body)))
    }

    func abortMultipartUpload(_ key: String, uploadId: String) async {
        _ = try? await client.send(AWSRESTRequest(method: "DELETE", path: addressing.objectPath(key), query: [("uploadId", uploadId)]))
    }

    /// The object's size, or `nil` when there is none (`HEAD` answers 404).
    func headObject(_ key: String) async throws -> Int64? {
        do {
            let response = try await client.send(AWSRESTRequest(method: "HEAD", path: addressing.objectPath(key)))
            return response.header("Content-Length").flatMap { Int64($0) }
        } catch let error as AWSPluginsError where error.httpStatus == 404 {
            return nil
        }
    }

    func getObject(_ key: String, range: StorageByteRange?, toFile file: String?, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws
        -> [UInt8]
    {
        var request = AWSRESTRequest(
            method: "GET", path: addressing.objectPath(key), headers: range.map { [("Range", $0.headerValue)] } ?? [], responseFile: file)
        request.downloadProgress = progress
        return try await client.send(request).body
    }

    func deleteObject(_ key: String) async throws {
        _ = try await client.send(AWSRESTRequest(method: "DELETE", path: addressing.objectPath(key)))
    }

    /// One page of a ListObjectsV2 answer.
    package struct Listing {
        package var items: [StorageListResult.Item]
        package var commonPrefixes: [String]
        package var nextToken: String?
    }

    func listObjects(prefix: String, delimiter: String?, maxKeys: Int, continuationToken: String?) async throws -> Listing {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys))]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        return Self.listing(from: try await client.sendForXML(AWSRESTRequest(method: "GET", path: addressing.bucketPath, query: query)))
    }

    /// Reads a ListObjectsV2 answer (`<ListBucketResult>`): its objects, common prefixes and
    /// continuation token. Entries without a key are skipped; nothing in it can fail.
    package static func listing(from answer: XMLElementTree) -> Listing {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let items = answer.children(named: "Contents").compactMap { entry -> StorageListResult.Item? in
            guard let key = entry.text(of: "Key") else { return nil }
            let modified = entry.text(of: "LastModified")
            return StorageListResult.Item(
                path: key, size: entry.text(of: "Size").flatMap { Int($0) }, eTag: entry.text(of: "ETag"),
                lastModified: modified.flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) })
        }
        let truncated = answer.text(of: "IsTruncated") == "true"
        return Listing(
            items: items, commonPrefixes: answer.children(named: "CommonPrefixes").compactMap { $0.text(of: "Prefix") },
            nextToken: truncated ? answer.text(of: "NextContinuationToken") : nil)
    }

    func presigned(_ key: String, method: String, expires: Int) async throws -> URL {
        try await client.presignedURL(method: method, path: addressing.objectPath(key), expires: expires)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
