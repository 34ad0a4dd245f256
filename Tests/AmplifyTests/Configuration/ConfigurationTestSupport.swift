import Foundation

/// The repository's sample configuration files (Examples/Configurations).
enum Samples {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Configurations")

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

/// A fresh temporary folder, removed by the caller with `cleanUp()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("amplify-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the folder and returns its URL.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}
