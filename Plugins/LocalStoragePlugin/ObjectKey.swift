import Amplify

/// Checks an object key before it touches the file system.
enum ObjectKey {
    /// `key` if it is a safe object key: not empty, at most 1024 bytes, relative, no NUL, no
    /// empty, `.` or `..` segment, not ending with `/`.
    /// - Throws: ``StorageError/validation(_:_:_:_:)`` saying what is wrong and how to fix it.
    static func validated(_ key: String) throws -> String {
        func refuse(_ problem: String) -> StorageError {
            StorageError.validation(
                "path", "The storage path '\(key.replacingOccurrences(of: "\0", with: "\\0"))' \(problem).",
                "Use a relative path of names separated by '/', such as public/photos/cat.jpg.")
        }
        guard !key.isEmpty else { throw refuse("is empty") }
        guard key.utf8.count <= 1024 else { throw refuse("is longer than 1024 bytes") }
        guard !key.contains("\0") else { throw refuse("contains a NUL character") }
        guard !key.hasPrefix("/") else { throw refuse("is absolute") }
        guard !key.hasSuffix("/") else { throw refuse("ends with '/', which names a folder, not an object") }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { throw refuse("has an empty segment ('//')") }
            if segment == "." || segment == ".." { throw refuse("has a '\(segment)' segment, which could leave the storage root") }
        }
        return key
    }
}
