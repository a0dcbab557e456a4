import LagmonCore

/// Hand-made recordings and reports shared by the builder, rules and writer tests. Times are
/// channel-clock nanoseconds; the helpers keep each test's own numbers visible at the call site.
enum Fixture {
    static let ms: UInt64 = 1_000_000
    static let second: UInt64 = 1_000_000_000
    /// Spawn instant on the channel clock: far from zero, so "relative to spawn" is visible.
    static let spawnNs: UInt64 = 7 * second

    /// A loop with no busy periods, stalls or open state unless the caller adds them.
    static func loop(
        tid: Int32, name: String = "main", claimedNs: UInt64 = spawnNs, passes: UInt64 = 0,
        busyBuckets: [Int: UInt64] = [:], busyCount: UInt64 = 0, busyTotalNs: UInt64 = 0,
        busyMaxNs: UInt64 = 0, openBusySinceNs: UInt64? = nil,
        lastSnapshot: LoopSnapshot = LoopSnapshot(activity: .beforeWaiting, sinceNs: spawnNs),
        stallRecords: [StallRecord] = [], stallRecordsLost: UInt64 = 0, liveStallNoticedNs: [UInt64: UInt64] = [:]
    ) -> LoopRecording {
        LoopRecording(
            thread: ThreadRef(tid: tid, name: name), pid: 4242, observer: "cfrunloop", claimedNs: claimedNs,
            passes: passes, transitions: passes * 4, busyCount: busyCount, busyTotalNs: busyTotalNs,
            busyMaxNs: busyMaxNs, busyBuckets: busyBuckets, openBusySinceNs: openBusySinceNs,
            lastSnapshot: lastSnapshot, stallRecords: stallRecords, stallRecordsLost: stallRecordsLost,
            liveStallNoticedNs: liveStallNoticedNs)
    }

    /// A session of `wallNs` after `spawnNs` with a 100 ms threshold.
    static func recording(
        loops: [LoopRecording], wallNs: UInt64 = 5 * second, exit: TargetExit? = .exited(0),
        thresholdNs: UInt64 = 100 * ms, probe: ProbeStatus = ProbeStatus(preloadLoaded: true, observerInstalled: true),
        lateness: LatenessTally = LatenessTally(toleranceNs: 1 * ms), clockBaseNs: UInt64 = 0
    ) -> SessionRecording {
        SessionRecording(
            command: ["/opt/demo/bin/ImageViewer", "--slow"], pid: 4242, startedAt: "2025-01-02T03:04:05.678Z",
            clockBaseNs: clockBaseNs, spawnNs: spawnNs, endNs: spawnNs + wallNs, exit: exit, thresholdNs: thresholdNs,
            loops: loops,
            probe: probe, lateness: lateness)
    }

    /// A lateness tally whose only wake-up was `lateNs` late.
    static func lateness(maxNs lateNs: UInt64, toleranceNs: UInt64 = 1 * ms) -> LatenessTally {
        var tally = LatenessTally(toleranceNs: toleranceNs)
        tally.record(deadlineNs: 1_000, wokeNs: 1_000 + lateNs)
        return tally
    }

    /// A stall report with the given start and duration (relative nanoseconds).
    static func stall(
        id: Int, tid: Int32 = 100, startNs: UInt64, durationNs: UInt64, activity: LoopActivity = .afterWaiting,
        ongoingAtExit: Bool = false, seenLive: Bool = true, profile: StackProfile = .empty,
        diagnosis: StallDiagnosis = StallDiagnoser.noSamples
    ) -> StallReport {
        StallReport(
            id: id, thread: ThreadRef(tid: tid, name: "main"), startNs: startNs, durationNs: durationNs,
            activity: activity, ongoingAtExit: ongoingAtExit, seenLive: seenLive, profile: profile,
            diagnosis: diagnosis)
    }

    // MARK: Stacks

    /// Where `ImageViewer` is loaded in the fixtures' imaginary run; `slide` moves it (ASLR).
    static let imageBase: UInt64 = 0x5555_0000_0000

