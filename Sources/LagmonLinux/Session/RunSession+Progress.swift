import LagmonCore
import Synchronization

extension RunSession {
    /// What a progress snapshot is read from while the target runs.
    struct ProgressSources: @unchecked Sendable {
        var channel: Channel
        var spawnNs: UInt64
        var thresholdNs: UInt64
        var samplers: SessionSamplers
    }

    /// How the run is going right now; nil before the target started and after it ended. Safe
    /// from any thread, and cheap: a few atomic loads of the channel and two short locks; the
    /// observer in the target is not involved.
    public func progress() -> SessionProgress? {
        guard let sources = progressSources.withLock({ $0 }) else { return nil }
        let nowNs = sources.channel.nowNs()
        let running = watchdogs.withLock { $0 }.sorted { $0.key < $1.key }.map(\.value)
        var progress = SessionProgress(
            elapsedNs: nowNs > sources.spawnNs ? nowNs - sources.spawnNs : 0, stallCount: 0, worstStallNs: 0,
            loop: .notObserved, mainThreadCPUPct: sources.samplers.mainThreadCPUPct)
        for watchdog in running {
            let tally = watchdog.stallTally
            progress.stallCount += tally.stalls
            progress.worstStallNs = max(progress.worstStallNs, tally.worstNs)
        }
        // The main thread's loop when there is one, else the first loop found.
        guard let main = running.first(where: { $0.slot.thread.tid == $0.slot.pid }) ?? running.first else {
            return procWatcher.withLock({ $0 }).map {
                progress.adding($0.liveState, nowNs: nowNs, thresholdNs: sources.thresholdNs)
            } ?? progress
        }
        let snapshot = main.slot.snapshot()
        let ageNs = nowNs > snapshot.sinceNs ? nowNs - snapshot.sinceNs : 0
        if snapshot.activity.isIdle {
            progress.loop = .idle
        } else if snapshot.activity.isStalling, ageNs > sources.thresholdNs {
            progress.loop = .stalled(snapshot.activity, forNs: ageNs)
            progress.stallCount += 1
            progress.worstStallNs = max(progress.worstStallNs, ageNs)
        } else {
            progress.loop = .busy(snapshot.activity)
        }
        return progress
    }
}
