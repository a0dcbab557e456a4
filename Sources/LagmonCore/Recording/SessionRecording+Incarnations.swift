extension SessionRecording {
    /// Adds what a later session on the same clock recorded: the process that replaced this
    /// recording's (a restart, `lagmon attach --name` or `--pid-file`). Loops (each naming its
    /// pid), threads and sample counts add up; the ending, lagmon's cost and `attached` are the
    /// later one's, with the restart counted. Each process's span goes in `processes` (the
    /// report lists one entry per pid).
    public mutating func appendIncarnation(_ later: SessionRecording) {
        // A loop's busy period still open when its process ended ends there, not at the end
        // of the later process.
        for index in loops.indices where loops[index].endNs == nil { loops[index].endNs = endNs }
        loops += later.loops
        threads += later.threads
        samplingUnavailable = samplingUnavailable ?? later.samplingUnavailable
        targetFileProblems += later.targetFileProblems.filter { !targetFileProblems.contains($0) }
        samplesLost += later.samplesLost
        samplesFolded += later.samplesFolded
        stateOnlySamplesFolded += later.stateOnlySamplesFolded
        lateness.merge(later.lateness)
        processes += later.processes.map { image in
            var image = image
            image.index += processes.count
            return image
        }
        overhead = Self.combined(overhead, later.overhead)
        endNs = later.endNs
        let restarts = (attached?.restarts ?? 0) + (later.attached?.restarts ?? 0) + 1
        attached = later.attached ?? attached
        attached?.restarts = restarts
    }

    /// lagmon's cost over both sessions: its CPU and peak memory are process-wide figures
    /// already (the later one's), the probe's and the CPU sampler's work adds up.
    private static func combined(_ earlier: LagmonCost?, _ later: LagmonCost?) -> LagmonCost? {
        guard let earlier, var cost = later else { return later ?? earlier }
        let passes = earlier.cpuSamplerPasses + cost.cpuSamplerPasses
        if passes > 0 {
            cost.cpuSamplerNsPerPass =
                (earlier.cpuSamplerNsPerPass * earlier.cpuSamplerPasses + cost.cpuSamplerNsPerPass
                    * cost.cpuSamplerPasses) / passes
        }
        cost.cpuSamplerPasses = passes
        if let readings = earlier.probeReadings { cost.probeReadings = readings + (cost.probeReadings ?? 0) }
        if let probeNs = earlier.probeCPUNs { cost.probeCPUNs = probeNs + (cost.probeCPUNs ?? 0) }
        return cost
    }
}
