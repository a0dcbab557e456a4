import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// Watches one loop thread from outside, on a thread of its own: every `intervalNs` it reads the
/// thread's /proc files, turns the reading into a loop snapshot with a `ProcLoopProbe`, and shows
/// the snapshot to a `StallDetector` — at once when it changed, otherwise when the detector asked
/// to look again — whose events go to the samplers exactly as a watchdog's do. Ends by itself
/// when the process or the thread exits, or at `endNs`.
final class ProcLoopWatcher: Sendable {
    /// How to watch.
    struct Settings: Sendable {
        /// Time between readings.
        var intervalNs: UInt64
        /// The detector's tuning (threshold, sampling cadence, arming lead).
        var detector: StallDetector.Configuration
        /// Readings later than this count as late.
        var latenessToleranceNs: UInt64
        /// Stop reading at this instant (session clock); nil: until stopped.
        var endNs: UInt64?
        /// Bounds the stall records kept (a long `lagmon attach`); nil: all are kept.
        var retention: StallRetention?
    }

    /// Why the watching ended.
    enum Ending: Sendable, Equatable {
        /// `stop()` was called.
        case stopped
        /// `Settings.endNs` passed.
        case duration
        /// The process exited.
        case processExited
        /// The watched thread exited; the process lives on.
        case threadExited
        /// The thread's files could no longer be read.
        case unreadable(ProcLoopFiles.Failure)
    }

    /// Everything watched, once the watcher stopped.
    struct Result {
        var loop: LoopRecording
        var lateness: LatenessTally
        var ending: Ending
        /// Readings taken, and the CPU time the watcher thread used (wake-ups included).
        var readings: UInt64
        var cpuNs: UInt64
    }

    /// The watched thread.
    let thread: ThreadRef
    /// The watched thread's process.
    private let pid: Int32
    private let settings: Settings
    private let clock: @Sendable () -> UInt64
    private let onEvent: @Sendable (StallDetector.Event) -> Void
    /// Receives the starts of stalls folded out of the records (their samples can go); called
    /// on the watcher thread, after their ends were passed to `onEvent`.
    private let onFold: (@Sendable ([UInt64]) -> Void)?
    /// Receives the length of each stall whose record completed though the detector never saw
    /// it while it lasted (a reading came late): live metrics count it then, not only at the
    /// session's end, which a host agent may never reach. Called on the watcher thread.
    private let onUnseenStall: (@Sendable (UInt64) -> Void)?
    /// Readable once the process exited: tells a process's exit from its thread's when a reading
    /// finds the thread gone (an exiting process's threads all read as gone). -1 when pidfd_open
    /// is unavailable: every end is then a thread's.
    private let exitDescriptor: Int32
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let live: Mutex<LiveState>
    /// Counts the stack sampler's stop windows on the thread (`samplerStopWindow`): odd while one
    /// is open. Written by the sampler thread only.
    private let stopWindows = Atomic<UInt64>(0)
    /// Readings of the thread's state taken by the stack sampler (`noteStop`), not yet recorded.
    private let sampledReadings = Mutex<[ProcLoopReading]>([])
    /// Posted once the first reading was taken (or the watcher ended without one).
    private let firstReading = Semaphore()
    private let worker = WorkerThread()
    /// A copy of the recording so far, handed over by the watcher thread when `snapshot` asks.
    private let snapshotWanted = Atomic<Bool>(false)
    private let snapshotTaken = Mutex<Handover?>(nil)
    /// What the watcher thread copies for `snapshot` (copy-on-write: cheap until it records more).
    private struct Handover {
        var probe: ProcLoopProbe
        var noticed: [UInt64: UInt64]
        var lateness: LatenessTally
        var readings: UInt64
    }
    /// What the watcher thread works on; the stopper's once it joined the thread.
    private struct Owned {
        /// The thread's /proc files (their reads share one buffer).
        let files: ProcLoopFiles
        var probe: ProcLoopProbe
        var detector: StallDetector
        var lateness: LatenessTally
        var liveStallNoticedNs: [UInt64: UInt64] = [:]
        var ending = Ending.stopped
        /// The snapshot the detector last saw, and when it wants to look again.
        var looked = LoopSnapshot(activity: .none, sinceNs: 0)
        var lookNs: UInt64 = 0
        var readings: UInt64 = 0
        /// When the latest reading recorded ended: older ones arriving from the sampler are late.
        var recordedUntilNs: UInt64 = 0
        var busyCountPublished: UInt64 = 0
        var cpuNs: UInt64 = 0
    }
    private let owned: ThreadOwned<Owned>

