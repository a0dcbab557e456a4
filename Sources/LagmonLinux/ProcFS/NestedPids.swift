import Glibc
import LagmonCore
import Synchronization

/// lagmon's numbers for the pids and tids a process in a PID namespace below lagmon's knows
/// itself by. Safe from any thread.
///
/// A probe writes `getpid()` and `gettid()` into the channel. In a PID namespace the target
/// created itself (`unshare --pid --fork app`, a sandbox or container runtime run under lagmon),
/// those are the namespace's numbers (1 for its first process), not the ones lagmon's /proc and
/// ptrace use. `NSpid` in /proc/<pid>/status lists a process's pid in every namespace from the
/// one /proc belongs to down to its own: a process nested below lagmon's namespace whose last
/// `NSpid` is the channel's number is the process the probe meant, when exactly one such process
/// exists. Two nested namespaces holding that number at once cannot be told apart, so neither is
/// chosen.
///
/// The channel is the target's to write: a number found here is only a candidate, which the
/// session then checks against /proc like any other (it must descend from the target).
final class NestedPids: Sendable {
    private struct State {
        /// Innermost pid → lagmon's pids of the nested processes that have it, at the last scan.
        var byInnerPid: [Int32: [Int32]] = [:]
        /// When /proc was last scanned (CLOCK_MONOTONIC), 0 before the first scan.
        var scannedNs: UInt64 = 0
        /// (lagmon's pid, innermost tid) → lagmon's tid, as last found.
        var tids: [UInt64: Int32] = [:]
    }

    /// The least time between two scans of /proc: a number no nested process has (a forged one,
    /// or a process that just started) costs one scan per interval at most.
    static let rescanIntervalNs: UInt64 = 250_000_000

    /// The most /proc entries looked at in one scan (as `ProcessesByName`).
    static let maxEntries = 262_144

    /// lagmon's own PID namespace (the target of /proc/self/ns/pid).
    private let ownNamespace: String?
    /// How many namespaces lagmon's own pid has (the length of its `NSpid`).
    private let ownDepth: Int
    private let state = Mutex(State())

    init() {
        ownNamespace = Self.namespace(of: "self")
        ownDepth = max(1, ProcProcessText.statusNumbers("NSpid", in: ProcFS.readFile("/proc/self/status") ?? []).count)
    }

    /// lagmon's pid of the one process nested below lagmon's namespace that knows itself as
    /// `innerPid`; nil when there is none, or more than one.
    func hostPid(of innerPid: Int32) -> Int32? {
        guard innerPid > 0 else { return nil }
        let known = state.withLock { $0.byInnerPid[innerPid] }
        if let known, known.count == 1, innerNumber(path: "/proc/\(known[0])/status") == innerPid { return known[0] }
        let nowNs = MonotonicClock.nowNs()
        let due = state.withLock { state in
            guard state.scannedNs == 0 || nowNs - state.scannedNs >= Self.rescanIntervalNs else { return false }
            state.scannedNs = nowNs
            return true
        }
        guard due else { return nil }
        let scanned = scan()
        state.withLock { $0.byInnerPid = scanned }
        guard let found = scanned[innerPid], found.count == 1 else { return nil }
        return found[0]
    }

    /// lagmon's tid of the thread of process `hostPid` (nested) that knows itself as `innerTid`;
    /// nil when it has none.
    func hostTid(pid hostPid: Int32, innerTid: Int32) -> Int32? {
        guard innerTid > 0 else { return nil }
        let key = UInt64(UInt32(bitPattern: hostPid)) << 32 | UInt64(UInt32(bitPattern: innerTid))
        if let known = state.withLock({ $0.tids[key] }),
            innerNumber(path: "/proc/\(hostPid)/task/\(known)/status") == innerTid
        {
            return known
        }
        for tid in ProcFS.taskIDs(pid: hostPid, limit: 65_536)
        where innerNumber(path: "/proc/\(hostPid)/task/\(tid)/status") == innerTid {
            state.withLock { state in
                if state.tids.count >= 65_536 { state.tids.removeAll() }
                state.tids[key] = tid
            }
            return tid
        }
        return nil
    }

    /// Every nested process, by its innermost pid: one `readlink` a process, and the status of
    /// those in another namespace than lagmon's.
    private func scan() -> [Int32: [Int32]] {
        guard let directory = opendir("/proc") else { return [:] }
        defer { closedir(directory) }
        var found: [Int32: [Int32]] = [:]
        var seen = 0
        while seen < Self.maxEntries, let entry = readdir(directory) {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), pid > 0, let namespace = Self.namespace(of: name), namespace != ownNamespace,
                let inner = innerNumber(path: "/proc/\(name)/status")
            else { continue }
            found[inner, default: []].append(pid)
        }
        return found
    }

    /// The last `NSpid` of a status file, when it is nested below lagmon's namespace.
    private func innerNumber(path: String) -> Int32? {
        guard let status = ProcFS.readFile(path) else { return nil }
        let numbers = ProcProcessText.statusNumbers("NSpid", in: status)
        return numbers.count > ownDepth ? numbers.last : nil
    }

    /// The PID namespace of /proc/<entry> (`pid:[inode]`), nil when unreadable.
    private static func namespace(of entry: String) -> String? {
        var target = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/\(entry)/ns/pid", &target, target.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
