import LagmonCore

extension RunSession {
    /// Starts tracking the session's processes and which loops `--loops` selects.
    func startLoops(_ channel: Channel, targetPid: Int32) throws -> SessionLoops {
        let loops = SessionLoops(
            selection: options.loops, channel: channel, targetPid: targetPid, followChildren: options.followChildren
        ) { [weak self] pid, endedNs in
            self?.stopWatchdogs(pid: pid, endedByNs: endedNs)
        }
        sessionLoops = loops
        try loops.start()
        return loops
    }

    /// Whether `slot`'s loop belongs to the session (checked against /proc) and is watched
    /// (`--loops`).
    func isWatched(_ slot: ChannelSlot) -> Bool {
        guard let sessionLoops, sessionLoops.accepts(slot) else { return false }
        return sessionLoops.watchedThread(slot) != nil
    }

    /// Stops the watchdogs of images an exec replaced: their loops are over.
    func endReplacedImages() {
        for image in sessionLoops?.discoverProcesses() ?? [] {
            stopWatchdogs(pid: image.pid, endedByNs: image.endedNs)
        }
    }

    /// Stops the watchdogs of process `pid`'s loops claimed before `endedByNs`: the process (or
    /// that image of it) ended, so their last state is final. Their results are kept for the end.
    func stopWatchdogs(pid: Int32, endedByNs: UInt64) {
        let ended = watchdogs.withLock { $0 }.filter { $0.value.slot.pid == pid && $0.value.slot.claimedNs < endedByNs }
        for (index, watchdog) in ended where sessionLoops?.endNs(of: watchdog.slot) != nil {
            stoppedEarly.withLock { stopped in
                if stopped[index] == nil { stopped[index] = watchdog.stop() }
            }
        }
    }

    /// The recording of one watched loop: its thread as selected, and when its process ended.
    func loopRecording(of slot: ChannelSlot, result: Watchdog.Result) -> LoopRecording {
        var loop = Self.recording(of: slot, result: result)
        if let thread = sessionLoops?.watchedThread(slot) { loop.thread = thread }
        loop.endNs = sessionLoops?.endNs(of: slot)
        return loop
    }

    /// What `--loops` asked for, the processes seen, and the loops left unwatched.
    func recordLoopSelection(into recording: inout SessionRecording, channel: Channel) {
        recording.loopSelection = options.loops.description
        recording.processes = sessionLoops?.processRecordings() ?? []
        recording.unwatchedLoops = channel.unwatchedLoops
        recording.unfollowedProcesses = channel.unfollowedProcesses
        recording.channelRejectedEntries = sessionLoops?.rejectedEntries ?? 0
        recording.unselectedLoopNames = sessionLoops?.unselectedNames ?? []
    }
}