    /// A frame of `module` at `offset`, loaded at `imageBase + slide`.
    static func frame(
        _ symbol: String?, _ module: String = "ImageViewer", offset: UInt64 = 0x100, slide: UInt64 = 0,
        file: String? = nil, line: Int? = nil
    ) -> Frame {
        Frame(
            symbol: symbol, module: module, offset: offset, address: imageBase + slide + offset, file: file,
            line: line)
    }

    /// The frames every fixture stack shares, innermost first: the run loop down to `main`.
    static let runLoopFrames = [
        frame("__CFRunLoopDoTimer", "libCoreFoundation.so", offset: 0x9a0),
        frame("__CFRunLoopRun", "libCoreFoundation.so", offset: 0x7f0),
        frame("CFRunLoopRunSpecific", "libCoreFoundation.so", offset: 0x610),
        frame("main", offset: 0x40),
        frame("__libc_start_call_main", "libc.so.6", offset: 0x29d90),
    ]

    /// A thread state: running, unless a system call is given.
    static func state(
        _ scheduler: SchedulerState = .running, syscall: String? = nil, fd: UInt64 = 0, target: String? = nil,
        wchan: String? = nil, runDelayNs: UInt64 = 0
    ) -> ThreadStateSample {
        let call = syscall.map { name in
            SyscallInfo(
                number: SyscallTable.names.first { $0.value == name }?.key ?? 0, name: name,
                arguments: [fd, 0, 0, 0, 0, 0], descriptorTarget: target)
        }
        return ThreadStateSample(state: scheduler, syscall: call, wchan: wchan, runDelayNs: runDelayNs, onCPUNs: 0)
    }

    /// A symbolized sample at `timestampNs` whose frames are `frames` (innermost first).
    static func sample(
        at timestampNs: UInt64 = 0, _ frames: [Frame], outcome: UnwindOutcome = .complete, pauseNs: UInt64 = 40_000,
        unwindNs: UInt64 = 60_000, state: ThreadStateSample? = Fixture.state()
    ) -> ResolvedSample {
        ResolvedSample(
            sample: StackSample(
                timestampNs: timestampNs, tid: 100, addresses: frames.map(\.address), outcome: outcome,
                pauseNs: pauseNs, unwindNs: unwindNs, state: state),
            frames: frames)
    }

    /// A complete report built directly (not through ReportBuilder), so writer tests control
    /// every number they print.
    static func report(
        command: [String] = ["/opt/demo/bin/ImageViewer", "--slow"], exitStatus: Int32 = 0,
        signal: Int32? = nil, loops: [LoopReport]? = nil, stalls: [StallReport] = [],
        diagnostics: [Diagnostic] = [], thresholdNs: UInt64 = 100 * ms, fingerprints: [FingerprintReport] = [],
        threads: [ThreadReport] = [], sampling: SamplingReport = SamplingReport(samples: [])
    ) -> Report {
        let mainLoop = LoopReport(
            thread: ThreadRef(tid: 4242, name: "ImageViewer"), pid: 4242, observer: "cfrunloop", iterations: 1200,
            transitions: 4800, busyNs: 1_250 * ms, observedNs: 5 * second,
            latency: LatencySummary(count: 3, p50Ns: 1 * ms, p90Ns: 2 * ms, p99Ns: 3 * ms, maxNs: 4 * ms),
            stallCount: stalls.count)
        return Report(
            tool: ToolInfo(version: "0.1.0"),
            target: TargetInfo(
                command: command, pid: 4242, exitStatus: exitStatus, signal: signal,
                signalName: signal.map(SignalNames.name(of:)), startedAt: "2025-01-02T03:04:05.678Z",
                monotonicStartNs: 123_456_789_012, wallNs: 5 * second),
            config: RunConfig(thresholdNs: thresholdNs),
            summary: StallSummary(stalls: stalls, thresholdNs: thresholdNs),
            loops: loops ?? [mainLoop], stalls: stalls,
            watchdog: WatchdogReport(
                wakeups: 50, lateWakeups: 2, latenessMaxNs: 3 * ms, latenessP99Ns: 2 * ms, toleranceNs: 1 * ms,
                observerPosts: 7),
            diagnostics: diagnostics, fingerprints: fingerprints, threads: threads, sampling: sampling)
    }
}
