import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// Reads every thread's CPU time of the target on a thread of its own, every `intervalNs`,
/// and feeds a `ThreadCPUTracker`; alerts go to `onAlert` as they happen (on the sampler
/// thread, so a stack can be taken at once). The target may exit at any moment: its threads
/// then simply stop being listed, and the first pass that finds none ends the sampling (the
/// pid might otherwise be reused by another process).
public final class ThreadCPUSampler: @unchecked Sendable {
    /// What sampling cost lagmon, and how punctual it was.
    public struct Cost: Sendable, Equatable {
        /// Passes over the target's threads.
        public var passes: UInt64 = 0
        /// Stat files read and parsed.
        public var threadsRead: UInt64 = 0
        /// Threads listed that were gone (or unreadable) by the time their stat file was read.
        public var threadsVanished: UInt64 = 0
        /// Passes that found more threads than the cap and read only the first ones.
        public var cappedPasses: UInt64 = 0
        /// Times the threads were listed (`/proc/<pid>/task` read): the first pass, and whenever
        /// threads came or went.
        public var listings: UInt64 = 0
        /// CPU time the sampler thread used (CLOCK_THREAD_CPUTIME_ID), sleeping excluded.
        public var cpuNs: UInt64 = 0
        /// How late each pass started against its schedule.
        public var lateness: LatenessTally

        /// Average CPU time of one pass.
        public var cpuNsPerPass: UInt64 { passes == 0 ? 0 : cpuNs / passes }
    }

    /// The target's pid.
    public let pid: Int32
    /// Time between passes.
    public let intervalNs: UInt64
    private let maxThreads: Int
    private let clockBaseNs: UInt64
    private let onAlert: @Sendable (CPUAlertEvent) -> Void
    private let stopping = Atomic<Bool>(false)
    private let wakeup: UnsafeMutablePointer<sem_t>
    private let measured: Mutex<Cost>
    /// The main thread's CPU use over the latest interval, for the live view.
    private let mainPct = Mutex<Double?>(nil)
    /// The latest pass's readings, for live metrics.
    private let latest = Mutex<[ThreadCPUReading]>([])
    private var thread: JoinableThread?
    // Owned by the sampler thread until join() returns.
    private var tracker: ThreadCPUTracker
    /// CPU time from `schedstat` in nanoseconds (the tracker counts ticks of 1 ns), or from
    /// `stat` in clock ticks.
    private let readsSchedstat: Bool
    private var statFiles: ThreadFiles?
    private var schedstatFiles: ThreadFiles?
    private var passIndex: UInt64 = 0
    private var listed: [Int32] = []
    private var listingCapped = false
    private var relistNow = true
    /// `/proc/<pid>/task`, open while sampling: its link count says when threads came or went.
    private var taskDirectory: Int32 = -1
    private var identities: [Int32: Identity] = [:]

    /// A thread's name and state as its `stat` file last gave them, and its CPU time then.
    private struct Identity {
        var name: String
        var state: SchedulerState
        var cpuTicks: UInt64
    }

    /// A sampler of process `pid`. Readings are stamped on the channel clock (CLOCK_MONOTONIC
    /// minus `clockBaseNs`), the clock `tracker`'s target start is on; a pass reads at most
    /// `maxThreads` threads.
    public init(
        pid: Int32, tracker: ThreadCPUTracker, intervalNs: UInt64 = 250_000_000, clockBaseNs: UInt64 = 0,
        maxThreads: Int = 4096, latenessToleranceNs: UInt64 = 10_000_000,
        onAlert: @escaping @Sendable (CPUAlertEvent) -> Void = { _ in }
    ) {
        self.pid = pid
        self.tracker = tracker
        self.intervalNs = max(intervalNs, 1_000_000)
        self.clockBaseNs = clockBaseNs
        self.maxThreads = maxThreads
        self.onAlert = onAlert
        self.readsSchedstat = tracker.configuration.ticksPerSecond == Self.schedstatTicksPerSecond
        self.measured = Mutex(Cost(lateness: LatenessTally(toleranceNs: latenessToleranceNs)))
        wakeup = .allocate(capacity: 1)
        sem_init(wakeup, 0, 0)
    }

