import Amplify
import AmplifyEventLoop
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The store's files, reached from the root one component at a time: every component is
/// opened with `openat(2)` relative to the folder before it and `O_NOFOLLOW`, so a symbolic
/// link anywhere on the way (planted, or swapped in during the call) is refused rather than
/// followed, and `..` never appears (keys are checked by ``ObjectKey``). Objects are created,
/// replaced and removed with `renameat` / `unlinkat` on the folder descriptor found that way.
///
/// Synchronous POSIX calls: run them on the loop's thread pool (``LoopFileSystem/perform(_:)``),
/// never on the loop thread.
struct RootedFiles: Sendable {
    /// The store's root folder (a link in the root's own path, chosen in the configuration, is
    /// followed; nothing below it is).
    let root: String

    /// Whether new files can be made nameless (`O_TMPFILE`) and named at the end through
    /// `/proc/self/fd`: a process killed mid-upload then leaves no temporary file at all.
    static let namelessTemporaries: Bool = access("/proc/self/fd", F_OK) == 0

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; the C macro does not import).
    private static let openTemporaryFile: Int32 = 0o20_000_000 | O_DIRECTORY

    // MARK: Folders

    /// A descriptor of `root/<top>` (`objects`, `tmp`, `index`, `meta`).
    func openTop(_ top: String) throws -> Int32 {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { throw Self.system("open", root, errno) }
        defer { close(rootFD) }
        let fd = openat(rootFD, top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw Self.system("open", root + "/" + top, errno) }
        return fd
    }

    /// A descriptor of the folder that holds the last of `segments` below `root/<top>`.
    /// - Parameters:
    ///   - creating: make missing folders (mode 0700); the ones made are appended to `created`
    ///     (as paths of segments), so a failure later can remove them again.
    /// - Returns: `nil` when a folder is missing and `creating` is false.
    /// - Throws: ``StorageError/validation(_:_:_:_:)`` for a link or an object on the way.
    func openParent(of key: String, _ segments: [String], in top: String, creating: Bool, created: inout [[String]]) throws -> Int32? {
        var fd = try openTop(top)
        for (index, segment) in segments.dropLast().enumerated() {
            var next = openat(fd, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                if mkdirat(fd, segment, 0o700) == 0 {
                    created.append(Array(segments[0...index]))
                } else if errno != EEXIST {
                    let failure = errno
                    close(fd)
                    throw Self.system("mkdir", key, failure)
                }
                next = openat(fd, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let failure = errno
            close(fd)
            guard next >= 0 else {
                if failure == ENOENT { return nil }
                throw try Self.refusal(key, segments, upTo: index, top: top, failure)
            }
            fd = next
        }
        return fd
    }

    /// Removes the folders a failed write made, deepest first, if they are still empty.
    func removeCreated(_ created: [[String]], in top: String) {
        for path in created.reversed() {
            guard let parent = try? openFolder(Array(path.dropLast()), in: top), let last = path.last else { continue }
            _ = unlinkat(parent, last, AT_REMOVEDIR)
            close(parent)
        }
    }

    private func openFolder(_ segments: [String], in top: String) throws -> Int32 {
        var fd = try openTop(top)
        for segment in segments {
            let next = openat(fd, segment, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let failure = errno
            close(fd)
            guard next >= 0 else { throw Self.system("open", segment, failure) }
            fd = next
        }
        return fd
    }

    // MARK: Objects

    /// The object's status (`fstatat` without following a link).
    /// - Returns: `nil` when there is no regular file at the key.
    /// - Throws: ``StorageError/validation(_:_:_:_:)`` when a link or an object is on the way,
    ///   or the key itself is a link.
    func status(of key: String, _ segments: [String], in top: String = "objects") throws -> stat? {
        var created: [[String]] = []
        guard let parent = try openParent(of: key, segments, in: top, creating: false, created: &created), let last = segments.last else {
            return nil
        }
        defer { close(parent) }
        var status = stat()
        guard fstatat(parent, last, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw Self.system("stat", key, errno)
        }
        if status.st_mode & S_IFMT == S_IFLNK { throw Self.linkRefusal(key) }
        return status.st_mode & S_IFMT == S_IFREG ? status : nil
    }

    /// Opens the object for reading, refusing a link (`O_NOFOLLOW`) and anything but a regular file.
    /// - Returns: the descriptor and the file's status, or `nil` when there is no such object.
    func openForReading(_ key: String, _ segments: [String], in top: String = "objects") throws -> (Int32, stat)? {
        var created: [[String]] = []
        guard let parent = try openParent(of: key, segments, in: top, creating: false, created: &created), let last = segments.last else {
            return nil
        }
        defer { close(parent) }
        let fd = openat(parent, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == EISDIR { return nil }
            if errno == ELOOP { throw Self.linkRefusal(key) }
            throw Self.system("open", key, errno)
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        return (fd, status)
    }

    /// Removes the object (never a link's target: a link at the key is refused).
    /// - Returns: whether there was an object to remove.
    func remove(_ key: String, _ segments: [String], in top: String = "objects") throws -> Bool {
        var created: [[String]] = []
        guard let parent = try openParent(of: key, segments, in: top, creating: false, created: &created), let last = segments.last else {
            return false
        }
        defer { close(parent) }
        var status = stat()
        guard fstatat(parent, last, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return false }
            throw Self.system("stat", key, errno)
        }
        if status.st_mode & S_IFMT == S_IFLNK { throw Self.linkRefusal(key) }
        guard status.st_mode & S_IFMT == S_IFREG else { return false }
        guard unlinkat(parent, last, 0) == 0 else {
            if errno == ENOENT { return false }
            throw Self.system("unlink", key, errno)
        }
        return true
    }

    // MARK: Writing

    /// A new temporary file in `root/tmp` (mode 0600): nameless when the system allows, so
    /// nothing is left if the process dies; otherwise named with a UUID.
    /// - Returns: the descriptor and the name (`nil` for a nameless file).
    func createTemporary() throws -> (Int32, String?) {
        let folder = try openTop("tmp")
        defer { close(folder) }
        if Self.namelessTemporaries {
            let fd = openat(folder, ".", Self.openTemporaryFile | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, nil) }
        }
        let name = UUID().uuidString
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.system("create", root + "/tmp/" + name, errno) }
        return (fd, name)
    }

    /// Forgets a temporary file that will not be committed (a nameless one needs nothing).
    func discardTemporary(_ name: String?) {
        guard let name, let folder = try? openTop("tmp") else { return }
        _ = unlinkat(folder, name, 0)
        close(folder)
    }

    /// Puts the (synced) temporary file in place as the key, replacing an object there
    /// atomically; makes the key's missing folders. Any failure removes the temporary file and
    /// the folders made.
    /// - Throws: ``StorageError/validation(_:_:_:_:)`` when the key is a link, a folder of other
    ///   objects, or below an object.
    func commit(_ fd: Int32, temporaryName: String?, as key: String, _ segments: [String], in top: String = "objects") throws {
        let tmp = try openTop("tmp")
        defer { close(tmp) }
        var name = temporaryName
        if name == nil {
            let linked = UUID().uuidString
            guard linkat(AT_FDCWD, "/proc/self/fd/\(fd)", tmp, linked, AT_SYMLINK_FOLLOW) == 0 else { throw Self.system("link", key, errno) }
            name = linked
        }
        guard let name else { return }
        var created: [[String]] = []
        do {
            guard let parent = try openParent(of: key, segments, in: top, creating: true, created: &created), let last = segments.last else {
                throw Self.system("open", key, ENOENT)
            }
            defer { close(parent) }
            var status = stat()
            if fstatat(parent, last, &status, AT_SYMLINK_NOFOLLOW) == 0 {
                if status.st_mode & S_IFMT == S_IFLNK { throw Self.linkRefusal(key) }
                if status.st_mode & S_IFMT == S_IFDIR {
                    throw StorageError.validation("path", "The storage path '\(key)' names a folder of other objects.", "Choose another path.")
                }
            }
            guard renameat(tmp, name, parent, last) == 0 else { throw Self.system("rename", key, errno) }
        } catch {
            _ = unlinkat(tmp, name, 0)
            removeCreated(created, in: top)
            throw error
        }
    }

    /// Checks, before any byte is sent, that the key could be written: no link and no object on
    /// the way, not a folder (missing folders are fine; they are made at the commit).
    func checkWritable(_ key: String, _ segments: [String], in top: String = "objects") throws {
        _ = try status(of: key, segments, in: top)
        var created: [[String]] = []
        guard let parent = try openParent(of: key, segments, in: top, creating: false, created: &created), let last = segments.last else { return }
        defer { close(parent) }
        var status = stat()
        if fstatat(parent, last, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw StorageError.validation("path", "The storage path '\(key)' names a folder of other objects.", "Choose another path.")
        }
    }

    // MARK: Errors

    private static func refusal(_ key: String, _ segments: [String], upTo index: Int, top: String, _ failure: Int32) throws -> StorageError {
        switch failure {
        case ELOOP: return linkRefusal(key)
        case ENOTDIR:
            return StorageError.validation(
                "path", "The storage path '\(key)' goes below '\(segments[0...index].joined(separator: "/"))', which is an object.",
                "Choose a path that does not extend an existing object's path.")
        default: return system("open", key, failure)
        }
    }

    static func linkRefusal(_ key: String) -> StorageError {
        StorageError.validation(
            "path", "The storage path '\(key)' passes through a symbolic link, which could lead out of the storage root.",
            "Store objects under real folders; remove the link.")
    }

    static func system(_ operation: String, _ what: String, _ code: Int32) -> StorageError {
        let reason = String(cString: strerror(code))
        return StorageError.unknown(
            "Could not \(operation) '\(what)': \(reason). Check the storage folder's permissions and free space.",
            EventLoopError.fileSystem(operation: operation, path: what, code: -code, message: reason))
    }
}