    /// What the live view reads while watching.
    struct LiveState: Sendable {
        var snapshot = LoopSnapshot(activity: .none, sinceNs: 0)
        var stalls = 0
        var worstNs: UInt64 = 0
        /// Iterations, busy time and busy periods by `LatencyBuckets` index so far (live metrics).
        var passes: UInt64 = 0
        var busyNs: UInt64 = 0
        var busyBuckets: [Int: UInt64] = [:]
    }

    /// A watcher of `thread` of process `files.pid`, reading `files`; `clock` is the session
    /// clock, `onEvent` receives the detector's events on the watcher thread, `onFold` and
    /// `onUnseenStall` what their properties say.
    init(
        files: ProcLoopFiles, thread: ThreadRef, clock: @escaping @Sendable () -> UInt64, settings: Settings,
        onEvent: @escaping @Sendable (StallDetector.Event) -> Void,
        onFold: (@Sendable ([UInt64]) -> Void)? = nil, onUnseenStall: (@Sendable (UInt64) -> Void)? = nil
    ) {
        pid = files.pid
        self.thread = thread
        self.clock = clock
        self.settings = settings
        self.onEvent = onEvent
        self.onFold = onFold
        self.onUnseenStall = onUnseenStall
        self.exitDescriptor = lagmon_pidfd_open(files.pid)
        var probe = ProcLoopProbe(thresholdNs: settings.detector.thresholdNs)
        probe.retention = settings.retention
        owned = ThreadOwned(
            Owned(
                files: files, probe: probe, detector: StallDetector(configuration: settings.detector),
                lateness: LatenessTally(toleranceNs: settings.latenessToleranceNs)))
        self.live = Mutex(LiveState())
    }

    deinit {
        if exitDescriptor >= 0 { close(exitDescriptor) }
    }

    /// Starts the watcher thread; its first reading is taken at once.
    func start() throws(SystemError) {
        try worker.start(name: "lagmon-proc") { [self] in
            owned.claim()
            MonitorPriority.raiseLookingThread()
            run()
        }
    }

    /// Blocks until the watcher took its first reading (or ended), so what happens after is seen.
    func waitForFirstReading() {
        firstReading.wait()
        firstReading.post()
    }

    /// A stack sample stopped the thread between `requestedNs` and `stoppedNs` in `state`
    /// (`ProcLoopReading.state(atStopIn:waitChannelBefore:)`). A sample that finds the loop back
    /// in its wait call is a reading as good as the watcher's own: it ends the stall there,
    /// however late the watcher's next reading comes on a loaded machine. Only those are taken: a
    /// busy one between two late readings in the wait call would stand for a wake-up in the
    /// middle of their span and a busy period as long as half of it, where the schedstat sizes the
    /// iteration the watcher missed. Called from the sampler thread.
    func noteStop(requestedNs: UInt64, stoppedNs: UInt64, state: ProcLoopReading.State) {
        guard state == .waiting else { return }
        let reading = ProcLoopReading(state: state, beganNs: requestedNs, endedNs: stoppedNs)
        sampledReadings.withLock { $0.append(reading) }
    }

    /// The stack sampler may put the thread in a ptrace stop from now on (`open`), or let it go
    /// (`StackSampler.onStopWindow`). A reading in a wait call taken while a window was open is
    /// not recorded: the `syscall` file of a stopped thread shows the call it stopped in, even
    /// when that call had returned and the loop was awake (a wait whose timeout fired while the
    /// thread waited for a CPU: that stop ended the run-queue wait's busy period as a sleep and
    /// split one busy period into two stalls). The sampler's own reading of the stop, from the
    /// registers, stands for it (`noteStop`). Called from the sampler thread.
    func samplerStopWindow(open: Bool) {
        let count = stopWindows.load(ordering: .relaxed)
        guard (count % 2 == 1) != open else { return }
        stopWindows.store(count + 1, ordering: .releasing)
    }

    /// Whether the watcher ended by itself (the process or thread exited, or the duration passed).
    var hasFinished: Bool { finished.load(ordering: .acquiring) }

    /// The loop's state, stalls so far and the worst of them, for the live view.
    var liveState: LiveState { live.withLock { $0 } }

    /// Stops watching (if it has not ended already) and returns everything watched; a busy
    /// period still open ends at `endNs`.
    func stop(atNs endNs: UInt64) -> Result {
        stopping.store(true, ordering: .sequentiallyConsistent)
        worker.join()
        owned.claim()
        owned.value.probe.finish(atNs: endNs)
        let watched = owned.value
        let loop = watched.probe.recording(
            thread: thread, pid: pid, liveStallNoticedNs: watched.liveStallNoticedNs)
        return Result(
            loop: loop, lateness: watched.lateness, ending: watched.ending, readings: watched.readings,
            cpuNs: watched.cpuNs)
    }

