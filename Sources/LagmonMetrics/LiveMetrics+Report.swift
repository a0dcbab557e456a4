import LagmonCore

extension LiveMetrics {
    /// A saved report's metrics, all at once (`lagmon check --push-gateway`): its listed stalls
    /// one by one (duration and diagnosis), the stalls it left out as counts with the `unknown`
    /// diagnosis and no duration (the report does not hold them), not one still going at the end
    /// (it did not end: `run --push-gateway` does not count it either), each loop's iterations, busy
    /// time and latency percentiles, its stack samples, the recording lagmon's own CPU and peak
    /// memory, and the culprits of its listed stalls (the 20 with the most stall time named). The
    /// run is over: there is no `lagmon_target_up`.
    public func record(report: Report) {
        let program = report.target.command.first.map(PathText.lastComponent) ?? "unknown"
        let processName = String(decoding: program.utf8.prefix(15), as: UTF8.self)
        for loop in report.loops {
            _ = loopPair(pid: loop.pid, tid: loop.thread.tid, process: processName, loop: loop.thread.name)
        }
        let ended = report.stalls.filter { !$0.ongoingAtExit }
        admitCulprits(Self.culpritsByTime(ended))
        for stall in ended {
            record(
                StallEvent(
                    pid: stall.pid ?? report.target.pid, processName: processName, tid: stall.thread.tid,
                    loopName: stall.thread.name, durationNs: stall.durationNs, diagnosis: stall.diagnosis.kind,
                    culprit: stall.culprit?.symbol))
        }
        for loop in report.loops { countOmitted(loop, of: report, processName: processName) }
        update(
            LiveSnapshot(
                processName: processName,
                loops: report.loops.map { loop in
                    LiveLoopTotals(
                        pid: loop.pid, processName: processName, tid: loop.thread.tid, loopName: loop.thread.name,
                        iterations: loop.iterations, busyNs: loop.busyNs, busyBuckets: [:])
                },
                stackSamples: UInt64(max(0, report.sampling.samples)),
                samplesLost: UInt64(max(0, report.sampling.samplesLost ?? 0)), targetUp: false,
                ownCPUNs: report.overhead?.cpuNs ?? 0, ownRSSBytes: report.overhead?.peakRssBytes ?? 0))
        for loop in report.loops { setLatency(loop, processName: processName) }
        sessionEnded()
    }

    /// The culprits of `stalls`, most stall time first (then by name).
    static func culpritsByTime(_ stalls: [StallReport]) -> [String] {
        var byCulprit: [String: UInt64] = [:]
        for stall in stalls {
            guard let name = stall.culprit?.symbol else { continue }
            byCulprit[String(name.prefix(CulpritLabels.maxNameLength)), default: 0] &+= stall.durationNs
        }
        return byCulprit.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
    }

    /// Counts the stalls of `loop` that `report` does not list.
    private func countOmitted(_ loop: LoopReport, of report: Report, processName: String) {
        let listed = report.stalls.filter {
            ($0.pid ?? report.target.pid) == loop.pid && $0.thread.tid == loop.thread.tid
        }
        let omitted = loop.stallCount - listed.count
        guard omitted > 0 else { return }
        let pair = loopPair(pid: loop.pid, tid: loop.thread.tid, process: processName, loop: loop.thread.name)
        registry.makeCounter(
            descriptor: MetricNames.stalls,
            labels: labeled([
                ("process", pair.process), ("loop", pair.loop), ("diagnosis", StallDiagnosis.Kind.unknown.rawValue),
            ])
        ).increment(by: Int64(omitted))
    }

    /// The loop's latency percentiles as the report states them.
    private func setLatency(_ loop: LoopReport, processName: String) {
        let pair = loopPair(pid: loop.pid, tid: loop.thread.tid, process: processName, loop: loop.thread.name)
        let labels = labeled([("process", pair.process), ("loop", pair.loop)])
        for (percentile, valueNs) in [
            ("50", loop.latency.p50Ns), ("90", loop.latency.p90Ns), ("99", loop.latency.p99Ns),
        ] {
            registry.makeGauge(descriptor: MetricNames.latency(percentile: percentile), labels: labels)
                .set(Double(valueNs) / 1e9)
        }
    }
}