    deinit {
        sem_destroy(wakeup)
        wakeup.deallocate()
    }

    /// Starts the sampler thread (once); its first pass happens at once.
    public func start() throws(SystemError) {
        guard thread == nil else { return }
        thread = try JoinableThread(name: "lagmon-cpu") { [self] in run() }
    }

    /// Stops the thread and returns the tracker with everything it recorded.
    public func stop() -> ThreadCPUTracker {
        stopping.store(true, ordering: .sequentiallyConsistent)
        sem_post(wakeup)
        thread?.join()
        return tracker
    }

    /// The cost so far (final once `stop()` returned).
    public var cost: Cost { measured.withLock { $0 } }

    /// The main thread's CPU use over the latest reading interval (percent of one core); nil
    /// before its second reading.
    public var mainThreadPct: Double? { mainPct.withLock { $0 } }

    /// The unit of the readings' `cpuTicks`.
    public var cpuTicksPerSecond: UInt64 {
        readsSchedstat ? Self.schedstatTicksPerSecond : ProcFS.ticksPerSecond
    }

    /// Every thread's CPU reading of the latest pass (cumulative ticks since the thread began).
    public var latestReadings: [ThreadCPUReading] { latest.withLock { $0 } }

    private func run() {
        let startCPUNs = threadCPUNs()
        var deadlineNs = MonotonicClock.nowNs()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let wokeNs = MonotonicClock.nowNs()
            measured.withLock { $0.lateness.record(deadlineNs: deadlineNs, wokeNs: wokeNs) }
            guard pass() else { break }
            measured.withLock { $0.cpuNs = threadCPUNs() - startCPUNs }
            deadlineNs = nextDeadline(after: deadlineNs, nowNs: MonotonicClock.nowNs())
            // Posted only by stop(): a timeout is the normal way out.
            _ = lagmon_sem_wait_until_monotonic(wakeup, deadlineNs)
        }
        statFiles?.closeAll()
        schedstatFiles?.closeAll()
        if taskDirectory >= 0 { close(taskDirectory) }
        measured.withLock { $0.cpuNs = threadCPUNs() - startCPUNs }
    }

    /// The unit of CPU time the sampler feeds a tracker of `pid`'s threads: nanoseconds from
    /// `schedstat` where the kernel has it, else clock ticks from `stat`.
    public static func cpuTicksPerSecond(pid: Int32) -> UInt64 {
        ProcFS.readFile(ProcFS.taskPath(pid: pid, tid: pid, "schedstat")).flatMap(ProcSchedstat.parse) != nil
            ? schedstatTicksPerSecond : ProcFS.ticksPerSecond
    }

    static let schedstatTicksPerSecond: UInt64 = 1_000_000_000
    /// The threads are listed again when their number changed (the task directory's link
    /// count, one fstat), when a listed thread is gone, and, where the count cannot be read or
    /// the listing was capped, every `relistEvery` passes (listing 1000 threads costs ~0.5 ms).
    static let relistEvery: UInt64 = 4
    /// A thread's name and state (from `stat`, ~5 µs a read against ~2 µs for `schedstat`) are
    /// read when it is first seen, then every `identityEvery` passes (staggered by thread id) if
    /// it ran since (a thread that did not run has not renamed itself), and every
    /// `idleIdentityEvery` passes if not (another thread may rename it through its comm file);
    /// its CPU time (`schedstat`) on every pass.
    static let identityEvery: UInt64 = 8
    static let idleIdentityEvery: UInt64 = 64

    /// Reads all threads once and feeds the tracker; false when the target is gone.
    private func pass() -> Bool {
        if statFiles == nil {
            let budget = ThreadFiles.openBudget()
            statFiles = ThreadFiles(pid: pid, file: "stat", maxOpen: budget)
            schedstatFiles = ThreadFiles(pid: pid, file: "schedstat", maxOpen: readsSchedstat ? budget : 0)
        }
        passIndex += 1
        if relistNow || threadsChanged() {
            guard relist() else { return false }
        }
        var readings = read(listed)
        if readings.isEmpty {
            // Every listed thread is gone: the process too, or a new set of threads.
            guard relist() else { return false }
            readings = read(listed)
        }
        let nowNs = MonotonicClock.nowNs()
        let events = tracker.record(readings, atNs: nowNs > clockBaseNs ? nowNs - clockBaseNs : 0)
        let latestMain = tracker.latestPct(of: pid)
        mainPct.withLock { $0 = latestMain }
        latest.withLock { $0 = readings }
        measured.withLock { [listed, listingCapped] cost in
            cost.passes += 1
            cost.threadsRead += UInt64(readings.count)
            cost.threadsVanished += UInt64(listed.count - readings.count)
            if listingCapped { cost.cappedPasses += 1 }
        }
        events.forEach(onAlert)
        return true
    }

    /// Whether the threads may differ from the listing: their number changed, or it cannot be
    /// known (then every `relistEvery` passes).
    private func threadsChanged() -> Bool {
        if taskDirectory < 0 {
            taskDirectory = "/proc/\(pid)/task".withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        guard !listingCapped, taskDirectory >= 0, let count = ProcFS.threadCount(taskDirectory: taskDirectory) else {
            return passIndex % Self.relistEvery == 0
        }
        return count != listed.count
    }

    /// Lists the threads again; false when there are none (the process is gone).
    private func relist() -> Bool {
        let tids = ProcFS.taskIDs(pid: pid, limit: maxThreads + 1)
        guard !tids.isEmpty else { return false }
        listingCapped = tids.count > maxThreads
        listed = Array(tids.prefix(maxThreads))
        measured.withLock { $0.listings += 1 }
        let alive = Set(listed)
        statFiles?.forget(allBut: alive)
        schedstatFiles?.forget(allBut: alive)
        identities = identities.filter { alive.contains($0.key) }
        relistNow = false
        return true
    }

    /// One reading per thread still there; a thread gone marks the list for a new listing.
    private func read(_ tids: [Int32]) -> [ThreadCPUReading] {
        var readings: [ThreadCPUReading] = []
        readings.reserveCapacity(tids.count)
        for tid in tids {
            guard let reading = readsSchedstat ? readSchedstat(tid) : readStat(tid) else {
                gone(tid)
                continue
            }
            readings.append(reading)
        }
        return readings
    }

    /// CPU time from `schedstat`; name and state from `stat` when first seen or due again.
    private func readSchedstat(_ tid: Int32) -> ThreadCPUReading? {
        guard let schedstat = schedstatFiles?.read(tid: tid, ProcSchedstat.parse) else { return nil }
        var identity = identities[tid]
        if identity.map({ identityDue(tid, $0, cpuTicks: schedstat.onCPUNs) }) ?? true {
            guard let stat = statFiles?.read(tid: tid, { ProcTaskStat.parse(Array($0)) }) else { return nil }
            identity = Identity(name: stat.comm, state: stat.state, cpuTicks: schedstat.onCPUNs)
            identities[tid] = identity
        }
        guard let identity else { return nil }
        return ThreadCPUReading(tid: tid, name: identity.name, state: identity.state, cpuTicks: schedstat.onCPUNs)
    }

    /// Everything from `stat` (kernels without `schedstat`), on every pass.
    private func readStat(_ tid: Int32) -> ThreadCPUReading? {
        guard let stat = statFiles?.read(tid: tid, { ProcTaskStat.parse(Array($0)) }) else { return nil }
        return ThreadCPUReading(tid: tid, name: stat.comm, state: stat.state, cpuTicks: stat.cpuTicks)
    }

    private func identityDue(_ tid: Int32, _ identity: Identity, cpuTicks: UInt64) -> Bool {
        let turn = UInt64(tid) &+ passIndex
        if turn % Self.idleIdentityEvery == 0 { return true }
        return turn % Self.identityEvery == 0 && cpuTicks != identity.cpuTicks
    }

    private func gone(_ tid: Int32) {
        identities[tid] = nil
        relistNow = true
    }

    /// The next slot of the fixed schedule after `nowNs`: passes missed while late are skipped,
    /// not run back to back.
    private func nextDeadline(after deadlineNs: UInt64, nowNs: UInt64) -> UInt64 {
        let next = deadlineNs + intervalNs
        guard nowNs >= next else { return next }
        return next + (nowNs - next) / intervalNs * intervalNs + intervalNs
    }

    private func threadCPUNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