    /// Everything watched so far, without stopping: the watcher thread copies it between two
    /// readings (within one interval), and a busy period still open ends at `endNs` in the copy.
    /// Nil once the watcher has ended.
    func snapshot(atNs endNs: UInt64) -> Result? {
        snapshotWanted.store(true, ordering: .sequentiallyConsistent)
        while !hasFinished {
            if var taken = snapshotTaken.withLock({ slot in slot.take() }) {
                taken.probe.finish(atNs: endNs)
                let loop = taken.probe.recording(thread: thread, pid: pid, liveStallNoticedNs: taken.noticed)
                return Result(
                    loop: loop, lateness: taken.lateness, ending: .stopped, readings: taken.readings, cpuNs: 0)
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 500_000)
            nanosleep(&pause, nil)
        }
        snapshotWanted.store(false, ordering: .sequentiallyConsistent)
        return nil
    }

    private func run() {
        let startCPUNs = Self.threadCPUNs()
        defer {
            owned.value.cpuNs = Self.threadCPUNs() - startCPUNs
            finished.store(true, ordering: .releasing)
            firstReading.post()
        }
        var deadlineNs = clock()
        var announced = false
        while true {
            let windowsBefore = stopWindows.load(ordering: .acquiring)
            guard let reading = nextReading(dueAt: deadlineNs) else { break }
            let windowsAfter = stopWindows.load(ordering: .acquiring)
            let stallsBefore = owned.value.probe.stallRecords.count
            for sampled in sampledReadings.withLock({ queued in
                defer { queued.removeAll() }
                return queued
            }) where sampled.beganNs >= owned.value.recordedUntilNs && sampled.endedNs <= reading.beganNs {
                record(sampled)
            }
            if !reading.mayShowAStop(stopWindowsBefore: windowsBefore, after: windowsAfter) { record(reading) }
            if !announced {
                announced = true
                firstReading.post()
            }
            if owned.value.probe.stallRecords.count != stallsBefore {
                publishStalls(from: stallsBefore)
                foldStalls()
            }
            if owned.value.probe.busyCount != owned.value.busyCountPublished { publishTotals() }
            if snapshotWanted.exchange(false, ordering: .acquiringAndReleasing) { handOverSnapshot() }
            deadlineNs = Self.nextDeadline(after: deadlineNs, nowNs: clock(), intervalNs: settings.intervalNs)
            sleep(until: deadlineNs)
        }
    }

    /// Copies the recording so far for `snapshot`.
    private func handOverSnapshot() {
        let watched = owned.value
        let taken = Handover(
            probe: watched.probe, noticed: watched.liveStallNoticedNs, lateness: watched.lateness,
            readings: watched.readings)
        snapshotTaken.withLock { $0 = taken }
    }

    /// Records one reading and shows the detector the snapshot after it.
    private func record(_ reading: ProcLoopReading) {
        let snapshot = owned.value.probe.record(reading)
        owned.value.recordedUntilNs = reading.endedNs
        if snapshot != owned.value.looked || reading.endedNs >= owned.value.lookNs {
            look(at: snapshot, nowNs: reading.endedNs)
        }
    }

    /// Takes the reading due at `deadlineNs`; nil (with `ending` set) when watching is over.
    private func nextReading(dueAt deadlineNs: UInt64) -> ProcLoopReading? {
        if stopping.load(ordering: .sequentiallyConsistent) { return nil }
        let nowNs = clock()
        if let endNs = settings.endNs, nowNs >= endNs {
            owned.value.ending = .duration
            return nil
        }
        owned.value.lateness.record(deadlineNs: deadlineNs, wokeNs: nowNs)
        do {
            let reading = try owned.value.files.read(clock: clock)
            owned.value.readings += 1
            if reading.state != .gone { return reading }
            owned.value.ending = processExited() ? .processExited : .threadExited
        } catch .gone {
            owned.value.ending = processExited() ? .processExited : .threadExited
        } catch {
            owned.value.ending = processExited() ? .processExited : .unreadable(error)
        }
        return nil
    }

