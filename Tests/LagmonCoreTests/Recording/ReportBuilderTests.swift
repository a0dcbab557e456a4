import LagmonCore
import Testing

struct ReportBuilderTests {
    static let ms = Fixture.ms
    static let second = Fixture.second
    static let spawn = Fixture.spawnNs
    static let end = Fixture.spawnNs + 5 * Fixture.second

    /// Two loops: stalls recorded out of start order across them, one still open at exit.
    static let twoLoops: SessionRecording = {
        let main = Fixture.loop(
            tid: 100, name: "main", claimedNs: spawn + 10 * ms, passes: 300,
            busyBuckets: [LatencyBuckets.index(of: 2 * ms): 4], busyCount: 4, busyTotalNs: 8 * ms, busyMaxNs: 2 * ms,
            lastSnapshot: LoopSnapshot(activity: .beforeWaiting, sinceNs: end - 1 * ms),
            stallRecords: [
                StallRecord(startNs: spawn + 500 * ms, endNs: spawn + 700 * ms, activity: .afterWaiting),
                StallRecord(
                    startNs: spawn + 2 * second, endNs: spawn + 2 * second + 250 * ms, activity: .beforeSources),
            ],
            liveStallNoticedNs: [spawn + 500 * ms: spawn + 600 * ms + 40_000])
        let worker = Fixture.loop(
            tid: 200, name: "worker", claimedNs: spawn + 1 * second, passes: 50,
            busyBuckets: [LatencyBuckets.index(of: 1 * ms): 3], busyCount: 3, busyTotalNs: 3 * ms, busyMaxNs: 1 * ms,
            openBusySinceNs: end - 300 * ms,
            lastSnapshot: LoopSnapshot(activity: .beforeSources, sinceNs: end - 300 * ms),
            stallRecords: [
                StallRecord(startNs: spawn + 1 * second, endNs: spawn + 1_150 * ms, activity: .afterWaiting)
            ],
            liveStallNoticedNs: [end - 300 * ms: end - 200 * ms + 900_000])
        return Fixture.recording(loops: [main, worker])
    }()

    private func build(_ recording: SessionRecording) -> Report {
        ReportBuilder(toolVersion: "9.8.7").build(recording)
    }

