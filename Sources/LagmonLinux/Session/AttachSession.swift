import FoundationEssentials
import Glibc
import LagmonCore
import Synchronization

/// One `lagmon attach`, start to finish: open the watched thread's /proc files (refusals show
/// here, before anything runs), watch it with the /proc probe and the usual samplers until a stop
/// signal, the duration or the process's exit, detach from everything, collect. With
/// `nextTarget` set, a process that exits is not the end: the session waits for the process that
/// replaces it, watches that one on the same clock, and the recording covers them all.
///
/// The process is never signalled or left stopped: stack samples stop one thread for
/// microseconds, and every seized thread is detached before `run()` returns (if lagmon itself is
/// killed, the kernel detaches them).
public final class AttachSession: Sendable {
    /// Why the session ended.
    public enum Ending: Sendable, Equatable {
        /// A stop signal (SIGINT, SIGTERM, SIGHUP) arrived.
        case signal(Int32)
        /// `durationNs` passed.
        case duration
        /// The process exited.
        case processExited
        /// The watched thread exited while the process lives on.
        case threadExited
        /// The thread's files could no longer be read (the process exec'd a setuid program).
        case unreadable
    }

    /// A change of the watched process (`AttachOptions.nextTarget`).
    public enum Restart: Sendable, Equatable {
        /// The process exited; the session looks for the one that replaces it.
        case exited(AttachTarget)
        /// Watching the process that replaced it began.
        case attached(AttachTarget)
    }

    /// What a session recorded and how it ended.
    public struct Outcome: Sendable {
        public var recording: SessionRecording
        public var ending: Ending
    }

    /// Why the report says the loop was watched from /proc.
    public static let reason = "lagmon attached to a running process"

    /// One process being watched.
    private struct Watch {
        var target: AttachTarget
        var watcher: ProcLoopWatcher
        var samplers: SessionSamplers
        /// When watching it began (session clock).
        var startNs: UInt64
    }

    /// What `progress()` and `liveSnapshot()` read: the process watched now (nil between two),
    /// the last one's name, the samples of the processes watched before, the restarts so far.
    private struct Live {
        var watch: Watch?
        var processName: String
        var earlierSamples: (taken: UInt64, lost: UInt64) = (0, 0)
        var restarts: UInt64 = 0
    }

    private let options: AttachOptions
    private let clock = SessionClock()
    private let live = Mutex<Live?>(nil)
    /// Dates the watched process's death on the kernel's word (nil without taskstats): lagmon
    /// notices an exit up to a reading interval late, later still on a loaded machine or when
    /// stopped itself, and that must not lengthen a stall open at the death.
    private let deaths = Mutex<TaskDeathClock?>(nil)

    public init(options: AttachOptions) {
        self.options = options
    }

    /// Watches until the session ends; `attached` is called once the first reading was taken
    /// (the process is being watched from then on). Throws `AttachFailure` when the thread
    /// cannot be read.
    public func run(attached: () -> Void = {}) throws(AttachFailure) -> Outcome {
        StopSignals.block()
        // On CLOCK_MONOTONIC itself: the process started before the session's zero.
        let deaths = TaskDeathClock.open(clock: { MonotonicClock.nowNs() })
        self.deaths.withLock { $0 = deaths }
        defer { deaths?.stop() }
        let recorder = SessionRecorder(
            settings: options.settings, clock: { [clock] in clock.nowNs() }, clockBaseNs: clock.baseNs)
        var watch = try start(options.target, recorder: recorder)
        attached()
        var earlier: SessionRecording?
        var restarted = false
        while true {
            // From here on the live view may draw (after whatever `attached` printed).
            live.withLock { now in
                now = Live(
                    watch: watch, processName: watch.target.name, earlierSamples: now?.earlierSamples ?? (0, 0),
                    restarts: (now?.restarts ?? 0) + (restarted ? 1 : 0))
            }
            if restarted { options.onRestart?(.attached(watch.target)) }
            let (recording, ending, snapshotMissed) = watchUntilEnd(watch, earlier: earlier, recorder: recorder)
            let merged = Self.merging(earlier, recording)
            // A snapshot asked for as the process ended is written from its whole recording.
            if snapshotMissed && options.nextTarget != nil { options.onSnapshot?(merged) }
            guard ending == .processExited, options.nextTarget != nil else {
                live.withLock { $0 = nil }
                return Outcome(recording: merged, ending: ending)
            }
            options.onRestart?(.exited(watch.target))
            guard let next = waitForNext(after: watch.target, recording: merged, recorder: recorder) else {
                live.withLock { $0 = nil }
                return Outcome(
                    recording: Self.ended(merged, atNs: clock.nowNs()),
                    ending: .signal(lastSignal.load(ordering: .relaxed)))
            }
            restarted = true
            watch = next
            earlier = merged
        }
    }

    /// The signal that ended the wait for a restart.
    private let lastSignal = Atomic<Int32>(SIGTERM)

