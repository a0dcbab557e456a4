import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// Reads every thread's CPU time of the target on a thread of its own, every `intervalNs`,
/// and feeds a `ThreadCPUTracker`; alerts go to `onAlert` as they happen (on the sampler
/// thread, so a stack can be taken at once). The target may exit at any moment: its threads
/// then simply stop being listed, and the first pass that finds none ends the sampling (the
/// pid might otherwise be reused by another process).
public final class ThreadCPUSampler: Sendable {
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
    private let onAlert: @Sendable (CPUAlertEvent) -> Void
    private let stopping = Atomic<Bool>(false)
    private let wakeup = Semaphore()
    private let measured: Mutex<Cost>
    /// The main thread's CPU use over the latest interval, for the live view.
    private let mainPct = Mutex<Double?>(nil)
    /// The latest pass's readings, for live metrics.
    private let latest = Mutex<[ThreadCPUReading]>([])
    private let thread = WorkerThread()
    /// The passes' state: the sampler thread's, the stopper's once it joined it.
    private let passes: ThreadOwned<ThreadCPUPasses>
    private let readsSchedstat: Bool
    /// The most threads a pass reads.
    public let maxThreads: Int

    /// A sampler of process `pid`. Readings are stamped on the channel clock (CLOCK_MONOTONIC
    /// minus `clockBaseNs`), the clock `tracker`'s target start is on; a pass reads at most
    /// `maxThreads` threads.
    public init(
        pid: Int32, tracker: ThreadCPUTracker, intervalNs: UInt64 = 250_000_000, clockBaseNs: UInt64 = 0,
        maxThreads: Int = 4096, latenessToleranceNs: UInt64 = 10_000_000,
        onAlert: @escaping @Sendable (CPUAlertEvent) -> Void = { _ in }
    ) {
        self.pid = pid
        self.intervalNs = max(intervalNs, 1_000_000)
        self.onAlert = onAlert
        self.maxThreads = maxThreads
        let passes = ThreadCPUPasses(pid: pid, tracker: tracker, clockBaseNs: clockBaseNs, maxThreads: maxThreads)
        readsSchedstat = passes.readsSchedstat
        self.passes = ThreadOwned(passes)
        self.measured = Mutex(Cost(lateness: LatenessTally(toleranceNs: latenessToleranceNs)))
    }

    /// Starts the sampler thread (once); its first pass happens at once.
    public func start() throws(SystemError) {
        guard !thread.isStarted else { return }
        try thread.start(name: "lagmon-cpu") { [self] in
            passes.claim()
            run()
        }
    }

    /// Stops the thread and returns the tracker with everything it recorded.
    public func stop() -> ThreadCPUTracker {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.post()
        thread.join()
        passes.claim()
        return passes.value.tracker
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
            guard let pass = passes.value.pass() else { break }
            publish(pass)
            measured.withLock { $0.cpuNs = threadCPUNs() - startCPUNs }
            deadlineNs = nextDeadline(after: deadlineNs, nowNs: MonotonicClock.nowNs())
            // Posted only by stop(): a timeout is the normal way out.
            wakeup.wait(untilMonotonicNs: deadlineNs)
        }
        passes.value.close()
        measured.withLock { $0.cpuNs = threadCPUNs() - startCPUNs }
    }

    /// Hands what a pass found to the readers on other threads and to `onAlert`.
    private func publish(_ pass: ThreadCPUPasses.Pass) {
        mainPct.withLock { $0 = pass.mainPct }
        latest.withLock { $0 = pass.readings }
        measured.withLock { cost in
            cost.passes += 1
            cost.threadsRead += UInt64(pass.readings.count) - pass.carried
            cost.threadsCarried += pass.carried
            cost.threadsVanished += pass.vanished
            cost.listings += pass.listings
            if pass.capped { cost.cappedPasses += 1 }
            cost.threadsSeenWhenCapped = max(cost.threadsSeenWhenCapped, pass.seenWhenCapped)
        }
        pass.events.forEach(onAlert)
    }

    /// The unit of CPU time the sampler feeds a tracker of `pid`'s threads: nanoseconds from
    /// `schedstat` where the kernel has it, else clock ticks from `stat`.
    public static func cpuTicksPerSecond(pid: Int32) -> UInt64 {
        ProcFS.readFile(ProcFS.taskPath(pid: pid, tid: pid, "schedstat")).flatMap(ProcSchedstat.parse) != nil
            ? schedstatTicksPerSecond : ProcFS.ticksPerSecond
    }

    static let schedstatTicksPerSecond: UInt64 = 1_000_000_000

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