    @Test func stallsAreNumberedByStartAcrossLoopsRelativeToSpawn() {
        let report = build(Self.twoLoops)
        let main = ThreadRef(tid: 100, name: "main")
        let worker = ThreadRef(tid: 200, name: "worker")
        // Each stall's wall-clock start: startedAt (2025-01-02T03:04:05.678Z) plus its offset.
        #expect(report.stalls.map(\.startUnixNs) == report.stalls.map { 1_735_787_045_678_000_000 + $0.startNs })
        // No samples: every timeline is empty, and present.
        #expect(report.stalls.allSatisfy { $0.sampleTimeline == [] })
        let withoutUnixTimes = report.stalls.map { stall in
            var copy = stall
            copy.startUnixNs = nil
            copy.sampleTimeline = nil
            return copy
        }
        #expect(
            withoutUnixTimes == [
                StallReport(
                    id: 1, thread: main, startNs: 500 * Self.ms, durationNs: 200 * Self.ms, activity: .afterWaiting,
                    ongoingAtExit: false, seenLive: true, noticedAfterNs: 100 * Self.ms + 40_000, pid: 4242),
                StallReport(
                    id: 2, thread: worker, startNs: 1 * Self.second, durationNs: 150 * Self.ms,
                    activity: .afterWaiting, ongoingAtExit: false, seenLive: false, pid: 4242),
                StallReport(
                    id: 3, thread: main, startNs: 2 * Self.second, durationNs: 250 * Self.ms,
                    activity: .beforeSources, ongoingAtExit: false, seenLive: false, pid: 4242),
                StallReport(
                    id: 4, thread: worker, startNs: 4_700 * Self.ms, durationNs: 300 * Self.ms,
                    activity: .beforeSources, ongoingAtExit: true, seenLive: true,
                    noticedAfterNs: 100 * Self.ms + 900_000, pid: 4242),
            ])
    }

    @Test func summaryAddsUpEveryStall() {
        let summary = build(Self.twoLoops).summary
        #expect(summary.stallCount == 4)
        #expect(summary.longestStallNs == 300 * Self.ms)
        #expect(summary.totalStallNs == 900 * Self.ms)
        // Beyond the 100 ms threshold: 100 + 50 + 150 + 200 ms.
        #expect(summary.blockingNs == 500 * Self.ms)
    }

    @Test func loopReportsCountTheirOwnStallsAndTheOpenBusyPeriod() {
        let loops = build(Self.twoLoops).loops
        #expect(loops.count == 2)
        let main = loops[0]
        #expect(main.thread == ThreadRef(tid: 100, name: "main"))
        #expect(main.pid == 4242)
        #expect(main.observer == "cfrunloop")
        #expect(main.iterations == 300)
        #expect(main.transitions == 1_200)
        #expect(main.busyNs == 8 * Self.ms)
        #expect(main.observedNs == 4_990 * Self.ms)
        #expect(main.busyRatio == Double(8 * Self.ms) / Double(4_990 * Self.ms))
        #expect(main.stallCount == 2)
        #expect(main.latency.count == 4)
        #expect(main.latency.maxNs == 2 * Self.ms)
        #expect(main.latency.p50Ns == 2 * Self.ms)

        let worker = loops[1]
        // 3 ms of completed periods plus the 300 ms still open at exit.
        #expect(worker.busyNs == 303 * Self.ms)
        #expect(worker.observedNs == 4 * Self.second)
        #expect(worker.stallCount == 2)
        #expect(worker.latency.count == 4)
        #expect(worker.latency.maxNs == 300 * Self.ms)
        #expect(worker.latency.p99Ns == 300 * Self.ms)
        #expect(worker.latency.p50Ns >= 999_424 && worker.latency.p50Ns <= 1_010_000, "p50 \(worker.latency.p50Ns)")
    }

    @Test func anOpenBusyPeriodAfterTheEndIsIgnored() {
        let loop = Fixture.loop(
            tid: 1, busyBuckets: [LatencyBuckets.index(of: 2 * Self.ms): 1], busyCount: 1, busyTotalNs: 2 * Self.ms,
            busyMaxNs: 2 * Self.ms, openBusySinceNs: Self.end + 1)
        let report = build(Fixture.recording(loops: [loop]))
        #expect(report.loops[0].busyNs == 2 * Self.ms)
        // 2 ms lies in the lower half of its bucket, so every percentile is clamped to the maximum.
        let twoMs = 2 * Self.ms
        #expect(
            report.loops[0].latency == LatencySummary(count: 1, p50Ns: twoMs, p90Ns: twoMs, p99Ns: twoMs, maxNs: twoMs))
    }

    @Test func anOpenStateHeldExactlyTheThresholdIsNoStall() {
        let atThreshold = Fixture.loop(
            tid: 1, lastSnapshot: LoopSnapshot(activity: .afterWaiting, sinceNs: Self.end - 100 * Self.ms))
        #expect(build(Fixture.recording(loops: [atThreshold])).stalls == [])

        let justOver = Fixture.loop(
            tid: 1, lastSnapshot: LoopSnapshot(activity: .afterWaiting, sinceNs: Self.end - 100 * Self.ms - 1))
        let stalls = build(Fixture.recording(loops: [justOver])).stalls
        #expect(stalls.count == 1)
        #expect(stalls.first?.durationNs == 100 * Self.ms + 1)
        #expect(stalls.first?.startNs == 4_900 * Self.ms - 1)
        #expect(stalls.first?.ongoingAtExit == true)
        #expect(stalls.first?.seenLive == false)
    }

    @Test(arguments: [LoopActivity.beforeWaiting, .exit, .entry, .beforeTimers, .none])
    func aLongIdleLastStateIsNoStall(activity: LoopActivity) {
        let loop = Fixture.loop(tid: 1, lastSnapshot: LoopSnapshot(activity: activity, sinceNs: Self.spawn))
        #expect(build(Fixture.recording(loops: [loop])).stalls == [])
    }

    @Test func stallsStartingTogetherAreOrderedByThread() {
        let start = Self.spawn + 1 * Self.second
        let record = StallRecord(startNs: start, endNs: start + 200 * Self.ms, activity: .afterWaiting)
        let recording = Fixture.recording(loops: [
            Fixture.loop(tid: 30, name: "c", stallRecords: [record]),
            Fixture.loop(tid: 10, name: "a", stallRecords: [record]),
            Fixture.loop(tid: 20, name: "b", stallRecords: [record]),
        ])
        let stalls = build(recording).stalls
        #expect(stalls.map(\.thread.tid) == [10, 20, 30])
        #expect(stalls.map(\.id) == [1, 2, 3])
    }

    @Test func targetInformationAndExitStatus() {
        let report = build(Fixture.recording(loops: [], exit: .exited(3), clockBaseNs: 40_000_000_000))
        #expect(report.schemaVersion == 1)
        #expect(report.tool == ToolInfo(name: "lagmon", version: "9.8.7"))
        #expect(
            report.target
                == TargetInfo(
                    command: ["/opt/demo/bin/ImageViewer", "--slow"], pid: 4242, exitStatus: 3, signal: nil,
                    signalName: nil, startedAt: "2025-01-02T03:04:05.678Z",
                    // The channel clock's zero on CLOCK_MONOTONIC plus the spawn instant.
                    monotonicStartNs: 40_000_000_000 + Self.spawn, wallNs: 5 * Self.second))
        #expect(report.config == RunConfig(thresholdNs: 100 * Self.ms, loops: "main"))
    }

    @Test(arguments: [
        (Int32(9), Int32(137), "SIGKILL"), (11, 139, "SIGSEGV"), (15, 143, "SIGTERM"), (34, 162, "SIG34"),
    ])
    func aSignalledTargetPassesOn128PlusTheSignal(signal: Int32, status: Int32, name: String) {
        let target = build(Fixture.recording(loops: [], exit: .signaled(signal))).target
        #expect(target.exitStatus == status)
        #expect(target.signal == signal)
        #expect(target.signalName == name)
    }

    @Test func watchdogReportCopiesTheTally() {
        var lateness = LatenessTally(toleranceNs: 2 * Self.ms)
        lateness.record(deadlineNs: 0, wokeNs: 3 * Self.ms)
        lateness.record(deadlineNs: 0, wokeNs: 1 * Self.ms)
        lateness.observerPosts = 5
        let watchdog = build(Fixture.recording(loops: [], lateness: lateness)).watchdog
        #expect(
            watchdog
                == WatchdogReport(
                    wakeups: 2, lateWakeups: 1, latenessMaxNs: 3 * Self.ms, latenessP99Ns: 3 * Self.ms,
                    toleranceNs: 2 * Self.ms, observerPosts: 5))
    }

    @Test func diagnosticsComeFromTheRules() {
        let quiet = build(Self.twoLoops)
        #expect(quiet.diagnostics == [])
        let empty = build(Fixture.recording(loops: [], probe: ProbeStatus()))
        #expect(empty.diagnostics.map(\.code) == ["no-observer"])
        #expect(empty.stalls == [])
        #expect(empty.summary == StallSummary(stalls: [], thresholdNs: 100 * Self.ms))
    }
}