    /// How the session is going right now; nil before watching starts, between two processes
    /// and after it ends.
    public func progress() -> SessionProgress? {
        guard let watch = live.withLock({ $0?.watch }) else { return nil }
        let nowNs = clock.nowNs()
        let progress = SessionProgress(
            elapsedNs: nowNs, stallCount: 0, worstStallNs: 0, loop: .notObserved,
            mainThreadCPUPct: watch.samplers.mainThreadCPUPct)
        return progress.adding(watch.watcher.liveState, nowNs: nowNs, thresholdNs: options.settings.thresholdNs)
    }

    /// Live metrics' reading of the session now; nil before watching starts and after it ends.
    /// Between two processes the target is down and only lagmon's own figures move.
    public func liveSnapshot() -> LiveSnapshot? {
        guard let now = live.withLock({ $0 }) else { return nil }
        guard let watch = now.watch else {
            let own = OwnUsage.now()
            return LiveSnapshot(
                processName: now.processName, stackSamples: now.earlierSamples.taken,
                samplesLost: now.earlierSamples.lost, targetUp: false, ownCPUNs: own.cpuNs, ownRSSBytes: own.rssBytes,
                restarts: now.restarts)
        }
        let target = watch.target
        let state = watch.watcher.liveState
        let loop = LiveLoopTotals(
            pid: target.pid, processName: target.name, tid: target.thread.tid, loopName: target.thread.name,
            iterations: state.passes, busyNs: state.busyNs, busyBuckets: state.busyBuckets)
        var snapshot = LiveSnapshot.live(processName: target.name, loops: [loop], samplers: watch.samplers)
        snapshot.stackSamples += now.earlierSamples.taken
        snapshot.samplesLost += now.earlierSamples.lost
        snapshot.restarts = now.restarts
        return snapshot
    }

    static func openFiles(_ target: AttachTarget) throws(AttachFailure) -> ProcLoopFiles {
        do {
            return try ProcLoopFiles(pid: target.pid, tid: target.thread.tid)
        } catch {
            switch error {
            case .gone: throw .noSuchProcess(pid: target.pid)
            case .notPermitted(let path, let code):
                throw .notPermitted(pid: target.pid, name: target.name, path: path, code: code)
            case .other(let error): throw .failed(error)
            }
        }
    }

    /// Why a snapshot has no stacks: the stack sampler did not hand them over in time (it was
    /// busy with a slow stop); the final report has them.
    public static let snapshotStacks =
        "this is a snapshot taken while the stack sampler was busy: its stacks are in the final report only"

    /// Starts watching `target`: once this returns, its first reading was taken.
    private func start(_ target: AttachTarget, recorder: SessionRecorder) throws(AttachFailure) -> Watch {
        let files = try Self.openFiles(target)
        // A long watch from outside: samples of busy periods that were no stall go at once, a
        // thread found asleep in its wait is left alone, long periods are thinned.
        let samplers = recorder.samplers(
            pid: target.pid, onStall: options.onStall,
            policy: .init(
                dropsUnstalled: true, sparesWaitingThreads: true,
                maxSamplesPerPeriod: options.retention.samplesPerStall))
        let startNs = clock.nowNs()
        let watcher = recorder.procWatcher(
            files: files, thread: target.thread, intervalNs: options.probeIntervalNs,
            endNs: options.durationNs.map { recorder.startNs + $0 }, retention: options.retention, samplers: samplers
        ) { keys in samplers.drop(keys: keys) }
        samplers.prepare(pid: target.pid)
        do throws(SystemError) {
            try samplers.start()
            try watcher.start()
        } catch {
            _ = watcher.stop(atNs: clock.nowNs())
            _ = samplers.finish()
            throw .failed(error)
        }
        watcher.waitForFirstReading()
        deaths.withLock { $0 }?.follow(target.pid)
        return Watch(target: target, watcher: watcher, samplers: samplers, startNs: startNs)
    }

    /// Watches until a stop signal, the duration, or the process's or thread's end; returns
    /// what was recorded of this process, and whether a snapshot was asked for once the watcher
    /// had ended (too late for its reading). Snapshots hold `earlier` too.
    private func watchUntilEnd(_ watch: Watch, earlier: SessionRecording?, recorder: SessionRecorder) -> (
        SessionRecording, Ending, snapshotMissed: Bool
    ) {
        let watcher = watch.watcher
        var missed = false
        let signal = waitForEnd(until: { watcher.hasFinished }) { [self] in
            let nowNs = clock.nowNs()
            guard let watched = watcher.snapshot(atNs: nowNs) else {
                missed = true
                return
            }
            let stacks = watch.samplers.stallSamplesSoFar()
            let sampled = SessionSamplers.Outcome(
                stallSamples: stacks?.samples ?? [:], threads: [],
                unavailable: stacks == nil ? Self.snapshotStacks : stacks?.unavailable, samplesLost: 0, cpuPasses: 0,
                cpuNsPerPass: 0)
            let now = record(watched, of: watch, recorder: recorder, sampled: sampled, endNs: nowNs, exited: false)
            options.onSnapshot?(Self.merging(earlier, now))
        }
        let noticedNs = clock.nowNs()
        // A process that died ends there, however late lagmon noticed.
        let diedNs = deaths.withLock { $0 }?.takeDeathNs(of: watch.target.pid).map { death in
            max(min(death > clock.baseNs ? death - clock.baseNs : 0, noticedNs), watch.startNs)
        }
        let endNs = diedNs ?? noticedNs
        let watched = watcher.stop(atNs: endNs)
        let ending = Self.ending(signal: signal, watched.ending)
        let counts = watch.samplers.live
        live.withLock {
            $0?.watch = nil
            $0?.earlierSamples.taken += counts.taken
            $0?.earlierSamples.lost += counts.lost
        }
        let sampled = watch.samplers.finish()
        // The maps the JVM wrote when lagmon asked (it keeps its attach listener while it runs).
        for request in sampled.jvmRequests { JVMAttach.clean(request, exited: ending == .processExited) }
        let recording = record(
            watched, of: watch, recorder: recorder, sampled: sampled, endNs: endNs, exited: ending == .processExited)
        return (recording, ending, missed)
    }

