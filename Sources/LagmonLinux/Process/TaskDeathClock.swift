import CLagmonLinux
import Glibc
import Synchronization

/// Dates the death of a process that could record nothing (SIGKILL, `_exit`, a crash under its
/// own handler) from the kernel's taskstats: at `follow`, a query of the live process's elapsed
/// time since it started gives its start on lagmon's clock; at its exit the kernel sends every
/// listener the elapsed time again, so the death is the start plus that, to a few microseconds,
/// however late lagmon reads it (a loaded machine, or lagmon stopped across the death). A thread
/// drains the listener, which hears every task exit on the machine, and keeps only followed
/// pids'. Needs CAP_NET_ADMIN (root) and lagmon's network and pid namespaces to be the
/// kernel's initial ones; `open()` is nil otherwise, and deaths are dated when lagmon noticed.
public final class TaskDeathClock: @unchecked Sendable {
    private let fd: Int32
    private let clock: @Sendable () -> UInt64
    private struct State {
        /// Followed pid → its start on `clock`.
        var starts: [Int32: UInt64] = [:]
        /// Followed pid → its death on `clock`.
        var deaths: [Int32: UInt64] = [:]
    }
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private var thread: JoinableThread?

    /// A listener on every possible CPU's task exits, timed on `clock` (CLOCK_MONOTONIC, or an
    /// offset of it); nil when taskstats refuses (not root, another network namespace, no
    /// taskstats in the kernel).
    public static func open(clock: @escaping @Sendable () -> UInt64) -> TaskDeathClock? {
        let cpus = possibleCPUs()
        var family: Int32 = 0
        let fd = lagmon_task_exits_open(cpus, &family)
        guard fd >= 0 else { return nil }
        let deaths = TaskDeathClock(fd: fd, clock: clock)
        do {
            deaths.thread = try JoinableThread(name: "lagmon-deaths") { [deaths] in deaths.drain() }
        } catch {
            close(fd)
            return nil
        }
        return deaths
    }

    private init(fd: Int32, clock: @escaping @Sendable () -> UInt64) {
        self.fd = fd
        self.clock = clock
    }

    deinit { stop() }

    /// The CPUs taskstats can report from (`0-1`); the kernel's list, bounded, or `0` alone.
    static func possibleCPUs() -> String {
        let bytes = (ProcFS.readFile("/sys/devices/system/cpu/possible") ?? []).prefix { $0 != UInt8(ascii: "\n") }
        let allowed = bytes.count <= 256 && bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 44 || $0 == 45 }
        return allowed && !bytes.isEmpty ? String(decoding: bytes, as: UTF8.self) : "0"
    }

    /// Starts dating `pid`'s death: asks taskstats how long ago it started. False when it is
    /// already gone or the kernel would not say.
    @discardableResult
    public func follow(_ pid: Int32) -> Bool {
        let before = clock()
        var elapsedUs: UInt64 = 0
        guard lagmon_task_elapsed(pid, &elapsedUs) == 0 else { return false }
        let after = clock()
        let (elapsedNs, overflow) = elapsedUs.multipliedReportingOverflow(by: 1000)
        let nowNs = before + (after - before) / 2
        guard !overflow, elapsedNs <= nowNs else { return false }
        state.withLock { $0.starts[pid] = nowNs - elapsedNs }
        return true
    }

    /// When `pid` died on the clock, if the kernel's record of it came in; reads what is waiting
    /// first, so a death just reaped is known.
    public func deathNs(of pid: Int32) -> UInt64? {
        while let exit = next(wait: false) { note(exit) }
        return state.withLock { $0.deaths[pid] }
    }

    /// Stops the draining thread and closes the listener.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        thread?.join()
        close(fd)
    }

    private func drain() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            if let exit = next(wait: true) { note(exit) }
        }
    }

    private func next(wait: Bool) -> (tid: Int32, elapsedUs: UInt64)? {
        var tid: Int32 = 0
        var elapsedUs: UInt64 = 0
        guard lagmon_task_exits_next(fd, &tid, &elapsedUs, wait ? 1 : 0) == 1 else { return nil }
        return (tid, elapsedUs)
    }

    /// A task exit: the death of a followed process when it is the process's own (main) task.
    private func note(_ exit: (tid: Int32, elapsedUs: UInt64)) {
        state.withLock { state in
            guard let startNs = state.starts[exit.tid], state.deaths[exit.tid] == nil else { return }
            let (elapsedNs, overflow) = exit.elapsedUs.multipliedReportingOverflow(by: 1000)
            let (deathNs, late) = startNs.addingReportingOverflow(elapsedNs)
            guard !overflow, !late else { return }
            state.deaths[exit.tid] = deathNs
        }
    }
}