/// Stacks, diagnoses, fingerprints, threads and sampling in the built report.
struct ReportBuilderProfileTests {
    static let ms = Fixture.ms
    static let spawn = Fixture.spawnNs
    static let decode = Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x2000)
    static let parse = Fixture.frame("ConfigLoader.parse(_:)", offset: 0x3000)

    private func build(_ recording: SessionRecording) -> Report {
        ReportBuilder(toolVersion: "9.8.7").build(recording)
    }

    /// Samples every 10 ms from `startNs`, in `innermost` on top of the run loop.
    static func samples(
        from startNs: UInt64, count: Int, _ innermost: Frame, state: ThreadStateSample = Fixture.state()
    )
        -> [ResolvedSample]
    {
        (0..<count).map { index in
            Fixture.sample(at: startNs + UInt64(index) * 10 * ms, [innermost] + Fixture.runLoopFrames, state: state)
        }
    }

    static func record(_ startNs: UInt64, _ durationNs: UInt64) -> StallRecord {
        StallRecord(startNs: startNs, endNs: startNs + durationNs, activity: .afterWaiting)
    }

    @Test func eachStallIsProfiledFromTheSamplesTakenWhileItLasted() throws {
        let start = Self.spawn + 500 * Self.ms
        let samples = Self.samples(from: start + 100 * Self.ms, count: 3, Self.decode)
        var loop = Fixture.loop(
            tid: 100,
            stallRecords: [Self.record(start, 200 * Self.ms), Self.record(Self.spawn + Fixture.second, 150 * Self.ms)],
            liveStallNoticedNs: [start: start + 101 * Self.ms])
        loop.stallSamples = [start: samples]
        let stalls = build(Fixture.recording(loops: [loop])).stalls

        let expected = StallProfiler().profile(samples)
        let sampled = stalls[0]
        #expect(sampled.samples == 3)
        #expect(sampled.stacks == [StackCount(count: 3, frames: ([Self.decode] + Fixture.runLoopFrames).reversed())])
        #expect(sampled.stacksOmitted == 0)
        #expect(sampled.culprit == Self.decode)
        #expect(sampled.diagnosis == StallDiagnosis(kind: .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:)"))
        #expect(sampled.fingerprint == expected.fingerprint?.id)
        #expect(sampled.fingerprint != nil)
        #expect(sampled.callTree == expected.callTree)
        #expect(sampled.callTree?.count == 3)

        let unsampled = stalls[1]
        #expect(unsampled.samples == 0)
        #expect(unsampled.stacks == [])
        #expect(unsampled.culprit == nil)
        #expect(unsampled.diagnosis == StallDiagnosis(kind: .unknown, text: "no stack samples"))
        #expect(unsampled.fingerprint == nil)
        #expect(unsampled.callTree == nil)
    }

    @Test func theDiagnosisSharesTheStallsDuration() {
        let start = Self.spawn + 500 * Self.ms
        let locked = Fixture.state(.sleeping, syscall: "futex")
        var loop = Fixture.loop(tid: 100, stallRecords: [Self.record(start, 300 * Self.ms)])
        loop.stallSamples = [
            start: Self.samples(from: start, count: 2, Self.decode, state: locked)
                + Self.samples(from: start + 20 * Self.ms, count: 1, Self.decode)
        ]
        let stall = build(Fixture.recording(loops: [loop])).stalls[0]
        #expect(stall.diagnosis == StallDiagnosis(kind: .lock, text: "waiting on a lock (futex) for 200ms"))
    }

    @Test func aStallOngoingAtExitGetsTheSamplesKeyedByItsStart() {
        let start = Fixture.spawnNs + 4 * Fixture.second
        var loop = Fixture.loop(tid: 100, lastSnapshot: LoopSnapshot(activity: .afterWaiting, sinceNs: start))
        loop.stallSamples = [start: Self.samples(from: start, count: 5, Self.parse)]
        let stall = build(Fixture.recording(loops: [loop])).stalls[0]
        #expect(stall.ongoingAtExit)
        #expect(stall.samples == 5)
        #expect(stall.culprit == Self.parse)
    }

    @Test func stallsInTheSameCodeShareAFingerprintGroup() throws {
        let starts = [1, 2, 3, 4].map { Self.spawn + UInt64($0) * Fixture.second }
        var loop = Fixture.loop(
            tid: 100,
            stallRecords: [
                Self.record(starts[0], 150 * Self.ms), Self.record(starts[1], 400 * Self.ms),
                Self.record(starts[2], 200 * Self.ms), Self.record(starts[3], 500 * Self.ms),
            ])
        loop.stallSamples = [
            starts[0]: Self.samples(from: starts[0], count: 2, Self.decode),
            starts[1]: Self.samples(from: starts[1], count: 4, Self.parse),
            starts[2]: Self.samples(from: starts[2], count: 3, Self.decode),
        ]
        let report = build(Fixture.recording(loops: [loop]))
        let decodeId = try #require(report.stalls[0].fingerprint)
        let parseId = try #require(report.stalls[1].fingerprint)
        #expect(report.stalls[2].fingerprint == decodeId)
        #expect(report.stalls[3].fingerprint == nil)
        #expect(
            report.fingerprints == [
                FingerprintReport(
                    id: parseId, frames: ["ImageViewer`ConfigLoader.parse(_:)", "ImageViewer`main"], count: 1,
                    totalNs: 400 * Self.ms, worstNs: 400 * Self.ms, stallIds: [2]),
                FingerprintReport(
                    id: decodeId, frames: ["ImageViewer`ImageDecoder.decodeImage(_:)", "ImageViewer`main"], count: 2,
                    totalNs: 350 * Self.ms, worstNs: 200 * Self.ms, stallIds: [1, 3]),
            ])
    }

    @Test func fingerprintGroupsWithEqualTotalsAreOrderedById() {
        let a = StackFingerprint(frames: ["x`a"])
        let b = StackFingerprint(frames: ["x`b"])
        let groups = FingerprintReport.groups([
            (Fixture.stall(id: 2, startNs: 0, durationNs: 200 * Self.ms), b),
            (Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Self.ms), a),
        ])
        #expect(groups.map(\.id) == [a.id, b.id].sorted())
    }

    /// Stall durations come from the channel, which the target can write: a group's total
    /// saturates (the live hostile fuzzer aborted lagmon here, an arithmetic overflow).
    @Test func aFingerprintGroupsTotalSaturates() {
        let a = StackFingerprint(frames: ["x`a"])
        let groups = FingerprintReport.groups([
            (Fixture.stall(id: 1, startNs: 0, durationNs: UInt64.max - 5), a),
            (Fixture.stall(id: 2, startNs: 0, durationNs: UInt64.max - 5), a),
        ])
        #expect(groups.map(\.totalNs) == [UInt64.max])
        #expect(groups.map(\.count) == [2])
    }

    @Test func samplingSumsUpEverySampleOfEveryLoop() {
        var main = Fixture.loop(tid: 100)
        main.stallSamples = [
            Self.spawn: [
                Fixture.sample(at: 1, [Self.decode], pauseNs: 40_000, unwindNs: 60_000),
                Fixture.sample(at: 2, [Self.decode], outcome: .truncated, pauseNs: 10_000, unwindNs: 10_000),
            ],
            // Samples of a stall whose record was lost still cost the target.
            Self.spawn + Fixture.second: [Fixture.sample(at: 3, [], outcome: .failed, pauseNs: 90_000, unwindNs: 0)],
        ]
        var worker = Fixture.loop(tid: 200)
        worker.stallSamples = [Self.spawn: [Fixture.sample(at: 4, [Self.decode], pauseNs: 20_000, unwindNs: 5_000)]]
        let sampling = build(Fixture.recording(loops: [main, worker])).sampling
        #expect(
            sampling
                == SamplingReport(
                    samples: 4, pauseNsP50: 20_000, pauseNsP99: 90_000, pauseNsMax: 90_000, sampleNsP50: 25_000,
                    unwindErrors: 1, truncated: 1, completeness: 0.5))
    }

    /// A thread in D could not be stopped: its state-only samples diagnose the stall, and add
    /// no stack, no sample count and no pause.
    @Test func stateOnlySamplesDiagnoseButAreNoStacks() throws {
        var state = Fixture.state(.diskSleep, syscall: "write", fd: 6, target: "/mnt/data")
        state.kernelStack = ["percpu_rwsem_wait", "vfs_write"]
        var only = StackSample(
            timestampNs: Self.spawn + 10 * Self.ms, tid: 100, addresses: [], outcome: .failed, pauseNs: 0,
            unwindNs: 0, state: state)
        only.isStateOnly = true
        var main = Fixture.loop(
            tid: 100,
            stallRecords: [StallRecord(startNs: Self.spawn, endNs: Self.spawn + 300 * Self.ms, activity: .afterWaiting)]
        )
        main.liveStallNoticedNs = [Self.spawn: Self.spawn + 100 * Self.ms]
        main.stallSamples = [
            Self.spawn: [ResolvedSample(sample: only, frames: []), ResolvedSample(sample: only, frames: [])]
        ]
        let report = build(Fixture.recording(loops: [main]))
        let stall = try #require(report.stalls.first)
        #expect(
            stall.diagnosis
                == StallDiagnosis(kind: .io, text: "in uninterruptible I/O writing /mnt/data (fd 6) for 300ms"))
        #expect(stall.samples == 0 && stall.stacks.isEmpty && stall.culprit == nil)
        #expect(stall.uninterruptible?.withoutStack == 2)
        #expect(stall.uninterruptible?.kernelStack == ["percpu_rwsem_wait", "vfs_write"])
        #expect(report.sampling.samples == 0)
    }

    @Test func withoutSamplesSamplingIsZeroAndSaysWhy() {
        var recording = Fixture.recording(loops: [Fixture.loop(tid: 100)])
        recording.samplesLost = 2
        #expect(
            build(recording).sampling
                == SamplingReport(
                    samples: 0, pauseNsP50: 0, pauseNsP99: 0, pauseNsMax: 0, sampleNsP50: 0, unwindErrors: 0,
                    truncated: 0, completeness: 0, samplesLost: 2))
        recording.samplingUnavailable = "ptrace refused"
        let report = build(recording)
        #expect(report.sampling.unavailable == "ptrace refused")
        #expect(
            report.diagnostics == [
                Diagnostic(code: "stacks-unavailable", severity: .warning, message: "ptrace refused")
            ])
    }

    @Test func threadsAreListedByThreadId() {
        let cpu = ThreadCPU(avgPct: 12.5, maxPct: 40, totalNs: 625 * Self.ms)
        var recording = Fixture.recording(loops: [])
        recording.threads = [
            ThreadReport(tid: 4250, name: "worker", state: "R", cpu: cpu, alerts: []),
            ThreadReport(tid: 4242, name: "ImageViewer", state: "S", cpu: cpu, alerts: []),
        ]
        #expect(build(recording).threads.map(\.tid) == [4242, 4250])
    }

    @Test func configCarriesTheSamplingSettings() {
        var recording = Fixture.recording(loops: [])
        recording.sampleIntervalNs = 5 * Self.ms
        recording.cpuIntervalNs = 500 * Self.ms
        recording.cpuAlertPct = 90
        #expect(
            build(recording).config
                == RunConfig(
                    thresholdNs: 100 * Self.ms, loops: "main", sampleIntervalNs: 5 * Self.ms,
                    cpuIntervalNs: 500 * Self.ms, cpuAlertPct: 90))
    }
}
