/// Turns a session's raw recording into the report: stalls from the observer's own records
/// (exact start and end), the stall still open at exit, latency percentiles, and diagnostics
/// that explain anything missing.
public struct ReportBuilder: Sendable {
    /// lagmon's version, stamped into the report.
    public var toolVersion: String

    public init(toolVersion: String) {
        self.toolVersion = toolVersion
    }

    /// Builds the report for `recording`.
    public func build(_ recording: SessionRecording) -> Report {
        let stalls = numberedStalls(recording)
        let loops = recording.loops.map { loopReport($0, recording: recording, stalls: stalls) }
        let target = TargetInfo(
            command: recording.command, pid: recording.pid,
            exitStatus: recording.exit.passThroughStatus, signal: signal(of: recording.exit),
            signalName: signal(of: recording.exit).map(SignalNames.name(of:)),
            startedAt: recording.startedAt, monotonicStartNs: recording.clockBaseNs + recording.spawnNs,
            wallNs: saturatingSubtract(recording.endNs, recording.spawnNs))
        let lateness = recording.lateness
        let watchdog = WatchdogReport(
            wakeups: lateness.wakeups, lateWakeups: lateness.lateWakeups, latenessMaxNs: lateness.maxNs,
            latenessP99Ns: lateness.p99Ns, toleranceNs: lateness.toleranceNs,
            observerPosts: lateness.observerPosts)
        return Report(
            tool: ToolInfo(version: toolVersion), target: target,
            config: RunConfig(thresholdNs: recording.thresholdNs),
            summary: StallSummary(stalls: stalls, thresholdNs: recording.thresholdNs),
            loops: loops, stalls: stalls, watchdog: watchdog,
            diagnostics: DiagnosticRules.diagnose(recording, stalls: stalls))
    }

    private func signal(of exit: TargetExit) -> Int32? {
        if case .signaled(let number) = exit { return number }
        return nil
    }

    /// All loops' stalls, including those open at exit, ordered by start and numbered from 1.
    private func numberedStalls(_ recording: SessionRecording) -> [StallReport] {
        var unnumbered: [StallReport] = []
        for loop in recording.loops {
            for record in loop.stallRecords {
                unnumbered.append(stall(loop, record, recording: recording, ongoing: false))
            }
            let detector = StallDetector(configuration: .init(thresholdNs: recording.thresholdNs))
            if let open = detector.stallOpen(at: recording.endNs, last: loop.lastSnapshot) {
                let record = StallRecord(startNs: open.startNs, endNs: recording.endNs, activity: open.activity)
                unnumbered.append(stall(loop, record, recording: recording, ongoing: true))
            }
        }
        unnumbered.sort { ($0.startNs, $0.thread.tid) < ($1.startNs, $1.thread.tid) }
        return unnumbered.enumerated().map { index, stall in
            var numbered = stall
            numbered.id = index + 1
            return numbered
        }
    }

    private func stall(_ loop: LoopRecording, _ record: StallRecord, recording: SessionRecording, ongoing: Bool)
        -> StallReport
    {
        StallReport(
            id: 0, thread: loop.thread, startNs: saturatingSubtract(record.startNs, recording.spawnNs),
            durationNs: saturatingSubtract(record.endNs, record.startNs), activity: record.activity,
            ongoingAtExit: ongoing, seenLive: loop.liveStallStarts.contains(record.startNs))
    }

    private func loopReport(_ loop: LoopRecording, recording: SessionRecording, stalls: [StallReport]) -> LoopReport {
        var buckets = loop.busyBuckets
        var busyNs = loop.busyTotalNs
        var maxNs = loop.busyMaxNs
        if let openSince = loop.openBusySinceNs, recording.endNs > openSince {
            // The loop was awake when the session ended: that period counts too.
            let openNs = recording.endNs - openSince
            busyNs += openNs
            maxNs = max(maxNs, openNs)
            buckets[LatencyBuckets.index(of: openNs), default: 0] += 1
        }
        let histogram = LatencyBuckets.histogram(from: buckets)
        return LoopReport(
            thread: loop.thread, pid: loop.pid, observer: loop.observer, iterations: loop.passes,
            transitions: loop.transitions, busyNs: busyNs,
            observedNs: saturatingSubtract(recording.endNs, loop.claimedNs),
            latency: LatencySummary(histogram: histogram, maxNs: maxNs),
            stallCount: stalls.filter { $0.thread == loop.thread }.count)
    }
}

func saturatingSubtract(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : 0 }
