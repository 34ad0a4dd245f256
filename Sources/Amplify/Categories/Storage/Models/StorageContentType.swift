/// Content types for objects uploaded without one, from the key's extension.
public enum StorageContentType {
    private static let byExtension = [
        "txt": "text/plain", "json": "application/json", "html": "text/html", "css": "text/css", "js": "text/javascript",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "svg": "image/svg+xml",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4", "mp3": "audio/mpeg",
        "csv": "text/csv",
    ]

    /// The content type of `key` by its extension, `application/octet-stream` when unknown.
    public static func guess(for key: String) -> String {
        let name = key.split(separator: "/").last.map(String.init) ?? key
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
