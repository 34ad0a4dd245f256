import Amplify
import AmplifyConcurrency
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a Storage plugin needs around its own transfer code: reporting each call's outcome on
/// the Hub, running a transfer as a `StorageTransferTask` driven by a ``StorageTransferGate``,
/// and the identity id of the signed-in user for `.fromIdentityID` paths. The package's local
/// and S3 plugins use it; a plugin of your own can too.
public struct StoragePluginSupport: Sendable {
    /// Where outcomes and progress go (`nil`: `Amplify.Hub`).
    public let hub: (any HubCategoryBehavior)?

    /// The reporter outcomes go through.
    private let reporter: HubReporter

    /// Support reporting to `hub` (`Amplify.Hub` by default).
    public init(hub: (any HubCategoryBehavior)? = nil) {
        self.hub = hub
        reporter = HubReporter(hub: hub)
    }

    /// The signed-in user's id, for `.fromIdentityID` paths.
    /// - Throws: `StorageError.authError(_:_:_:)` when nobody is signed in.
    public static let signedInUserIdentityId: @Sendable () async throws -> String = {
        do {
            return try await Amplify.Auth.getCurrentUser().userId
        } catch {
            throw StorageError.authError(
                "This path is built from the identity id, and nobody is signed in.", "Sign in first, or use a string path.", error)
        }
    }

    /// Who is calling, for Gen 2 access rules: signed in or not (`Amplify.Auth.fetchAuthSession()`;
    /// no Auth plugin counts as a guest) and the user's groups (from a session that is
    /// `AuthUserGroupsProviding`). The identity id is the plugin's to add.
    public static let signedInCaller: @Sendable () async -> StorageAccessRules.Caller = {
        guard let session = try? await Amplify.Auth.fetchAuthSession(), session.isSignedIn else { return .guest }
        return StorageAccessRules.Caller(isAuthenticated: true, groups: (session as? any AuthUserGroupsProviding)?.userGroups ?? [])
    }

    /// Checks `entry`'s access rules (if it has any) for `permission` on `path`: asks `caller`
    /// who is calling and, only when a rule needs it, `identityId` for the caller's identity id.
    /// - Throws: `StorageError.accessDenied(_:_:_:)` naming the rule.
    public static func checkAccess(
        _ permission: StorageAccessRules.Permission, path: String, in entry: StorageBucketTable.Entry?,
        caller: @Sendable () async -> StorageAccessRules.Caller, identityId: @Sendable () async throws -> String
    ) async throws {
        guard let entry, !entry.rules.isEmpty else { return }
        var who = await caller()
        if who.isAuthenticated, who.identityId == nil, entry.rules.rule(for: path)?.entity != nil {
            who.identityId = try? await identityId()
        }
        try entry.rules.check(permission, path: path, caller: who, bucket: entry.name)
    }

    /// Checks that `local` may be replaced by a downloaded file: absent, a regular file or a
    /// symbolic link. A folder, a device (`/dev/null`), a FIFO or a socket is refused, since a
    /// download replaces its destination whole (a temporary file renamed over it).
    /// - Throws: `StorageError.localFileNotFound` saying what is there and what to do instead.
    public static func checkDownloadDestination(_ local: URL) throws {
        var info = stat()
        guard lstat(local.path, &info) == 0 else { return }
        let type = info.st_mode & S_IFMT
        let what: String
        switch type {
        case S_IFREG, S_IFLNK: return
        case S_IFDIR: what = "a folder"
        case S_IFCHR: what = "a character device"
        case S_IFBLK: what = "a block device"
        case S_IFIFO: what = "a FIFO (named pipe)"
        case S_IFSOCK: what = "a socket"
        default: what = "not a regular file"
        }
        throw StorageError.localFileNotFound(
            "\(local.path) is \(what); a download replaces its destination with a regular file, so it is not written there.",
            "Pass the path of a file to write, or use downloadData (from the shell: `amplify storage get KEY -` writes to standard output).")
    }

    /// Dispatches `event` (`Storage.uploadData`, …) on the `.storage` channel with the value or
    /// the error.
    public func report<T: Sendable>(_ event: String, _ outcome: Result<T, any Error>) {
        let data: any Sendable =
            switch outcome {
            case .success(let value): value
            case .failure(let error): error as? any AmplifyError ?? StorageError.unknown("\(error)", error)
            }
        let payload = HubPayload(eventName: event, data: data)
        reporter.dispatch(to: .storage, payload: payload)
    }

    /// Runs `body` and reports its value or its error under `event` (`Storage.getURL`, …), then
    /// returns or rethrows it: the whole Hub reporting of a call that is not a transfer.
    /// - Throws: what `body` throws.
    public func reporting<T: Sendable>(_ event: String, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            report(event, .success(value))
            return value
        } catch {
            report(event, Result<T, any Error>.failure(error))
            throw error
        }
    }

    /// Starts `body` in a task of its own and returns the transfer task that follows it: pause,
    /// resume and cancel drive the gate `body` checks (cancel also cancels the Swift task, which
    /// cancels a request in flight); progress and the outcome go to the Hub under `event`.
    public func transfer<T: Sendable>(
        _ event: String, _ body: @escaping @Sendable (StorageTransferGate, StorageTransferTask<T>.Controller) async throws -> T
    ) -> StorageTransferTask<T> {
        let gate = StorageTransferGate()
        let running = Locked<Task<Void, Never>?>(nil)
        let hooks: StorageTransferTask<T>.Hooks = gate.hooks { running.value?.cancel() }
        let (task, controller) = StorageTransferTask<T>.make(hooks: hooks, hubEventName: event, hub: hub, metricsFactory: nil, tracked: false)
        // Under way until the work has ended, not merely the task: a cancelled transfer still
        // removes its temporary file after its task has finished.
        let tracking = StorageTransferTracker.shared.begin { task.cancel() }
        let work = Task {
            defer { StorageTransferTracker.shared.end(tracking) }
            // The outcome is queued on the Hub before the caller's `value` returns, so a caller
            // that then flushes the Hub has seen it (the other way round, `flush` could run first).
            do {
                let value = try await body(gate, controller)
                report(event, .success(value))
                controller.succeed(value)
            } catch {
                report(event, Result<T, any Error>.failure(error))
                controller.fail(error)
            }
        }
        running.withLock { $0 = work }
        if gate.isCancelled { work.cancel() }
        return task
    }
}
