import CLagmonLinux
import Glibc
import Synchronization

/// Dates the death of a process that could record nothing (SIGKILL, `_exit`, a crash under its
/// own handler) from the kernel's taskstats: at `follow`, a query of the live process's elapsed
/// time since it started gives its start on lagmon's clock; at its exit the kernel sends every
/// listener the elapsed time again, so the death is the start plus that, to a few microseconds,
/// however late lagmon reads it (a loaded machine, or lagmon stopped across the death). The
/// listener would hear every task exit on the machine; a socket filter lets through only the
/// followed processes' (up to `maxFollowed` alive at once), and a thread waits for them. Needs
/// CAP_NET_ADMIN (root) and lagmon's network and pid namespaces to be the kernel's initial
/// ones; `open()` is nil otherwise, and deaths are dated when lagmon noticed.
public final class TaskDeathClock: @unchecked Sendable {
    private let fd: Int32
    private let clock: @Sendable () -> UInt64
    private struct State {
        /// Followed pid, not yet dead → its start on `clock`.
        var starts: [Int32: UInt64] = [:]
        /// Followed pid → its death on `clock`, until asked for.
        var deaths: [Int32: UInt64] = [:]
    }

    /// Processes followed at once: the socket filter compares the record's pid with each.
    public static let maxFollowed = Int(LAGMON_TASK_EXITS_MAX_PIDS)
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
        // Nothing followed yet: nothing let through. (Given up, the clock closes `fd` as it goes.)
        guard deaths.letThrough([]) else { return nil }
        do {
            deaths.thread = try JoinableThread(name: "lagmon-deaths") { [deaths] in deaths.drain() }
        } catch {
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

    /// Starts dating `pid`'s death too: asks taskstats how long ago it started. False when it is
    /// already gone, the kernel would not say, or `maxFollowed` live processes are followed.
    @discardableResult
    public func follow(_ pid: Int32) -> Bool {
        state.withLock { state in
            guard state.starts[pid] == nil else { return true }
            guard state.starts.count < Self.maxFollowed else { return false }
            // The filter first: a death right after the query must not be dropped.
            guard letThrough(Array(state.starts.keys) + [pid]) else { return false }
            var elapsedUs: UInt64 = 0
            guard lagmon_task_elapsed(pid, &elapsedUs) == 0 else {
                letThrough(Array(state.starts.keys))
                return false
            }
            let after = clock()
            let (elapsedNs, overflow) = elapsedUs.multipliedReportingOverflow(by: 1000)
            // The kernel answered somewhere between `before` and `after`: dated from `after`, the
            // start (and so the death) is never early, only late by the query's round trip. A
            // death dated early (the midpoint, under load) cut a child's last honest transitions
            // off its span: "impossible values".
            let nowNs = after
            guard !overflow, elapsedNs <= nowNs else {
                letThrough(Array(state.starts.keys))
                return false
            }
            state.starts[pid] = nowNs - elapsedNs
            return true
        }
    }

    /// When `pid` died on the clock, if the kernel's record of it came in (then forgotten: each
    /// death is asked for once). Reads what is waiting first, so a death just reaped is known: the
    /// kernel queues the record before the process becomes a zombie, and records are only taken
    /// off the socket under the lock, so one is either still queued or already noted.
    public func takeDeathNs(of pid: Int32) -> UInt64? {
        state.withLock { state in
            noteWaiting(&state)
            return state.deaths.removeValue(forKey: pid)
        }
    }

    @discardableResult
    private func letThrough(_ pids: [Int32]) -> Bool {
        pids.withUnsafeBufferPointer { lagmon_task_exits_only(fd, $0.baseAddress, UInt32($0.count)) } == 0
    }

    /// Stops the draining thread and closes the listener.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        thread?.join()
        close(fd)
    }

    private func drain() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            // Wakes for a record, or five times a second to see whether the clock is stopping.
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 200) > 0 else { continue }
            state.withLock { noteWaiting(&$0) }
        }
    }

    /// Takes every record waiting on the socket, without blocking.
    private func noteWaiting(_ state: inout State) {
        while let exit = next() { note(exit, &state) }
    }

    /// The next record waiting, without blocking.
    private func next() -> (tid: Int32, elapsedUs: UInt64)? {
        var tid: Int32 = 0
        var elapsedUs: UInt64 = 0
        guard lagmon_task_exits_next(fd, &tid, &elapsedUs, 0) == 1 else { return nil }
        return (tid, elapsedUs)
    }

    /// A task exit: the death of a followed process when it is the process's own (main) task;
    /// the filter then stops letting its records through.
    private func note(_ exit: (tid: Int32, elapsedUs: UInt64), _ state: inout State) {
        guard let startNs = state.starts[exit.tid] else { return }
        let (elapsedNs, overflow) = exit.elapsedUs.multipliedReportingOverflow(by: 1000)
        let (deathNs, late) = startNs.addingReportingOverflow(elapsedNs)
        guard !overflow, !late else { return }
        state.starts[exit.tid] = nil
        state.deaths[exit.tid] = deathNs
        letThrough(Array(state.starts.keys))
    }
}
