import CLagmonLinux
import Glibc
import LagmonCore
import LagmonSymbols

/// lagmon as the reaper of the target's orphans (`PR_SET_CHILD_SUBREAPER`): a descendant whose
/// parent ends — a launcher that leaves a server running (`sh -c 'srv &'`), a daemon's double
/// fork — becomes lagmon's child instead of init's. So lagmon knows, from the kernel and not from
/// the channel, every process of the session that outlived its parent: it can accept its loops,
/// wait for it (`--follow-children`) or name it (without), and reap it when it ends.
///
/// lagmon's children are the target, the descendants it adopted, and its own helpers
/// (`HelperProcesses`); the second kind is `adopted()`. Safe from any thread.
public final class Subreaper: Sendable {
    /// The most children listed, threads' `children` files read, and descriptors or threads
    /// looked at in one process (bounds on walks the target's processes shape).
    static let listLimit = 4096

    private let targetPid: Int32
    private let selfPid = getpid()

    /// Makes lagmon the reaper of its orphaned descendants; call it before the target starts (a
    /// process orphaned before goes to init). False when the kernel refused (it never does on a
    /// kernel ≥ 3.4): orphans then go to init, as without lagmon.
    public static func become() -> Bool {
        lagmon_become_child_subreaper() == 0
    }

    /// The reaper for a session whose target is `targetPid`.
    public init(targetPid: Int32) {
        self.targetPid = targetPid
    }

    /// lagmon's children that are neither the target nor its helpers: the descendants it
    /// adopted, live or not yet reaped, ascending. Read from every lagmon thread's `children`
    /// file (an orphan's new parent is one of lagmon's threads).
    public func adopted() -> [Int32] {
        var pids: Set<Int32> = []
        for tid in ProcFS.taskIDs(pid: selfPid, limit: Self.listLimit) {
            guard let text = ProcFS.readFile("/proc/\(selfPid)/task/\(tid)/children") else { continue }
            let words = String(decoding: text, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            for word in words where pids.count < Self.listLimit {
                if let pid = Int32(word), pid > 0 { pids.insert(pid) }
            }
        }
        return pids.filter { $0 != targetPid && !HelperProcesses.contains($0) }.sorted()
    }

    /// Whether `pid` is a child lagmon adopted (so of the session): its parent is lagmon, and it is
    /// neither the target nor a helper.
    public func isAdopted(_ pid: Int32) -> Bool {
        pid > 1 && pid != targetPid && ProcFS.parentPid(pid) == selfPid && !HelperProcesses.contains(pid)
    }

    /// Reaps the adopted children that have ended; returns the live ones. An exit is first looked
    /// at without being consumed (`WNOWAIT`): lagmon may be tracing the child's threads, and a
    /// tracer's wait reports ptrace stops too, which belong to the sampler.
    public func reapEnded() -> [Int32] {
        adopted().filter { pid in
            var info = siginfo_t()
            let peeked = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            let code = info.si_code
            guard peeked == 0, info._sifields._sigchld.si_pid == pid,
                code == Int32(CLD_EXITED) || code == Int32(CLD_KILLED) || code == Int32(CLD_DUMPED)
            else { return true }
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)
            return false
        }
    }

    /// Waits until no adopted child is left alive (every process of the session has ended),
    /// reaping each. Wakes on a live child's end (its pidfd), else every 100 ms: a deeper
    /// descendant is adopted only when its parent ends, which no descriptor lagmon holds announces.
    public func waitForAdopted() {
        while true {
            let live = reapEnded()
            if live.isEmpty { return }
            var descriptors = live.prefix(64).map {
                pollfd(fd: lagmon_pidfd_open($0), events: Int16(POLLIN), revents: 0)
            }
            defer { descriptors.filter { $0.fd >= 0 }.forEach { close($0.fd) } }
            descriptors.removeAll { $0.fd < 0 }
            _ = poll(&descriptors, nfds_t(descriptors.count), 100)
        }
    }

    /// Which adopted children hold an event loop, as /proc shows it without a probe: an epoll
    /// instance among its descriptors, or a thread asleep in epoll, poll or select. Named for
    /// the warning that the target left them running unwatched.
    public func loopBearing() -> [LeftProcess] {
        reapEnded().compactMap { pid in
            guard hasEpoll(pid) || waitsInLoopCall(pid) else { return nil }
            let comm = ProcFS.readFile("/proc/\(pid)/comm").map { String(decoding: $0, as: UTF8.self) }
            return LeftProcess(pid: pid, name: QuotedText.printable(comm?.trimmingNewline ?? "?", limit: 64))
        }
    }

    private func hasEpoll(_ pid: Int32) -> Bool {
        guard let directory = opendir("/proc/\(pid)/fd") else { return false }
        defer { closedir(directory) }
        var looked = 0
        var target = [CChar](repeating: 0, count: 64)
        while looked < Self.listLimit, let entry = readdir(directory) {
            looked += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard Int32(name) != nil else { continue }
            let length = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { continue }
            let link = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link == "anon_inode:[eventpoll]" { return true }
        }
        return false
    }

    private func waitsInLoopCall(_ pid: Int32) -> Bool {
        ProcFS.taskIDs(pid: pid, limit: 256).contains { tid in
            guard let wchan = ProcFS.readFile("/proc/\(pid)/task/\(tid)/wchan") else { return false }
            let text = String(decoding: wchan, as: UTF8.self)
            // do_epoll_wait, do_sys_poll, do_select, core_sys_select.
            return text.contains("poll") || text.contains("select")
        }
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}
