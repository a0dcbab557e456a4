import Glibc
import LagmonCore

/// The work of `ThreadCPUSampler`'s thread and all it keeps between passes: which threads are
/// listed, the files held open to read them, what each last read, and the tracker they feed. A
/// plain value the sampler's thread owns (`ThreadOwned`); each pass hands back what it found.
struct ThreadCPUPasses {
    /// What one pass found, for the sampler to publish.
    struct Pass {
        /// Every thread's reading (carried over or read).
        var readings: [ThreadCPUReading]
        /// Alerts the tracker raised.
        var events: [CPUAlertEvent]
        /// The main thread's CPU use over the latest interval.
        var mainPct: Double?
        /// Readings carried over without a read.
        var carried: UInt64
        /// Threads listed that were gone by the time they were read.
        var vanished: UInt64
        /// Whether the listing was capped at `maxThreads`.
        var capped: Bool
        /// Listings of the threads since the pass before.
        var listings: UInt64
        /// The most threads a capped listing since the pass before found (0 when none was).
        var seenWhenCapped: Int
    }

    let pid: Int32
    private let maxThreads: Int
    private let clockBaseNs: UInt64
    /// CPU time from `schedstat` in nanoseconds (the tracker counts ticks of 1 ns), or from
    /// `stat` in clock ticks.
    let readsSchedstat: Bool
    private(set) var tracker: ThreadCPUTracker
    private var statFiles: ThreadFiles?
    private var schedstatFiles: ThreadFiles?
    private var passIndex: UInt64 = 0
    private var listed: [Int32] = []
    private var listingCapped = false
    private var relistNow = true
    private var listings: UInt64 = 0
    /// The most threads a capped listing found since the last pass.
    private var seenWhenCapped = 0
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

    /// The passes over process `pid`'s threads (at most `maxThreads`), feeding `tracker` with
    /// readings stamped on the channel clock (CLOCK_MONOTONIC minus `clockBaseNs`).
    init(pid: Int32, tracker: ThreadCPUTracker, clockBaseNs: UInt64, maxThreads: Int) {
        self.pid = pid
        self.tracker = tracker
        self.clockBaseNs = clockBaseNs
        self.maxThreads = maxThreads
        readsSchedstat = tracker.configuration.ticksPerSecond == ThreadCPUSampler.schedstatTicksPerSecond
    }

    /// Closes the files held open (sampling is over).
    mutating func close() {
        statFiles?.closeAll()
        schedstatFiles?.closeAll()
        if taskDirectory >= 0 { Glibc.close(taskDirectory) }
        taskDirectory = -1
    }

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

    /// Reads all threads once and feeds the tracker; nil when the target is gone.
    mutating func pass() -> Pass? {
        if statFiles == nil {
            let budget = ThreadFiles.openBudget()
            statFiles = ThreadFiles(pid: pid, file: "stat", maxOpen: budget)
            schedstatFiles = ThreadFiles(pid: pid, file: "schedstat", maxOpen: readsSchedstat ? budget : 0)
        }
        passIndex += 1
        if relistNow || threadsChanged() {
            guard relist() else { return nil }
        }
        carriedThisPass = 0
        var readings = partialPass() ?? fullPass()
        if readings.isEmpty {
            // Every listed thread is gone: the process too, or a new set of threads.
            guard relist() else { return nil }
            readings = fullPass()
        }
        let nowNs = MonotonicClock.nowNs()
        let events = tracker.record(readings, atNs: nowNs > clockBaseNs ? nowNs - clockBaseNs : 0)
        defer {
            listings = 0
            seenWhenCapped = 0
        }
        return Pass(
            readings: readings, events: events, mainPct: tracker.latestPct(of: pid), carried: carriedThisPass,
            vanished: UInt64(listed.count - readings.count), capped: listingCapped, listings: listings,
            seenWhenCapped: seenWhenCapped)
    }

    /// Whether the threads may differ from the listing: their number changed, or it cannot be
    /// known (then every `relistEvery` passes).
    private mutating func threadsChanged() -> Bool {
        guard !listingCapped, let count = threadCount() else { return passIndex % Self.relistEvery == 0 }
        return count != listed.count
    }

    /// How many threads the process has now: the link count of its task directory, opened once
    /// (one `fstat`, where a listing costs ~0.5 ms per 1000 threads, and a capped one stops at
    /// the cap); nil when the directory cannot be opened or says nothing.
    private mutating func threadCount() -> Int? {
        if taskDirectory < 0 {
            taskDirectory = "/proc/\(pid)/task".withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        return taskDirectory >= 0 ? ProcFS.threadCount(taskDirectory: taskDirectory) : nil
    }

    /// Lists the threads again; false when there are none (the process is gone).
    private mutating func relist() -> Bool {
        let tids = ProcFS.taskIDs(pid: pid, limit: maxThreads + 1)
        guard !tids.isEmpty else { return false }
        listingCapped = tids.count > maxThreads
        listed = Array(tids.prefix(maxThreads))
        listings += 1
        if listingCapped { seenWhenCapped = max(seenWhenCapped, tids.count, threadCount() ?? 0) }
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
    private mutating func fullPass() -> [ThreadCPUReading] {
        let before = processCPUNs()
        let readings = read(listed)
        let after = processCPUNs()
        for reading in readings { remember(reading) }
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
    private mutating func partialPass() -> [ThreadCPUReading]? {
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
        for reading in fresh { remember(reading) }
        carriedThisPass = UInt64(passReadings.count - fresh.count)
        return passReadings
    }

    /// A carried thread's name and state, read from `stat` on the schedule of a thread that
    /// did not run (another thread may rename it).
    private mutating func refreshIdentities(in readings: inout [ThreadCPUReading]) {
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
    private mutating func remember(_ reading: ThreadCPUReading) {
        let quiet = carried[reading.tid].map { last in
            last.reading.cpuTicks == reading.cpuTicks ? last.quietPasses &+ (last.quietPasses < .max ? 1 : 0) : 0
        }
        carried[reading.tid] = (reading, quiet ?? 0)
    }

    /// The process's CPU time (CLOCK_PROCESS_CPUTIME_ID of `pid`); nil when it cannot be read.
    private mutating func processCPUNs() -> UInt64? {
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
    private mutating func read(_ tids: [Int32]) -> [ThreadCPUReading] {
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
    private mutating func readSchedstat(_ tid: Int32) -> ThreadCPUReading? {
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

    private mutating func gone(_ tid: Int32) {
        identities[tid] = nil
        relistNow = true
    }

}
