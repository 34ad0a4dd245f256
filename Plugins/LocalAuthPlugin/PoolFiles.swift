import Amplify
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pool folder's secret files (`signing-key.pem`, `pool-secret`), created once even when
/// several processes (or plugins) use an empty folder for the first time at the same moment.
///
/// A file is created whole or not at all: its bytes go to a private temporary file (mode 0600,
/// `O_EXCL`, fsynced), which is then hard-linked to the final name. `link(2)` fails with
/// `EEXIST` when another process got there first; the loser removes its temporary file and
/// reads the winner's, so everyone agrees on one key. The temporary file is removed in every
/// case, so no `*.tmp-*` file is left behind. An existing file is never replaced.
enum PoolFiles {
    /// Makes `folder` (mode 0700) if it is missing; a folder made meanwhile by someone else is fine.
    static func ensureFolder(_ folder: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { throw error }
        }
    }

    /// The bytes of the file at `path`, creating it with `make()`'s bytes if it does not exist.
    /// - Throws: ``Amplify/AuthError/configuration(_:_:_:)`` when the file cannot be read or
    ///   written.
    static func readOrCreate(at path: String, make: () throws -> [UInt8]) throws -> [UInt8] {
        if let existing = try read(path) { return existing }
        let bytes = try make()
        let temporary = path + ".tmp-\(UUID().uuidString)"
        defer { unlink(temporary) }
        try writePrivate(bytes, to: temporary)
        if link(temporary, path) == 0 {
            syncFolder(of: path)
            return bytes
        }
        let failure = errno
        switch failure {
        case EEXIST:
            // Someone else created it first: theirs is the one.
            guard let winner = try read(path) else { throw problem("Could not read \(path) after it was created", failure) }
            return winner
        case EPERM, EXDEV, EOPNOTSUPP, EMLINK:
            // No hard links on this file system: create the final name exclusively instead.
            return try createExclusively(bytes, at: path)
        default:
            throw problem("Could not create \(path)", failure)
        }
    }

    /// The file's bytes, or `nil` if it does not exist.
    private static func read(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw problem("Could not open \(path)", errno)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw problem("Could not read \(path)", errno) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// Writes `bytes` to a new file (mode 0600) and flushes it to the disk.
    private static func writePrivate(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw problem("Could not write \(path)", errno) }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, path: path)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw problem("Could not write \(path)", errno) }
            offset += written
        }
        guard fsync(descriptor) == 0 else { throw problem("Could not flush \(path)", errno) }
    }

    /// The fallback without hard links: `O_EXCL` on the final name. A reader that comes while
    /// the winner is still writing sees a short file, which its caller refuses as not valid
    /// (an error, never a replaced file).
    private static func createExclusively(_ bytes: [UInt8], at path: String) throws -> [UInt8] {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            let failure = errno
            guard failure == EEXIST, let winner = try read(path) else { throw problem("Could not create \(path)", failure) }
            return winner
        }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, path: path)
        syncFolder(of: path)
        return bytes
    }

    /// Flushes the folder's entry for a new file (best effort).
    private static func syncFolder(of path: String) {
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        _ = fsync(folder)
        close(folder)
    }

    private static func problem(_ what: String, _ code: Int32) -> AuthError {
        AuthError.configuration(
            "\(what): \(String(cString: strerror(code))).", "Check that the local auth directory is writable and its files readable.")
    }
}
