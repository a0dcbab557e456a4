import LagmonCore

extension RunProgress {
    /// Live metrics' reading of the run now: every watched loop's totals (atomic loads of the
    /// channel, or the /proc watcher's state), the samplers' counts, lagmon's own cost.
    func metricsSnapshot() -> LiveSnapshot {
        let pid = samplers.pid
        let processName = ProcFS.taskStat(pid: pid, tid: pid)?.comm ?? "unknown"
        var names: [Int32: String] = [pid: processName]
        var loops = watchdogs.all.map { watchdog in
            let slot = watchdog.slot
            if names[slot.pid] == nil {
                names[slot.pid] = ProcFS.taskStat(pid: slot.pid, tid: slot.pid)?.comm ?? "unknown"
            }
            let counters = slot.counters()
            return LiveLoopTotals(
                pid: slot.pid, processName: names[slot.pid] ?? "unknown", tid: slot.thread.tid,
                loopName: slot.thread.name, iterations: counters.passes, busyNs: counters.busyTotalNs,
                busyBuckets: slot.busyBuckets())
        }
        if let watcher = procWatcher {
            let state = watcher.liveState
            loops.append(
                LiveLoopTotals(
                    pid: pid, processName: processName, tid: watcher.thread.tid, loopName: watcher.thread.name,
                    iterations: state.passes, busyNs: state.busyNs, busyBuckets: state.busyBuckets))
        }
        return LiveSnapshot.live(processName: processName, loops: loops, samplers: samplers)
    }
}

extension LiveSnapshot {
    /// A snapshot of a running session: `loops`, the samplers' counts and lagmon's own cost.
    static func live(processName: String, loops: [LiveLoopTotals], samplers: SessionSamplers) -> LiveSnapshot {
        let sampled = samplers.live
        let own = OwnUsage.now()
        return LiveSnapshot(
            processName: processName, loops: loops, threads: sampled.threads, cpuTicksPerSecond: sampled.ticksPerSecond,
            stackSamples: sampled.taken, samplesLost: sampled.lost, targetUp: true, ownCPUNs: own.cpuNs,
            ownRSSBytes: own.rssBytes)
    }

    /// The end of a session, from its recording: loop totals as recorded (the open busy period
    /// left out, as live readings do), lagmon's own cost, the target no longer up.
    public static func ended(_ recording: SessionRecording) -> LiveSnapshot {
        // The kernel's name for it (comm): the program file's name, at most 15 bytes.
        let program = recording.command.first.map(PathText.lastComponent) ?? "unknown"
        let processName = String(decoding: program.utf8.prefix(15), as: UTF8.self)
        let loops = recording.loops.map { loop in
            LiveLoopTotals(
                pid: loop.pid, processName: processName, tid: loop.thread.tid, loopName: loop.thread.name,
                iterations: loop.passes, busyNs: loop.busyTotalNs, busyBuckets: loop.busyBuckets)
        }
        let own = OwnUsage.now()
        let stallSamples = recording.loops.reduce(recording.samplesFolded + recording.stateOnlySamplesFolded) {
            $0 + $1.stallSamples.values.reduce(0) { $0 + $1.count }
        }
        let alertSamples = recording.threads.reduce(0) { $0 + $1.alerts.filter { !$0.frames.isEmpty }.count }
        return LiveSnapshot(
            processName: processName, loops: loops, stackSamples: UInt64(stallSamples + alertSamples),
            samplesLost: UInt64(max(0, recording.samplesLost)),
            targetUp: false, ownCPUNs: own.cpuNs, ownRSSBytes: own.rssBytes)
    }
}
