import Glibc
import LagmonCore

extension StackSampler {
    /// Once a busy period's thread has waited for a CPU for over a quarter of the time since the
    /// period's first sample (its schedstat run-queue delay), scans every process's CPU time,
    /// once per period, so its end can name what ran instead.
    func noteRunQueueWait(_ sample: StackSample, key: UInt64) {
        guard cpuScans[key] == nil, let first = result.samples[key]?.first, let before = first.state,
            let now = sample.state, sample.timestampNs > first.timestampNs
        else { return }
        let waitedNs = now.runDelayNs > before.runDelayNs ? now.runDelayNs - before.runDelayNs : 0
        guard waitedNs > (sample.timestampNs - first.timestampNs) / 4 else { return }
        cpuScans[key] = (clock(), ProcessCPUScan.scan())
    }

    /// At the end of busy period `key` of process `pid`: the busiest other processes since its
    /// scan, set on its first sample. Not its last: a sampler kept behind by a thread that waits
    /// for a CPU takes its last samples after the stall ended, and those are not the stall's
    /// evidence (`LoopRecording.evidence(of:)`), so what they carry was lost. A process that
    /// ended in between is not listed.
    func finishRunQueueWait(key: UInt64, pid: Int32?) {
        guard let (startedNs, before) = cpuScans.removeValue(forKey: key), var samples = result.samples[key],
            !samples.isEmpty
        else { return }
        let after = ProcessCPUScan.scan()
        let excluded: Set<Int32> = [self.pid, pid ?? self.pid, getpid()]
        samples[0].busiestOthers = ProcessTicks.busiest(
            before: before, after: after, ticksPerSecond: ProcFS.ticksPerSecond,
            windowNs: clock() - startedNs, excluding: excluded)
        result.samples[key] = samples
    }
}
