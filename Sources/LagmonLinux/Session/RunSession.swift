import FoundationEssentials
import Glibc
import LagmonCore
import Synchronization

/// One monitored run, start to finish: create the channel, start the target with the probe,
/// watch every loop the probe reports, wait for the target, collect everything.
public final class RunSession: @unchecked Sendable {
    private let options: RunOptions
    private let forwarder = SignalForwarder()
    private let stopping = Atomic<Bool>(false)
    /// What `progress()` reads, set while the target runs.
    private let progressSources = Mutex<RunProgress?>(nil)

    public init(options: RunOptions) {
        self.options = options
    }

    /// How the run is going right now; nil before the target started and after it ended. Safe
    /// from any thread.
    public func progress() -> SessionProgress? {
        progressSources.withLock { $0 }?.snapshot()
    }

    /// Live metrics' reading of the run now (docs/metrics.md); nil before the target started and
    /// after it ended. Safe from any thread.
    public func liveSnapshot() -> LiveSnapshot? {
        progressSources.withLock { $0 }?.metricsSnapshot()
    }

    /// Runs the target to completion and returns what was recorded. Throws
    /// `TargetProcess.LaunchError` when the target cannot start, `SystemError` when lagmon
    /// cannot set itself up.
    public func run() throws -> SessionRecording {
        let targetMask = SignalForwarder.blockForwardedSignals()
        let channel = try Channel(
            thresholdNs: options.settings.thresholdNs, everyThread: options.loops.needsEveryThread,
            followChildren: options.followChildren)
        let recorder = SessionRecorder(
            settings: options.settings, clock: { channel.nowNs() }, clockBaseNs: channel.clockBaseNs)
        let target = try TargetProcess(
            command: options.command, environment: targetEnvironment(channel: channel),
            inheritedDescriptor: channel.fileDescriptor, signalMask: targetMask)
        defer { target.reap() }
        try forwarder.start(forwardingTo: target.pid)
        let deadline = try startDeadline(pid: target.pid)
        let samplers = recorder.samplers(pid: target.pid, onStall: options.onStall)
        try samplers.start()
        let watchdogs = SessionWatchdogs(
            recorder: recorder, samplers: samplers, selection: options.loops, channel: channel, targetPid: target.pid,
            followChildren: options.followChildren)
        try watchdogs.start()
        defer { watchdogs.stopWatchingProcesses() }
        let procWatch = options.procProbe.map {
            MainThreadProcWatch($0, pid: target.pid, recorder: recorder, samplers: samplers)
        }
        progressSources.withLock {
            $0 = RunProgress(
                channel: channel, spawnNs: recorder.startNs, thresholdNs: options.settings.thresholdNs,
                samplers: samplers, watchdogs: watchdogs, procWatcher: procWatch?.watcher)
        }
        defer { progressSources.withLock { $0 = nil } }
        let discovery = try JoinableThread(name: "lagmon-discover") { [self] in discover(channel, watchdogs) }
        let exit = try target.waitForExit()
        deadline?.stop()
        // The slot keeps the last state after the exit: the live view must not read it as a stall.
        progressSources.withLock { $0 = nil }
        let noticedEndNs = channel.nowNs()
        forwarder.stop()
        stopping.store(true, ordering: .sequentiallyConsistent)
        channel.postDiscovery()
        discovery.join()
        watchdogs.stopWatchingProcesses()
        // The end is the target's own record of its exit when it made one: lagmon may notice
        // late (a loaded machine, or lagmon stopped), and that must not lengthen anything.
        let endNs = watchdogs.targetEndNs(spawnNs: recorder.startNs).map { min($0, noticedEndNs) } ?? noticedEndNs
        var (loops, lateness) = watchdogs.collect(channel)
        let rejectedValues = LoopRecording.keepPlausible(&loops, sessionEndNs: endNs)
        let procWatched = procWatch?.stop(atNs: endNs, loops: &loops)
        var recording = recorder.recording(
            command: options.command, pid: target.pid, endNs: endNs, exit: exit, loops: loops,
            probe: channel.probeStatus, lateness: lateness, sampled: samplers.finish())
        watchdogs.recordLoopSelection(into: &recording, channel: channel)
        recording.channelRejectedValues = rejectedValues
        procWatch?.record(procWatched, into: &recording)
        return recording
    }

    /// The `--duration` deadline, counting from now; nil without one.
    private func startDeadline(pid: pid_t) throws -> TargetDeadline? {
        guard let limitNs = options.durationNs else { return nil }
        let announce = options.onDeadline ?? { _ in }
        let deadline = try TargetDeadline(limitNs: limitNs, graceNs: options.killGraceNs, announce: announce)
        try deadline.start(pid: pid)
        return deadline
    }

    /// Starts a watchdog for every newly published slot until the session stops.
    private func discover(_ channel: Channel, _ watchdogs: SessionWatchdogs) {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            watchdogs.discover(channel)
            channel.waitForDiscovery(untilNs: channel.nowNs() + 250_000_000)
        }
    }

    private func targetEnvironment(channel: Channel) -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LAGMON_CHANNEL_FD"] = String(channel.fileDescriptor)
        if options.followChildren {
            environment["LAGMON_CHANNEL_PATH"] = "/proc/\(getpid())/fd/\(channel.fileDescriptor)"
        }
        guard let preloadLibrary = options.preloadLibrary else { return Self.pairs(environment) }
        if let existing = environment["LD_PRELOAD"], !existing.isEmpty {
            environment["LD_PRELOAD"] = preloadLibrary + ":" + existing
        } else {
            environment["LD_PRELOAD"] = preloadLibrary
        }
        return Self.pairs(environment)
    }

    private static func pairs(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }.sorted()
    }
}
