import FoundationEssentials
import Glibc
import LagmonCore
import LagmonSymbols
import Synchronization

/// One monitored run, start to finish: create the channel, start the target with the probe,
/// watch every loop the probe reports, wait for the target, collect everything.
public final class RunSession: Sendable {
    private let options: RunOptions
    private let forwarder = SignalForwarder.shared
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
            followChildren: options.followChildren, strict: strict)
        let recorder = SessionRecorder(
            settings: options.settings, clock: { channel.nowNs() }, clockBaseNs: channel.clockBaseNs)
        // Perf maps lagmon turned on are removed once the target is reaped (deferred first, so last).
        let spawnUnixSeconds = time(nil)
        var perfMapPids: [Int32] = []
        defer { JITMaps.removeMaps(of: perfMapPids, createdSince: spawnUnixSeconds) }
        let (environment, jitMapsTurnedOn) = targetEnvironment(channel: channel)
        // Orphans of the target become lagmon's children: followed until they end, or named when
        // left running (docs/design/probe.md "Following children").
        _ = Subreaper.become()
        // From the spawn on, a signal is the program's: kept until its pid is known.
        forwarder.holdForStart()
        let target: TargetProcess
        do {
            target = try TargetProcess(
                command: options.command, environment: environment, inheritedDescriptor: channel.fileDescriptor,
                signalMask: targetMask)
        } catch {
            forwarder.startFailed()
            throw error
        }
        defer { target.reap() }
        try forwarder.start(forwardingTo: target.pid)
        let subreaper = Subreaper(targetPid: target.pid)
        if jitMapsTurnedOn { perfMapPids = [target.pid] }
        // Dates a death the target cannot record (SIGKILL, `_exit`) on the kernel's word.
        let deaths = TaskDeathClock.open(clock: { channel.nowNs() })
        defer { deaths?.stop() }
        deaths?.follow(target.pid)
        let deadline = try startDeadline(pid: target.pid, subreaper: subreaper)
        let samplers = recorder.samplers(pid: target.pid, onStall: options.onStall)
        try samplers.start()
        let watchdogs = SessionWatchdogs(
            recorder: recorder, samplers: samplers, selection: options.loops, channel: channel, targetPid: target.pid,
            followChildren: options.followChildren, deaths: deaths)
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
        let sites = BlockingCallSites()
        let discovery = try JoinableThread(name: "lagmon-discover") { [self] in
            discover(channel, watchdogs, sites, subreaper, targetPid: target.pid)
        }
        let exit = try target.waitForExit()
        // The slot keeps the last state after the exit: the live view must not read it as a stall.
        progressSources.withLock { $0 = nil }
        let noticedEndNs = channel.nowNs()
        let followedEndNs = waitForFollowed(subreaper, channel: channel)
        let leftRunning = options.followChildren ? [] : subreaper.loopBearing()
        deadline?.stop()
        forwarder.stop()
        stopping.store(true, ordering: .sequentiallyConsistent)
        channel.postDiscovery()
        discovery.join()
        watchdogs.stopWatchingProcesses()
        // The end is the target's own record of its exit when it made one, else the kernel's
        // time of its death: lagmon may notice late (a loaded machine, or lagmon stopped), and
        // that must not lengthen anything.
        let diedNs = deaths?.takeDeathNs(of: target.pid).map { max(min($0, noticedEndNs), recorder.startNs) }
        let lastWordNs = diedNs ?? noticedEndNs
        let targetEndNs = watchdogs.targetEndNs(spawnNs: recorder.startNs).map { min($0, lastWordNs) } ?? lastWordNs
        // Following children, the session lasts until the last of them ended.
        let endNs = followedEndNs.map { max($0, targetEndNs) } ?? targetEndNs
        var (loops, lateness) = watchdogs.collect(channel)
        let rejectedValues = LoopRecording.keepPlausible(&loops, sessionEndNs: endNs)
        let procWatched = procWatch?.stop(atNs: endNs, loops: &loops)
        let sampled = samplers.finish()
        if jitMapsTurnedOn { perfMapPids += sampled.perfMapPids }
        // The maps JVMs wrote when lagmon asked, and their listeners' sockets once they exited.
        for request in sampled.jvmRequests { JVMAttach.clean(request, exited: kill(request.pid, 0) != 0) }
        var recording = recorder.recording(
            command: options.command, pid: target.pid, endNs: endNs, exit: exit, loops: loops,
            probe: channel.probeStatus, lateness: lateness, sampled: sampled)
        watchdogs.recordLoopSelection(into: &recording, channel: channel)
        recording.channelRejectedValues = rejectedValues + recording.loops.reduce(0) { $0 + $1.blockingCallsRejected }
        procWatch?.record(procWatched, into: &recording)
        recording.strict = strict
        recording.leftRunning = leftRunning
        if recording.loops.contains(where: { !$0.blockingCalls.isEmpty }) {
            sites.symbolize(&recording.loops, symbolizer: Symbolizer())
        }
        return recording
    }

    /// Whether blocking calls on loop threads are counted: asked for, and the preload probe (which
    /// counts them) is injected.
    private var strict: Bool { options.strict && options.preloadLibrary != nil }

    /// The `--duration` deadline, counting from now; nil without one. Following children, it
    /// ends the descendants lagmon adopted too.
    private func startDeadline(pid: pid_t, subreaper: Subreaper) throws -> TargetDeadline? {
        guard let limitNs = options.durationNs else { return nil }
        let announce = options.onDeadline ?? { _ in }
        let deadline = try TargetDeadline(limitNs: limitNs, graceNs: options.killGraceNs, announce: announce)
        if options.followChildren {
            try deadline.start(pid: pid, followed: { subreaper.adopted() })
        } else {
            try deadline.start(pid: pid)
        }
        return deadline
    }

    /// With `--follow-children`, once the target exited: waits until every descendant that
    /// outlived it (lagmon adopted them) has ended, forwarding signals to them meanwhile, and
    /// returns when (channel clock); nil when none was left or without the flag.
    private func waitForFollowed(_ subreaper: Subreaper, channel: Channel) -> UInt64? {
        guard options.followChildren, !subreaper.reapEnded().isEmpty else { return nil }
        forwarder.forward(toFollowed: { subreaper.adopted() })
        subreaper.waitForAdopted()
        return channel.nowNs()
    }

    /// Starts a watchdog for every newly published slot until the session stops.
    private func discover(
        _ channel: Channel, _ watchdogs: SessionWatchdogs, _ sites: BlockingCallSites, _ subreaper: Subreaper,
        targetPid: Int32
    ) {
        // On a deadline, like the watchdogs: call sites are named with a process's memory map,
        // read before the process exits (a probe posts discovery on each new call site).
        if strict { MonitorPriority.raiseCurrentThread() }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            watchdogs.discover(channel)
            // Adopted orphans that ended are reaped (lagmon is their parent now).
            _ = subreaper.reapEnded()
            if strict {
                // The target (lagmon started it) once its probe attached; then only the watched
                // loops' processes (checked against /proc, not the channel's word).
                if !sites.hasMap(pid: targetPid) && channel.processes().contains(where: { $0.pid == targetPid }) {
                    sites.prime(pid: targetPid)
                }
                sites.refresh(watchdogs.all.map(\.slot))
            }
            channel.waitForDiscovery(untilNs: channel.nowNs() + 250_000_000)
        }
    }

    /// The runtime whose perf map lagmon turns on; nil with `--no-jit-maps` or another program.
    private var jitMapRuntime: JITMaps.Runtime? {
        guard options.jitMaps, let program = options.command.first else { return nil }
        return JITMaps.runtime(of: program)
    }

    /// The target's environment, and whether lagmon turned a perf map on in it.
    private func targetEnvironment(channel: Channel) -> ([String], jitMaps: Bool) {
        var environment = ProcessInfo.processInfo.environment
        environment["LAGMON_CHANNEL_FD"] = String(channel.fileDescriptor)
        if options.followChildren {
            environment["LAGMON_CHANNEL_PATH"] = "/proc/\(getpid())/fd/\(channel.fileDescriptor)"
        }
        let jitMaps = jitMapRuntime.map { JITMaps.enable($0, in: &environment) } ?? false
        guard let preloadLibrary = options.preloadLibrary else { return (Self.pairs(environment), jitMaps) }
        if let existing = environment["LD_PRELOAD"], !existing.isEmpty {
            environment["LD_PRELOAD"] = preloadLibrary + ":" + existing
        } else {
            environment["LD_PRELOAD"] = preloadLibrary
        }
        return (Self.pairs(environment), jitMaps)
    }

    private static func pairs(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }.sorted()
    }
}
