import LagmonCore

/// What a `lagmon run` progress snapshot is read from while the target runs.
struct RunProgress: Sendable {
    var channel: Channel
    var spawnNs: UInt64
    var thresholdNs: UInt64
    var samplers: SessionSamplers
    var watchdogs: SessionWatchdogs
    /// The /proc probe's watcher, when the target is watched from /proc.
    var procWatcher: ProcLoopWatcher?

    /// How the run is going right now. Cheap: a few atomic loads of the channel and two short
    /// locks; the observer in the target is not involved.
    func snapshot() -> SessionProgress {
        let nowNs = channel.nowNs()
        let running = watchdogs.all
        var progress = SessionProgress(
            elapsedNs: nowNs > spawnNs ? nowNs - spawnNs : 0, stallCount: 0, worstStallNs: 0,
            loop: .notObserved, mainThreadCPUPct: samplers.mainThreadCPUPct)
        for watchdog in running {
            let tally = watchdog.stallTally
            progress.stallCount += tally.stalls
            progress.worstStallNs = max(progress.worstStallNs, tally.worstNs)
        }
        // The main thread's loop when there is one, else the first loop found.
        guard let main = running.first(where: { $0.slot.thread.tid == $0.slot.pid }) ?? running.first else {
            return procWatcher.map { progress.adding($0.liveState, nowNs: nowNs, thresholdNs: thresholdNs) }
                ?? progress
        }
        let snapshot = main.slot.snapshot()
        let ageNs = nowNs > snapshot.sinceNs ? nowNs - snapshot.sinceNs : 0
        if snapshot.activity.isIdle {
            progress.loop = .idle
        } else if snapshot.activity.isStalling, ageNs > thresholdNs {
            progress.loop = .stalled(snapshot.activity, forNs: ageNs)
            progress.stallCount += 1
            progress.worstStallNs = max(progress.worstStallNs, ageNs)
        } else {
            progress.loop = .busy(snapshot.activity)
        }
        return progress
    }
}
