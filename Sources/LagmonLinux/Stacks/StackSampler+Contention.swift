import Glibc
import LagmonCore

extension StackSampler {
    /// Once a busy period's thread has waited for a CPU — it could not get to a stop while
    /// runnable (a state-only `R` sample), or its schedstat run-queue delay since the period's
    /// opening reading passed a quarter of the time since — scans every process's CPU time, once
    /// per period, so its end can name what ran instead.
    func noteRunQueueWait(_ sample: StackSample, key: UInt64) {
        guard cpuScans[key] == nil, let now = sample.state else { return }
        if !(sample.isStateOnly && now.state == .running) {
            guard let opening = openingStates[key], sample.timestampNs > opening.timestampNs else { return }
            let waitedNs = now.runDelayNs > opening.state.runDelayNs ? now.runDelayNs - opening.state.runDelayNs : 0
            guard waitedNs > (sample.timestampNs - opening.timestampNs) / 4 else { return }
        }
        cpuScans[key] = (clock(), ProcessCPUScan.scan())
    }

    /// At the end of busy period `key` of thread `tid`: sets the period's opening reading and
    /// `closing` (read when the end was seen; nil: read now, no stop) on its first sample. The
    /// run-queue delay the thread accrued while starved is counted when it got a CPU again, so
    /// by then it is in the counters even when no sample could be taken after the first.
    func closeContention(key: UInt64, tid: Int32, closing: TimedThreadState?) {
        guard let opening = openingStates.removeValue(forKey: key), var samples = result.samples[key],
            !samples.isEmpty
        else { return }
        samples[0].openingState = opening
        samples[0].closingState =
            closing ?? readState(tid).map { TimedThreadState(timestampNs: clock(), state: $0) }
        result.samples[key] = samples
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
