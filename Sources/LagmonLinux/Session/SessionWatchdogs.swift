import LagmonCore
import Synchronization

/// The watchdogs of a `lagmon run`: one per loop the probes publish that `--loops` selects,
/// started as loops appear, stopped early when their process ends (an exit or an exec), and
/// collected into loop recordings at the end. Safe from any thread.
final class SessionWatchdogs: Sendable {
    private let recorder: SessionRecorder
    private let samplers: SessionSamplers
    private let running = Mutex<[Int: Watchdog]>([:])
    /// Results of watchdogs stopped before the end because their process ended.
    private let stoppedEarly = Mutex<[Int: Watchdog.Result]>([:])
    /// Loop selection and the processes of the session.
    private let loops: SessionLoops
    /// The Swift pool's coarse clock, started with the first watched Swift job slot.
    private let ticker = Mutex<SwiftJobTicker?>(nil)

    init(
        recorder: SessionRecorder, samplers: SessionSamplers, selection: LoopSelection, channel: Channel,
        targetPid: Int32, followChildren: Bool, deaths: TaskDeathClock?
    ) {
        self.recorder = recorder
        self.samplers = samplers
        loops = SessionLoops(
            selection: selection, channel: channel, targetPid: targetPid, followChildren: followChildren,
            deaths: deaths)
    }

    /// Starts watching for the exits of the session's processes.
    func start() throws {
        try loops.start { [weak self] pid, endedNs in self?.stop(pid: pid, endedByNs: endedNs) }
    }

    /// Stops watching processes (the session is over).
    func stopWatchingProcesses() { loops.stop() }

    /// The watchdogs so far, in slot order.
    var all: [Watchdog] { running.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value) }

    /// One discovery pass: stops the watchdogs of images an exec replaced, and starts one for
    /// every newly published loop that is watched. A watchdog whose thread cannot start is not
    /// kept, so the next pass tries again.
    func discover(_ channel: Channel) {
        for image in loops.discoverProcesses() { stop(pid: image.pid, endedByNs: image.endedNs) }
        add(channel, starting: true)
    }

    /// When the target recorded its own exit (see `SessionLoops.targetEndNs`), with the process
    /// table read again first: the exit may have come after the last discovery pass.
    func targetEndNs(spawnNs: UInt64) -> UInt64? {
        _ = loops.discoverProcesses()
        return loops.targetEndNs(spawnNs: spawnNs)
    }

    /// Stops every watchdog and reads each slot's final state (the target has exited): the loops'
    /// recordings, in slot order, and the watchdogs' punctuality.
    func collect(_ channel: Channel) -> (loops: [LoopRecording], lateness: LatenessTally) {
        add(channel, starting: false)  // slots published after the last discovery pass are only read
        let watchdogs = running.withLock { $0 }
        let early = stoppedEarly.withLock { $0 }
        let results = watchdogs.mapValues { early[$0.slot.index] ?? $0.stop() }
        var lateness = LatenessTally(toleranceNs: recorder.settings.latenessToleranceNs)
        for result in results.values { lateness.merge(result.lateness) }
        if let ticking = ticker.withLock({ $0 }) { lateness.merge(ticking.stop()) }
        let recordings = watchdogs.keys.sorted().compactMap { index -> LoopRecording? in
            guard let watchdog = watchdogs[index], let result = results[index] else { return nil }
            return loopRecording(of: watchdog.slot, result: result)
        }
        return (recordings, lateness)
    }

    /// What `--loops` asked for, the processes seen, and the loops left unwatched.
    func recordLoopSelection(into recording: inout SessionRecording, channel: Channel) {
        recording.loopSelection = loops.selection.description
        recording.processes = loops.processRecordings()
        recording.unwatchedLoops = channel.unwatchedLoops
        recording.unfollowedProcesses = channel.unfollowedProcesses
        recording.unselectedLoopNames = loops.unselectedNames
        recording.channelRejectedEntries = loops.rejectedEntries
    }

    /// Adds a watchdog for every published slot `--loops` selects that has none yet; starts it
    /// when `starting` and its process still runs (a loop whose process ended is only read).
    private func add(_ channel: Channel, starting: Bool) {
        for channelSlot in channel.activeSlots() where running.withLock({ $0[channelSlot.index] == nil }) {
            guard let slot = watched(channelSlot) else { continue }
            running.withLock { running in
                guard running[slot.index] == nil else { return }
                let watchdog = recorder.watchdog(of: slot, samplers: samplers)
                if starting && loops.endNs(of: slot) == nil {
                    do {
                        try watchdog.start()
                    } catch {
                        return
                    }
                    samplers.prepare(pid: slot.pid)
                    if slot.observerName == LoopObserver.swiftPool { startTicker(channel) }
                }
                running[slot.index] = watchdog
            }
        }
    }

    /// Starts the Swift pool's tick once. Until it runs, pool jobs are timed exactly; if its thread
    /// cannot start, they stay so (and the next Swift slot tries again).
    private func startTicker(_ channel: Channel) {
        ticker.withLock { ticker in
            guard ticker == nil else { return }
            let starting = SwiftJobTicker(
                channel: channel, thresholdNs: recorder.settings.thresholdNs,
                latenessToleranceNs: recorder.settings.latenessToleranceNs)
            do {
                try starting.start()
                ticker = starting
            } catch {
                return
            }
        }
    }

    /// `slot` as lagmon numbers it, if its loop belongs to the session (checked against /proc,
    /// not the channel) and is watched (`--loops`).
    private func watched(_ slot: ChannelSlot) -> ChannelSlot? {
        guard let accepted = loops.accepted(slot), loops.watchedThread(accepted) != nil else { return nil }
        return accepted
    }

    /// Stops the watchdogs of process `pid`'s loops claimed before `endedByNs`: the process (or
    /// that image of it) ended, so their last state is final. Their results are kept for the end.
    private func stop(pid: Int32, endedByNs: UInt64) {
        let ended = running.withLock { $0 }.filter { $0.value.slot.pid == pid && $0.value.slot.claimedNs < endedByNs }
        for (index, watchdog) in ended where loops.endNs(of: watchdog.slot) != nil {
            stoppedEarly.withLock { stopped in
                if stopped[index] == nil { stopped[index] = watchdog.stop() }
            }
        }
    }

    /// The recording of one watched loop: its thread as selected, and when its process ended.
    private func loopRecording(of slot: ChannelSlot, result: Watchdog.Result) -> LoopRecording {
        var loop = LoopRecording(slot: slot, result: result)
        loop.thread = loops.watchedThread(slot) ?? slot.thread
        loop.endNs = loops.endNs(of: slot)
        return loop
    }
}
