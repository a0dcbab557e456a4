import LagmonCore

/// What the sampler follows of each busy period's thread to say, at the period's end, whether
/// it waited for a CPU and what ran instead: its /proc state when the period's first sample was
/// asked for, each thread's latest reading (the baseline of a state-only sample), and, once the
/// thread was seen waiting for a CPU, every process's CPU time then.
struct ContentionTracker {
    /// Each sampled thread's latest /proc state, the baseline of a state-only sample.
    private var lastReadStates: [Int32: TimedThreadState] = [:]
    /// Per busy period: its thread's state when its first sample was asked for (before the stop).
    private var openingStates: [UInt64: TimedThreadState] = [:]
    /// Per busy period whose thread waited for a CPU: when, and every process's CPU time then.
    private var cpuScans: [UInt64: (atNs: UInt64, processes: [Int32: ProcessTicks])] = [:]

    /// Keeps `reading` as thread `tid`'s latest (the baseline of its next state-only sample) and,
    /// when busy period `key` has none yet, as the period's opening state; returns the previous
    /// latest.
    @discardableResult
    mutating func noteReading(_ reading: TimedThreadState, tid: Int32, key: UInt64) -> TimedThreadState? {
        if openingStates[key] == nil { openingStates[key] = reading }
        return lastReadStates.updateValue(reading, forKey: tid)
    }

    /// Once a busy period's thread has waited for a CPU — it could not get to a stop while
    /// runnable (a state-only `R` sample), or its schedstat run-queue delay since the period's
    /// opening reading passed a quarter of the time since — scans every process's CPU time, once
    /// per period, so its end can name what ran instead.
    mutating func noteRunQueueWait(_ sample: StackSample, key: UInt64, clock: () -> UInt64) {
        guard cpuScans[key] == nil, let now = sample.state else { return }
        if !(sample.isStateOnly && now.state == .running) {
            guard let opening = openingStates[key], sample.timestampNs > opening.timestampNs else { return }
            let waitedNs = now.runDelayNs > opening.state.runDelayNs ? now.runDelayNs - opening.state.runDelayNs : 0
            guard waitedNs > (sample.timestampNs - opening.timestampNs) / 4 else { return }
        }
        cpuScans[key] = (clock(), ProcessCPUScan.scan())
    }

    /// At the end of busy period `key`: sets the period's opening reading and its closing one
    /// (`closing()`: read when the end was seen, else now, no stop) on its first sample. The
    /// run-queue delay the thread accrued while starved is counted when it got a CPU again, so
    /// by then it is in the counters even when no sample could be taken after the first.
    mutating func close(
        key: UInt64, samples: inout [UInt64: [StackSample]], closing: () -> TimedThreadState?
    ) {
        guard let opening = openingStates.removeValue(forKey: key), var kept = samples[key], !kept.isEmpty
        else { return }
        kept[0].openingState = opening
        kept[0].closingState = closing()
        samples[key] = kept
    }

    /// At the end of busy period `key`: the busiest processes but `excluding` since its scan, set
    /// on its first sample. Not its last: a sampler kept behind by a thread that waits for a CPU
    /// takes its last samples after the stall ended, and those are not the stall's evidence
    /// (`LoopRecording.evidence(of:)`), so what they carry was lost. A process that ended in
    /// between is not listed.
    mutating func finishRunQueueWait(
        key: UInt64, excluding excluded: Set<Int32>, clock: () -> UInt64, samples: inout [UInt64: [StackSample]]
    ) {
        guard let (startedNs, before) = cpuScans.removeValue(forKey: key), var kept = samples[key], !kept.isEmpty
        else { return }
        let after = ProcessCPUScan.scan()
        kept[0].busiestOthers = ProcessTicks.busiest(
            before: before, after: after, ticksPerSecond: ProcFS.ticksPerSecond, windowNs: clock() - startedNs,
            excluding: excluded)
        samples[key] = kept
    }

    /// Busy period `key`'s samples were let go: its opening state too.
    mutating func forgetOpening(key: UInt64) { openingStates.removeValue(forKey: key) }
}