    /// After `previous` exited: asks `nextTarget` every `restartPollNs` and starts watching the
    /// process it names; nil when a stop signal came first (`lastSignal`). SIGHUP and
    /// `--report-every` still write snapshots of `recording` meanwhile.
    private func waitForNext(after previous: AttachTarget, recording: SessionRecording, recorder: SessionRecorder)
        -> Watch?
    {
        guard let nextTarget = options.nextTarget else { return nil }
        var found: Watch?
        var dueNs = MonotonicClock.nowNs()
        let signal = waitForEnd(until: {
            guard found == nil, MonotonicClock.nowNs() >= dueNs else { return found != nil }
            dueNs = MonotonicClock.nowNs() + options.restartPollNs
            // One that exits before its first reading is looked for again at the next poll.
            found = nextTarget(previous).flatMap { try? start($0, recorder: recorder) }
            return found != nil
        }) { [options] in
            options.onSnapshot?(recording)
        }
        guard let signal else { return found }
        lastSignal.store(signal, ordering: .relaxed)
        if let found {
            // A stop signal right as it was found: that process is left as it was, untraced.
            _ = found.watcher.stop(atNs: clock.nowNs())
            _ = found.samplers.finish()
        }
        return nil
    }

    /// Waits for a stop signal or for `finished`; returns the signal, if any. With
    /// `onSnapshot` set, SIGHUP and each `snapshotEveryNs` call `snapshot` instead.
    private func waitForEnd(until finished: () -> Bool, snapshot: () -> Void) -> Int32? {
        let every = options.onSnapshot == nil ? nil : options.snapshotEveryNs
        var dueNs = every.map { MonotonicClock.nowNs() + $0 }
        while !finished() {
            if let signal = StopSignals.wait(timeoutNs: 20_000_000) {
                guard signal == SIGHUP, options.onSnapshot != nil else { return signal }
                snapshot()
            }
            if let every, let due = dueNs, MonotonicClock.nowNs() >= due {
                snapshot()
                dueNs = MonotonicClock.nowNs() + every
            }
        }
        return nil
    }

    private static func ending(signal: Int32?, _ watched: ProcLoopWatcher.Ending) -> Ending {
        if let signal { return .signal(signal) }
        switch watched {
        case .stopped, .duration: return .duration
        case .processExited: return .processExited
        case .threadExited: return .threadExited
        case .unreadable: return .unreadable
        }
    }

    /// `recording` of processes that all exited, ending at `endNs` (a stop signal while waiting
    /// for the next one): each loop ends with its process, the session now.
    private static func ended(_ recording: SessionRecording, atNs endNs: UInt64) -> SessionRecording {
        var recording = recording
        for index in recording.loops.indices where recording.loops[index].endNs == nil {
            recording.loops[index].endNs = recording.endNs
        }
        recording.endNs = max(recording.endNs, endNs)
        return recording
    }

    /// `later` added to the processes recorded before it, if any.
    private static func merging(_ earlier: SessionRecording?, _ later: SessionRecording) -> SessionRecording {
        guard var merged = earlier else { return later }
        merged.appendIncarnation(later)
        return merged
    }

    private func record(
        _ watched: ProcLoopWatcher.Result, of watch: Watch, recorder: SessionRecorder,
        sampled: SessionSamplers.Outcome, endNs: UInt64, exited: Bool
    ) -> SessionRecording {
        let target = watch.target
        var recording = recorder.recording(
            command: target.command, pid: target.pid, endNs: endNs, exit: nil, loops: [watched.loop],
            probe: ProbeStatus(), lateness: LatenessTally(toleranceNs: options.settings.latenessToleranceNs),
            sampled: sampled)
        recording.attached = AttachedTarget(exited: exited)
        recording.loopSelection = options.threadSelection
        if options.nextTarget != nil {
            // Each process watched is listed with its span, so a report across restarts says which was which.
            recording.processes = [
                ProcessRecording(
                    index: 0, pid: target.pid, ppid: target.ppid, command: target.command, attachedNs: watch.startNs,
                    endNs: exited ? endNs : nil)
            ]
        }
        SessionRecorder.add(
            watched, settings: ProcProbeSettings(intervalNs: options.probeIntervalNs, reason: Self.reason),
            to: &recording)
        return recording
    }
}
