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
        /// Thread readings carried over from the pass before without a read, because the
        /// process's CPU clock proved that those threads had not run since.
        public var threadsCarried: UInt64 = 0
        /// Threads listed that were gone (or unreadable) by the time their stat file was read.
        public var threadsVanished: UInt64 = 0
        /// Passes that found more threads than the cap and read only the first ones.
        public var cappedPasses: UInt64 = 0
        /// The most threads a capped listing found (0 when none was capped).
        public var threadsSeenWhenCapped = 0
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
    /// The process's CPU clock (every thread's time, those that exited included); nil where
    /// it cannot be read. See `partialPass()`.
    private var processClock: clockid_t?
    /// The process's CPU time that no listed thread holds (threads that exited), known after a
    /// pass that read every listed thread while none of them ran; nil until then.
    private var unlistedNs: UInt64?
    /// Each listed thread's latest reading, and for how many readings in a row its CPU time has
    /// not changed.
    private var carried: [Int32: (reading: ThreadCPUReading, quietPasses: UInt8)] = [:]
    private var carriedThisPass: UInt64 = 0

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

    /// The thread cap, when a listing found more threads than it (final once `stop()` returned).
    public var threadCap: ThreadCap? {
        let seen = cost.threadsSeenWhenCapped
        return seen > 0 ? ThreadCap(limit: maxThreads, threadsSeen: seen) : nil
    }

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
    /// A thread is carried over (not read) once this many readings in a row found its CPU time
    /// unchanged: one that runs now and then (a timer every few passes) stays read, and so rarely
    /// fails the proof of `partialPass()` that every thread must be read.
    static let quietPassesToCarry: UInt8 = 8

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
        carriedThisPass = 0
        var readings = partialPass() ?? fullPass()
        if readings.isEmpty {
            // Every listed thread is gone: the process too, or a new set of threads.
            guard relist() else { return false }
            readings = fullPass()
        }
        let nowNs = MonotonicClock.nowNs()
        let events = tracker.record(readings, atNs: nowNs > clockBaseNs ? nowNs - clockBaseNs : 0)
        let latestMain = tracker.latestPct(of: pid)
        mainPct.withLock { $0 = latestMain }
        latest.withLock { $0 = readings }
        measured.withLock { [listed, listingCapped, carriedThisPass] cost in
            cost.passes += 1
            cost.threadsRead += UInt64(readings.count) - carriedThisPass
            cost.threadsCarried += carriedThisPass
            cost.threadsVanished += UInt64(listed.count - readings.count)
            if listingCapped { cost.cappedPasses += 1 }
        }
        events.forEach(onAlert)
        return true
    }

    /// Whether the threads may differ from the listing: their number changed, or it cannot be
    /// known (then every `relistEvery` passes).
    private func threadsChanged() -> Bool {
        guard !listingCapped, let count = threadCount() else { return passIndex % Self.relistEvery == 0 }
        return count != listed.count
    }

    /// How many threads the process has now: the link count of its task directory, opened once
    /// (one `fstat`, where a listing costs ~0.5 ms per 1000 threads, and a capped one stops at
    /// the cap); nil when the directory cannot be opened or says nothing.
    private func threadCount() -> Int? {
        if taskDirectory < 0 {
            taskDirectory = "/proc/\(pid)/task".withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        return taskDirectory >= 0 ? ProcFS.threadCount(taskDirectory: taskDirectory) : nil
    }

    /// Lists the threads again; false when there are none (the process is gone).
    private func relist() -> Bool {
        let tids = ProcFS.taskIDs(pid: pid, limit: maxThreads + 1)
        guard !tids.isEmpty else { return false }
        listingCapped = tids.count > maxThreads
        listed = Array(tids.prefix(maxThreads))
        let seen = listingCapped ? max(tids.count, threadCount() ?? 0) : 0
        measured.withLock {
            $0.listings += 1
            $0.threadsSeenWhenCapped = max($0.threadsSeenWhenCapped, seen)
        }
        let alive = Set(listed)
        statFiles?.forget(allBut: alive)
        schedstatFiles?.forget(allBut: alive)
        identities = identities.filter { alive.contains($0.key) }
        carried = carried.filter { alive.contains($0.key) }
        // Threads came or went: what the listed threads do not hold is known again only after
        // a full pass.
        unlistedNs = nil
        relistNow = false
        return true
    }

    /// Every listed thread read; when no thread of the process ran while they were read (its
    /// CPU clock the same before and after, so every reading holds at one instant), what the
    /// listed threads do not hold (threads that exited, threads past the cap) becomes known.
    private func fullPass() -> [ThreadCPUReading] {
        let before = processCPUNs()
        let readings = read(listed)
        let after = processCPUNs()
        readings.forEach(remember)
        let listedNs = readings.reduce(UInt64(0)) { $0 &+ $1.cpuTicks }
        if readsSchedstat, let before, before == after, readings.count == listed.count, before >= listedNs {
            unlistedNs = before - listedNs
        } else {
            unlistedNs = nil
        }
        return readings
    }

    /// Reads only the threads that ran lately (and new ones) and carries the others' readings
    /// over, when the process's CPU clock proves that exact: nil (read them all) otherwise. For
    /// another process that clock is the sum of every thread's `sum_exec_runtime`, the very
    /// figure `schedstat` shows, and of the threads that exited. Read after the reads, it is at
    /// least what exited plus every reading (a thread's time only grows); equal to it, it leaves
    /// no room for any thread to have run since its reading, so each carried reading is what a
    /// read would have given. A thread on a CPU moves its time at scheduler ticks, so the proof
    /// fails when a tick fell between a running thread's read and the clock's, or a carried
    /// thread woke; then the pass reads every thread, as one without the clock does.
    private func partialPass() -> [ThreadCPUReading]? {
        guard readsSchedstat, let unlistedNs else { return nil }
        var readings = listed.map { carried[$0] }
        let stale = readings.indices.filter { (readings[$0]?.quietPasses ?? 0) < Self.quietPassesToCarry }
        var fresh: [ThreadCPUReading] = []
        fresh.reserveCapacity(stale.count)
        for index in stale {
            guard let reading = readSchedstat(listed[index]) else { return nil }
            fresh.append(reading)
        }
        guard let clockNs = processCPUNs() else { return nil }
        for (index, reading) in zip(stale, fresh) { readings[index] = (reading, 0) }
        let sumNs = readings.reduce(unlistedNs) { $0 &+ ($1?.reading.cpuTicks ?? 0) }
        guard clockNs == sumNs else { return nil }
        var passReadings = readings.compactMap { $0?.reading }
        refreshIdentities(in: &passReadings)
        fresh.forEach(remember)
        carriedThisPass = UInt64(passReadings.count - fresh.count)
        return passReadings
    }

    /// A carried thread's name and state, read from `stat` on the schedule of a thread that
    /// did not run (another thread may rename it).
    private func refreshIdentities(in readings: inout [ThreadCPUReading]) {
        for index in readings.indices {
            let tid = readings[index].tid
            guard (UInt64(tid) &+ passIndex) % Self.idleIdentityEvery == 0,
                (carried[tid]?.quietPasses ?? 0) >= Self.quietPassesToCarry,
                let stat = statFiles?.read(tid: tid, { ProcTaskStat.parse(Array($0)) })
            else { continue }
            readings[index].name = stat.comm
            readings[index].state = stat.state
            carried[tid]?.reading = readings[index]
            identities[tid]?.name = stat.comm
            identities[tid]?.state = stat.state
        }
    }

    /// Keeps a fresh reading for the next pass, counting the readings in a row it did not change.
    private func remember(_ reading: ThreadCPUReading) {
        let quiet = carried[reading.tid].map { last in
            last.reading.cpuTicks == reading.cpuTicks ? last.quietPasses &+ (last.quietPasses < .max ? 1 : 0) : 0
        }
        carried[reading.tid] = (reading, quiet ?? 0)
    }

    /// The process's CPU time (CLOCK_PROCESS_CPUTIME_ID of `pid`); nil when it cannot be read.
    private func processCPUNs() -> UInt64? {
        if processClock == nil {
            var clock = clockid_t()
            guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
            processClock = clock
        }
        guard let processClock else { return nil }
        var time = timespec()
        guard clock_gettime(processClock, &time) == 0 else { return nil }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
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
