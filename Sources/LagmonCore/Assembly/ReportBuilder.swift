/// Turns a session's raw recording into the report: stalls from the observer's own records
/// (exact start and end), the stall still open at exit, each stall's stacks and diagnosis,
/// latency percentiles, fingerprints, thread CPU, and diagnostics that explain anything missing.
public struct ReportBuilder: Sendable {
    /// lagmon's version, stamped into the report.
    public var toolVersion: String
    /// Makes each stall's stacks, call tree, culprit and fingerprint.
    public var profiler: StallProfiler
    /// Bounds how many stalls are listed in detail.
    public var listing: StallListing

    public init(toolVersion: String, profiler: StallProfiler = StallProfiler(), listing: StallListing = StallListing())
    {
        self.toolVersion = toolVersion
        self.profiler = profiler
        self.listing = listing
    }

    /// Builds the report for `recording`.
    public func build(_ recording: SessionRecording) -> Report {
        let profiled = numberedStalls(recording)
        let stalls = profiled.map(\.stall)
        let fingerprinted = profiled.compactMap { item in
            item.fingerprint.map { (stall: item.stall, fingerprint: $0) }
        }
        let loops = recording.loops.map { loopReport($0, recording: recording, stalls: stalls) }
        var target = TargetInfo(
            command: recording.command, pid: recording.pid,
            exitStatus: recording.exit?.passThroughStatus, signal: recording.exit.flatMap(signal(of:)),
            signalName: recording.exit.flatMap(signal(of:)).map(SignalNames.name(of:)),
            startedAt: recording.startedAt, monotonicStartNs: recording.clockBaseNs + recording.spawnNs,
            wallNs: saturatingSubtract(recording.endNs, recording.spawnNs))
        if let attached = recording.attached {
            target.attached = true
            target.exited = attached.exited
            target.restarts = attached.restarts > 0 ? attached.restarts : nil
        }
        let lateness = recording.lateness
        let watchdog = WatchdogReport(
            wakeups: lateness.wakeups, lateWakeups: lateness.lateWakeups, latenessMaxNs: lateness.maxNs,
            latenessP99Ns: lateness.p99Ns, toleranceNs: lateness.toleranceNs,
            observerPosts: lateness.observerPosts)
        let listed = listing.apply(to: stalls)
        var report = Report(
            tool: ToolInfo(version: toolVersion), target: target, config: config(recording),
            summary: StallSummary(
                stalls: stalls, thresholdNs: recording.thresholdNs, listed: listed.count,
                folded: recording.loops.map(\.foldedStalls)),
            loops: loops, stalls: listed, watchdog: watchdog,
            diagnostics: DiagnosticRules.diagnose(recording, stalls: stalls),
            fingerprints: FingerprintReport.groups(fingerprinted),
            threads: recording.threads.sorted { $0.tid < $1.tid },
            sampling: SamplingReport(
                samples: recording.loops.flatMap { $0.stallSamples.values.joined().map(\.sample) }.filter {
                    !$0.isStateOnly
                },
                unavailable: recording.samplingUnavailable, lost: recording.samplesLost))
        report.sampling.samples += recording.samplesFolded
        report.threadCap = recording.threadCap
        report.processes = ProcessReport.list(recording, loops: loops, stalls: stalls)
        report.images = Self.images(recording)
        if let epochNs = target.startedAtUnixNs {
            for index in report.stalls.indices {
                report.stalls[index].startUnixNs =
                    epochNs.addingReportingOverflow(report.stalls[index].startNs).partialValue
            }
        }
        if recording.strict {
            report.blockingCalls = BlockingCallReport.list(recording.loops)
            report.blockingCallsUnrecorded = recording.loops.reduce(0) { saturatingAdd($0, $1.blockingCallsUnrecorded) }
        }
        report.swiftPool = SwiftPoolAnalysis.analyze(
            poolThreads(recording, observer: LoopObserver.swiftPool), originNs: recording.spawnNs,
            startToleranceNs: SwiftTick.startToleranceNs(thresholdNs: recording.thresholdNs))
        if let starved = SwiftPoolAnalysis.diagnostic(report.swiftPool) { report.diagnostics.append(starved) }
        report.tokioPool = SwiftPoolAnalysis.analyze(
            poolThreads(recording, observer: LoopObserver.tokioWorker), originNs: recording.spawnNs)
        if let starved = SwiftPoolAnalysis.diagnostic(report.tokioPool, pool: .tokio) {
            report.diagnostics.append(starved)
        }
        report.overhead = recording.overhead.map { cost in
            var overhead = OverheadReport(
                cpuNs: cost.cpuNs, wallNs: target.wallNs, peakRssBytes: cost.peakRssBytes,
                cpuSamplerPasses: cost.cpuSamplerPasses, cpuSamplerNsPerPass: cost.cpuSamplerNsPerPass)
            if let readings = cost.probeReadings, let probeNs = cost.probeCPUNs {
                overhead.probeReadings = readings
                overhead.probeNsPerReading = readings == 0 ? 0 : probeNs / readings
            }
            return overhead
        }
        return report
    }