    /// Whether the process has exited. Asked when its thread is gone: the process's other
    /// threads may still be exiting, so its pidfd gets up to 100 ms to become readable.
    private func processExited() -> Bool {
        guard exitDescriptor >= 0 else { return false }
        var poller = pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)
        var result: Int32
        repeat { result = poll(&poller, 1, 100) } while result < 0 && errno == EINTR
        return result > 0
    }

    /// Shows `snapshot` to the detector, passes its events on, and notes when to look again.
    private func look(at snapshot: LoopSnapshot, nowNs: UInt64) {
        let (events, wake) = owned.value.detector.observe(snapshot, nowNs: nowNs)
        for event in events {
            if case .began(let stall) = event { owned.value.liveStallNoticedNs[stall.startNs] = stall.noticedNs }
            onEvent(event)
        }
        owned.value.looked = snapshot
        live.withLock { $0.snapshot = snapshot }
        switch wake {
        case .at(let atNs): owned.value.lookNs = atNs
        case .parked(let untilNs): owned.value.lookNs = untilNs
        }
    }

    /// Publishes the probe's iteration and busy totals (on each completed busy period: the
    /// buckets are shared copy-on-write, copied again only by the probe's next change).
    private func publishTotals() {
        let probe = owned.value.probe
        owned.value.busyCountPublished = probe.busyCount
        let (passes, busyNs, buckets) = (probe.passes, probe.busyTotalNs, probe.busyBuckets)
        live.withLock { state in
            state.passes = passes
            state.busyNs = busyNs
            state.busyBuckets = buckets
        }
    }

    /// Folds the stall records down to what the retention keeps, when it is time: forgets when
    /// the folded stalls were noticed and lets their samples go, with those of stalls the
    /// detector noticed under a start no record has (their samples are no record's evidence).
    private func foldStalls() {
        let noticed = owned.value.liveStallNoticedNs
        let newestNs = owned.value.probe.stallRecords.last?.startNs ?? 0
        let folded = owned.value.probe.foldStalls { noticed[$0] != nil }
        guard !folded.isEmpty else { return }
        // Kept: the entries of the records kept, and of stalls not recorded yet (later than the
        // newest record, folded or not).
        let kept = Set(owned.value.probe.stallRecords.map(\.startNs))
        let (keep, forget) = noticed.keys.reduce(into: (Set<UInt64>(), [UInt64]())) { split, key in
            if kept.contains(key) || key > newestNs { split.0.insert(key) } else { split.1.append(key) }
        }
        owned.value.liveStallNoticedNs = noticed.filter { keep.contains($0.key) }
        onFold?(Array(Set(folded).union(forget)))
    }

    /// Counts the stalls that ended since `index` into the live state, and hands those the
    /// detector never saw to `onUnseenStall`.
    private func publishStalls(from index: Int) {
        let records = owned.value.probe.stallRecords[index...]
        if let onUnseenStall {
            for record in records where owned.value.liveStallNoticedNs[record.startNs] == nil {
                onUnseenStall(record.endNs > record.startNs ? record.endNs - record.startNs : 0)
            }
        }
        let worstNs = records.map { $0.endNs > $0.startNs ? $0.endNs - $0.startNs : 0 }.max() ?? 0
        live.withLock { state in
            state.stalls += records.count
            state.worstNs = max(state.worstNs, worstNs)
        }
    }

    /// Sleeps until `deadlineNs` (session clock).
    private func sleep(until deadlineNs: UInt64) {
        let nowNs = clock()
        if deadlineNs > nowNs {
            // An absolute deadline, so an interrupted sleep resumes towards the same instant.
            let wakeNs = MonotonicClock.nowNs() + (deadlineNs - nowNs)
            var wake = timespec(tv_sec: Int(wakeNs / 1_000_000_000), tv_nsec: Int(wakeNs % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) == EINTR {}
        }
    }

    private static func threadCPUNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The next slot of the fixed schedule after `nowNs`; slots missed while late are skipped.
    static func nextDeadline(after deadlineNs: UInt64, nowNs: UInt64, intervalNs: UInt64) -> UInt64 {
        let next = deadlineNs + intervalNs
        guard nowNs >= next else { return next }
        return next + (nowNs - next) / intervalNs * intervalNs + intervalNs
    }
}

extension SessionProgress {
    /// This progress with a /proc-watched loop's live state: its stalls, and what it does now.
    func adding(_ state: ProcLoopWatcher.LiveState, nowNs: UInt64, thresholdNs: UInt64) -> SessionProgress {
        var progress = self
        progress.stallCount += state.stalls
        progress.worstStallNs = max(progress.worstStallNs, state.worstNs)
        let ageNs = nowNs > state.snapshot.sinceNs ? nowNs - state.snapshot.sinceNs : 0
        if state.snapshot.activity.isIdle {
            progress.loop = .idle
        } else if ageNs > thresholdNs {
            progress.loop = .stalled(state.snapshot.activity, forNs: ageNs)
            progress.stallCount += 1
            progress.worstStallNs = max(progress.worstStallNs, ageNs)
        } else {
            progress.loop = .busy(state.snapshot.activity)
        }
        return progress
    }
}
