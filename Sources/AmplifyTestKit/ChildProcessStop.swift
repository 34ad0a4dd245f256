import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Ends a child process by its PID without `Process.waitUntilExit()`, which on Linux can wait
/// forever for a child that has already exited when several processes start and stop at once
/// (its run-loop-based monitor misses the exit), holding one of the few threads tests run on.
enum ChildProcessStop {
    /// Sends `signal`, waits up to `timeout` for the process to be gone (exited, or a zombie
    /// Foundation has yet to reap), then sends SIGKILL and waits up to two seconds more.
    static func stop(_ process: Process, signal: Int32 = SIGTERM, timeout: Duration = .seconds(5)) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        kill(pid, signal)
        if waitGone(process, pid: pid, timeout: timeout) { return }
        kill(pid, SIGKILL)
        _ = waitGone(process, pid: pid, timeout: .seconds(2))
    }

    /// Waits up to `timeout` for a process that ends by itself (a tool run to completion).
    /// - Returns: whether it is gone.
    @discardableResult
    static func waitForExit(_ process: Process, timeout: Duration = .seconds(30)) -> Bool {
        waitGone(process, pid: process.processIdentifier, timeout: timeout)
    }

    private static func waitGone(_ process: Process, pid: Int32, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isGone(process, pid: pid) { return true }
            usleep(5_000)
        }
        return isGone(process, pid: pid)
    }

    private static func isGone(_ process: Process, pid: Int32) -> Bool {
        if !process.isRunning { return true }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        // A zombie has exited; Foundation reaps it in its own time.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