    /// Every mapping the stall samples' addresses lie in, once, by process and start.
    static func images(_ recording: SessionRecording) -> [ImageMapping] {
        let all = recording.loops.flatMap { $0.stallSamples.values.joined().flatMap(\.images) }
        return Set(all).sorted { ($0.pid, $0.start, $0.path) < ($1.pid, $1.start, $1.path) }
    }

    private func config(_ recording: SessionRecording) -> RunConfig {
        var config = RunConfig(
            thresholdNs: recording.thresholdNs, loops: recording.loopSelection,
            sampleIntervalNs: recording.sampleIntervalNs,
            cpuIntervalNs: recording.cpuIntervalNs, cpuAlertPct: recording.cpuAlertPct)
        config.probeIntervalNs = recording.procProbe?.intervalNs
        config.strict = recording.strict ? true : nil
        return config
    }

    private func signal(of exit: TargetExit) -> Int32? {
        if case .signaled(let number) = exit { return number }
        return nil
    }

    /// A stall and its fingerprint, which the report keeps only as an id.
    private typealias ProfiledStall = (stall: StallReport, fingerprint: StackFingerprint?)

    /// All loops' stalls, including those open at exit, ordered by start and numbered from 1.
    /// With folded stalls (one loop: only `lagmon attach` folds), a stall's number is its
    /// record's ordinal, so the ids count the folded stalls too.
    private func numberedStalls(_ recording: SessionRecording) -> [ProfiledStall] {
        var unnumbered: [(item: ProfiledStall, ordinal: Int?)] = []
        for loop in recording.loops {
            for record in loop.stallRecords {
                unnumbered.append((stall(loop, record, recording: recording, ongoing: false), record.ordinal))
            }
            if let record = openStall(loop, recording: recording) {
                let total = loop.stallRecords.count + loop.foldedStalls.count
                let ordinal = loop.stallRecords.last?.ordinal.map { max($0, total) + 1 }
                unnumbered.append((stall(loop, record, recording: recording, ongoing: true), ordinal))
            }
        }
        unnumbered.sort {
            ($0.item.stall.startNs, $0.item.stall.thread.tid) < ($1.item.stall.startNs, $1.item.stall.thread.tid)
        }
        let byOrdinal = recording.loops.count == 1 && recording.loops[0].foldedStalls.count > 0
        return unnumbered.enumerated().map { index, entry in
            var numbered = entry.item
            numbered.stall.id = byOrdinal ? entry.ordinal ?? index + 1 : index + 1
            return numbered
        }
    }

    /// The stall `record` of `loop`, profiled from the samples taken while it lasted.
    private func stall(_ loop: LoopRecording, _ record: StallRecord, recording: SessionRecording, ongoing: Bool)
        -> ProfiledStall
    {
        let durationNs = saturatingSubtract(record.endNs, record.startNs)
        let samples = loop.evidence(of: record)
        // A thread that could not be stopped left only its /proc state: no stack to profile.
        let profile = profiler.profile(samples.filter { !$0.sample.isStateOnly })
        let contention = ContentionAnalyzer.analyze(samples.map(\.sample))
        var diagnosis = StallDiagnoser().diagnose(
            samples.map(\.sample), durationNs: durationNs, culprit: profile.culprit,
            runQueueShare: contention?.runQueueShare)
        // A JVM sleeps, waits and parks on a futex too: its frames say which (JavaWait).
        let javaWait = diagnosis.kind == .lock ? JavaWait.analyze(samples) : nil
        if let javaWait {
            let lockNs = StallDiagnoser.lockShare(samples.map(\.sample), durationNs: durationNs)
            diagnosis = javaWait.diagnosis(durationNs: lockNs)
        }
        let lock =
            diagnosis.kind == .lock && javaWait == nil
            ? LockWaitAnalyzer(profiler: profiler).analyze(samples, tid: loop.thread.tid) : nil
        if let lock {
            let lockNs = StallDiagnoser.lockShare(samples.map(\.sample), durationNs: durationNs)
            diagnosis.text = LockWaitAnalyzer.text(lock, durationNs: lockNs)
        }
        if let contention {
            // The memory note stays last: report.md says the diagnosis ends with it.
            let suffix = ContentionAnalyzer.suffix(contention, kind: diagnosis.kind)
            let note = StallDiagnoser.memoryUnreadableNote
            diagnosis.text =
                diagnosis.text.hasSuffix(note)
                ? String(diagnosis.text.dropLast(note.count)) + suffix + note : diagnosis.text + suffix
        }
        if let role = Self.poolRoles[loop.observer] { diagnosis.text = "\(role): \(diagnosis.text)" }
        let noticedNs = loop.liveStallNoticedNs[record.startNs]
        var stall = StallReport(
            id: 0, thread: loop.thread, startNs: saturatingSubtract(record.startNs, recording.spawnNs),
            durationNs: durationNs, activity: record.activity, ongoingAtExit: ongoing, seenLive: noticedNs != nil,
            noticedAfterNs: noticedNs.map { saturatingSubtract($0, record.startNs) }, profile: profile,
            diagnosis: diagnosis, pid: loop.pid)
        if Self.poolRoles[loop.observer] != nil { stall.observer = loop.observer }
        stall.sampleTimeline = profile.timeline.map {
            StallSampleTime(offsetNs: saturatingSubtract($0.timestampNs, record.startNs), node: $0.node)
        }
        stall.lock = lock
        stall.contention = contention
        if diagnosis.kind == .io { stall.uninterruptible = UninterruptibleAnalyzer.analyze(samples.map(\.sample)) }
        return (stall, profile.fingerprint)
    }

