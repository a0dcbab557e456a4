import FoundationEssentials
import Glibc
import LagmonCore
import Synchronization

/// One `lagmon attach`, start to finish: open the watched thread's /proc files (refusals show
/// here, before anything runs), watch it with the /proc probe and the usual samplers until a stop
/// signal, the duration or the process's exit, detach from everything, collect.
///
/// The process is never signalled or left stopped: stack samples stop one thread for
/// microseconds, and every seized thread is detached before `run()` returns (if lagmon itself is
/// killed, the kernel detaches them).
public final class AttachSession: @unchecked Sendable {
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

    /// What a session recorded and how it ended.
    public struct Outcome: Sendable {
        public var recording: SessionRecording
        public var ending: Ending
    }

    /// Why the report says the loop was watched from /proc.
    public static let reason = "lagmon attached to a running process"

    private let options: AttachOptions
    /// Set while watching, for `progress()`.
    private let watching = Mutex<(watcher: ProcLoopWatcher, samplers: SessionSamplers, clock: SessionClock)?>(nil)

    public init(options: AttachOptions) {
        self.options = options
    }

    /// Watches until the session ends; `attached` is called once the first reading was taken
    /// (the process is being watched from then on). Throws `AttachFailure` when the thread
    /// cannot be read.
    public func run(attached: () -> Void = {}) throws(AttachFailure) -> Outcome {
        StopSignals.block()
        let target = options.target
        let files = try Self.openFiles(target)
        let clock = SessionClock()
        let recorder = SessionRecorder(settings: options.settings, clock: { clock.nowNs() }, clockBaseNs: clock.baseNs)
        let samplers = recorder.samplers(pid: target.pid, onStall: options.onStall)
        let watcher = recorder.procWatcher(
            files: files, thread: target.thread, intervalNs: options.probeIntervalNs,
            endNs: options.durationNs.map { recorder.startNs + $0 }, retention: options.retention
        ) { [tid = target.thread.tid] event in samplers.handle(event, tid: tid) }
        watcher.onFold = { keys in samplers.drop(keys: keys) }
        samplers.dropsUnstalled = true
        samplers.feed(watcher)
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
        attached()
        // From here on the live view may draw (after whatever `attached` printed).
        watching.withLock { $0 = (watcher, samplers, clock) }
        let signal = waitForEnd(of: watcher) { [self] in
            let nowNs = clock.nowNs()
            guard let watched = watcher.snapshot(atNs: nowNs) else { return }
            let sampled = SessionSamplers.Outcome(
                stallSamples: [:], threads: [], unavailable: Self.snapshotStacks, samplesLost: 0, cpuPasses: 0,
                cpuNsPerPass: 0)
            options.onSnapshot?(record(watched, recorder: recorder, sampled: sampled, endNs: nowNs, exited: false))
        }
        watching.withLock { $0 = nil }
        let endNs = clock.nowNs()
        let watched = watcher.stop(atNs: endNs)
        let outcome = Self.ending(signal: signal, watched.ending)
        let recording = record(
            watched, recorder: recorder, sampled: samplers.finish(), endNs: endNs,
            exited: outcome == .processExited)
        return Outcome(recording: recording, ending: outcome)
    }

    /// How the session is going right now; nil before watching starts and after it ends.
    public func progress() -> SessionProgress? {
        guard let (watcher, samplers, clock) = watching.withLock({ $0 }) else { return nil }
        let nowNs = clock.nowNs()
        let progress = SessionProgress(
            elapsedNs: nowNs, stallCount: 0, worstStallNs: 0, loop: .notObserved,
            mainThreadCPUPct: samplers.mainThreadCPUPct)
        return progress.adding(watcher.liveState, nowNs: nowNs, thresholdNs: options.settings.thresholdNs)
    }

    /// Live metrics' reading of the session now; nil before watching starts and after it ends.
    public func liveSnapshot() -> LiveSnapshot? {
        guard let (watcher, samplers, _) = watching.withLock({ $0 }) else { return nil }
        let target = options.target
        let state = watcher.liveState
        let loop = LiveLoopTotals(
            pid: target.pid, processName: target.name, tid: target.thread.tid, loopName: target.thread.name,
            iterations: state.passes, busyNs: state.busyNs, busyBuckets: state.busyBuckets)
        return LiveSnapshot.live(processName: target.name, loops: [loop], samplers: samplers)
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

    /// Why a snapshot has no stacks: they are symbolized once, when the session ends.
    public static let snapshotStacks = "this is a snapshot: stacks are symbolized in the final report only"

    /// Waits for a stop signal or for the watcher to end by itself; returns the signal, if any.
    /// With `onSnapshot` set, SIGHUP and each `snapshotEveryNs` call `snapshot` instead.
    private func waitForEnd(of watcher: ProcLoopWatcher, snapshot: () -> Void) -> Int32? {
        let every = options.onSnapshot == nil ? nil : options.snapshotEveryNs
        var dueNs = every.map { MonotonicClock.nowNs() + $0 }
        while !watcher.hasFinished {
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

    private func record(
        _ watched: ProcLoopWatcher.Result, recorder: SessionRecorder, sampled: SessionSamplers.Outcome, endNs: UInt64,
        exited: Bool
    ) -> SessionRecording {
        var recording = recorder.recording(
            command: options.target.command, pid: options.target.pid, endNs: endNs, exit: nil, loops: [watched.loop],
            probe: ProbeStatus(), lateness: LatenessTally(toleranceNs: options.settings.latenessToleranceNs),
            sampled: sampled)
        recording.attached = AttachedTarget(exited: exited)
        recording.loopSelection = options.threadSelection
        SessionRecorder.add(
            watched, settings: ProcProbeSettings(intervalNs: options.probeIntervalNs, reason: Self.reason),
            to: &recording)
        return recording
    }
}
