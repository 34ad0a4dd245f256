import Amplify
import Foundation

/// Checks an object key before it touches the file system, on the bytes the file system sees.
///
/// A key is split on the byte `/` (0x2F), never on `Character`s: `"../\u{0301}x"` is one
/// `Character` sequence in which `/` and the combining mark form a single grapheme, but the
/// kernel sees `..`, `/`, `\u{0301}x`. Each segment is then checked on its own.
enum ObjectKey {
    /// The longest key, in UTF-8 bytes.
    static let maximumLength = 1024
    /// The longest segment, in bytes (the file system's `NAME_MAX`).
    static let maximumSegmentLength = 255

    /// `key` if it is a safe object key: not empty, at most 1024 bytes, relative, no NUL, no
    /// empty, `.` or `..` segment, no segment longer than 255 bytes, none that Unicode
    /// compatibility normalisation (NFKC) turns into `.` or `..` or into something holding a `/`
    /// or NUL (`．．`, `a/／b`), not ending with `/`.
    /// - Throws: ``StorageError/validation(_:_:_:_:)`` saying what is wrong and how to fix it.
    @discardableResult
    static func validated(_ key: String) throws -> String {
        _ = try segments(of: key)
        return key
    }

    /// The key's segments, split on the byte `/`, each checked as ``validated(_:)`` describes.
    /// - Throws: ``StorageError/validation(_:_:_:_:)``.
    static func segments(of key: String) throws -> [String] {
        func refuse(_ problem: String) -> StorageError {
            StorageError.validation(
                "path", "The storage path '\(key.replacingOccurrences(of: "\0", with: "\\0"))' \(problem).",
                "Use a relative path of names separated by '/', such as public/photos/cat.jpg.")
        }
        let bytes = Array(key.utf8)
        guard !bytes.isEmpty else { throw refuse("is empty") }
        guard bytes.count <= maximumLength else { throw refuse("is longer than \(maximumLength) bytes") }
        guard !bytes.contains(0) else { throw refuse("contains a NUL character") }
        guard bytes.first != UInt8(ascii: "/") else { throw refuse("is absolute") }
        guard bytes.last != UInt8(ascii: "/") else { throw refuse("ends with '/', which names a folder, not an object") }
        var segments: [String] = []
        for raw in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !raw.isEmpty else { throw refuse("has an empty segment ('//')") }
            guard raw.count <= maximumSegmentLength else { throw refuse("has a segment longer than \(maximumSegmentLength) bytes") }
            let segment = String(decoding: raw, as: UTF8.self)
            if segment == "." || segment == ".." { throw refuse("has a '\(segment)' segment, which could leave the storage root") }
            let normalised = segment.precomposedStringWithCompatibilityMapping
            if normalised == "." || normalised == ".." || normalised.isEmpty {
                throw refuse("has a segment that normalises to '\(normalised)', which could leave the storage root")
            }
            if normalised.utf8.contains(UInt8(ascii: "/")) || normalised.utf8.contains(0) {
                throw refuse("has a segment that normalises to one holding '/', which would read as a separator")
            }
            segments.append(segment)
        }
        return segments
    }
}