    /// What a stall of a Swift-concurrency loop or of a tokio worker did, said before its diagnosis.
    private static let poolRoles = [
        LoopObserver.swiftMainActor: "held the main actor", LoopObserver.swiftPool: "blocked a cooperative thread",
        LoopObserver.tokioWorker: "blocked a tokio worker",
    ]

    /// A pool's threads (the cooperative pool's, or tokio's workers: loops of `observer`): alive
    /// from their slot's claim (a first job, a third park) to their exit (or the end), blocked
    /// during their stalls.
    private func poolThreads(_ recording: SessionRecording, observer: String) -> [SwiftPoolAnalysis.PoolThread] {
        recording.loops.filter { $0.observer == observer }.map { loop in
            let exited = loop.lastSnapshot.activity == .exit ? loop.lastSnapshot.sinceNs : nil
            let until = exited ?? loop.endNs ?? recording.endNs
            let records = loop.stallRecords + (openStall(loop, recording: recording).map { [$0] } ?? [])
            return SwiftPoolAnalysis.PoolThread(
                aliveFromNs: loop.claimedNs, aliveUntilNs: until, blocked: records.map { ($0.startNs, $0.endNs) })
        }
    }

    private func loopReport(_ loop: LoopRecording, recording: SessionRecording, stalls: [StallReport]) -> LoopReport {
        var buckets = loop.busyBuckets
        var busyNs = loop.busyTotalNs
        var maxNs = loop.busyMaxNs
        let endNs = loop.endNs ?? recording.endNs
        var iterations = loop.passes
        if let openSince = loop.openBusySinceNs, endNs > openSince {
            // The loop was awake when the session (or its process) ended: that period counts too.
            // For a Swift executor it is a job that ran (an async main's last main-actor job calls
            // exit(): it never ends), and each job is an iteration.
            if Self.jobLoops.contains(loop.observer) { iterations = saturatingAdd(iterations, 1) }
            let openNs = endNs - openSince
            busyNs = saturatingAdd(busyNs, openNs)
            maxNs = max(maxNs, openNs)
            buckets[LatencyBuckets.index(of: openNs)] = saturatingAdd(buckets[LatencyBuckets.index(of: openNs)] ?? 0, 1)
        }
        let histogram = LatencyBuckets.histogram(from: buckets)
        var report = LoopReport(
            thread: loop.thread, pid: loop.pid, observer: loop.observer, iterations: iterations,
            transitions: loop.transitions, busyNs: busyNs,
            observedNs: saturatingSubtract(endNs, loop.claimedNs),
            latency: LatencySummary(histogram: histogram, maxNs: maxNs),
            stallCount: loop.stallRecords.count + loop.foldedStalls.count
                + (openStall(loop, recording: recording) == nil ? 0 : 1),
            longIterations: loop.longIterations.map { longIteration($0, recording: recording) },
            longIterationsOmitted: loop.longIterationsOmitted)
        report.timingErrorNs = loop.timingErrorNs
        return report
    }

    /// Loops whose iterations are Swift jobs (one busy period each).
    static let jobLoops: Set<String> = [LoopObserver.swiftMainActor, LoopObserver.swiftPool]

    /// The stall still open when the loop's process (or the session) ended, if there is one.
    private func openStall(_ loop: LoopRecording, recording: SessionRecording) -> StallRecord? {
        let endNs = loop.endNs ?? recording.endNs
        let detector = StallDetector(configuration: .init(thresholdNs: recording.thresholdNs))
        guard let open = detector.stallOpen(at: endNs, last: loop.lastSnapshot) else { return nil }
        return StallRecord(startNs: open.startNs, endNs: endNs, activity: open.activity)
    }

    /// A long busy period relative to the target's start; one still open ends with the session.
    private func longIteration(_ record: LongIterationRecord, recording: SessionRecording) -> LongIteration {
        let endNs = min(record.endNs, recording.endNs)
        return LongIteration(
            startNs: saturatingSubtract(record.startNs, recording.spawnNs),
            durationNs: saturatingSubtract(endNs, record.startNs), endSeen: record.endSeen)
    }
}
