import Testing

@testable import LagmonCore

/// The /proc probe turns readings into what an in-target observer would have written.
/// Readings are hand-made: a reading at `atMs` that took 10 µs.
struct ProcLoopProbeTests {
    static let ms: UInt64 = 1_000_000
    static let threshold: UInt64 = 100 * ms

    static func reading(
        _ state: ProcLoopReading.State, atMs: UInt64, onCPUMs: UInt64 = 0, queuedMs: UInt64 = 0, slices: UInt64 = 0
    ) -> ProcLoopReading {
        ProcLoopReading(
            state: state, beganNs: atMs * ms, endedNs: atMs * ms + 10_000,
            schedstat: ProcSchedstat(onCPUNs: onCPUMs * ms, runDelayNs: queuedMs * ms, timeslices: slices))
    }

    /// Feeds `states`, one reading per millisecond from 1 ms.
    static func probe(_ states: [ProcLoopReading.State]) -> ProcLoopProbe {
        var probe = ProcLoopProbe(thresholdNs: threshold)
        for (index, state) in states.enumerated() { probe.record(reading(state, atMs: UInt64(index) + 1)) }
        return probe
    }

    @Test func aTransitionIsTheMiddleOfTheSpanAroundIt() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(Self.reading(.waiting, atMs: 10))
        let snapshot = probe.record(Self.reading(.busy, atMs: 11))
        // From 10 ms (the waiting read's start) to 11.01 ms (the busy read's end).
        #expect(snapshot == LoopSnapshot(activity: .afterWaiting, sinceNs: 10 * Self.ms + 505_000))
        #expect(probe.openBusySinceNs == 10 * Self.ms + 505_000)
        #expect(probe.timingErrorNs == 505_000)
        #expect(probe.transitions == 1)
        #expect(probe.passes == 1)
    }

    @Test func aLateReadingWidensTheErrorBound() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(Self.reading(.waiting, atMs: 10))
        probe.record(Self.reading(.busy, atMs: 11))
        probe.record(Self.reading(.waiting, atMs: 19))  // 8 ms late
        #expect(probe.timingErrorNs == 4 * Self.ms + 5_000)
        #expect(probe.snapshot == LoopSnapshot(activity: .beforeWaiting, sinceNs: 15 * Self.ms + 5_000))
    }

    @Test func aBusyPeriodOverTheThresholdIsAStallAndALongIteration() {
        // Waiting at 1 ms, busy from 2 ms to 152 ms, waiting at 153 ms.
        let probe = Self.probe([.waiting] + Array(repeating: .busy, count: 151) + [.waiting])
        let start = 1 * Self.ms + 505_000
        let end = 152 * Self.ms + 505_000
        #expect(probe.stallRecords == [StallRecord(startNs: start, endNs: end, activity: .afterWaiting, ordinal: 1)])
        #expect(probe.longIterations == [LongIterationRecord(startNs: start, endNs: end, endSeen: true)])
        #expect(probe.busyCount == 1)
        #expect(probe.busyMaxNs == end - start)
        #expect(probe.busyBuckets == [LatencyBuckets.index(of: end - start): 1])
        #expect(probe.openBusySinceNs == nil)
        #expect(probe.snapshot.activity == .beforeWaiting)
    }

    @Test func aBusyPeriodOfExactlyTheThresholdIsNoStall() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(ProcLoopReading(state: .waiting, beganNs: 0, endedNs: 0))
        // It woke at 1 ns and slept at the threshold + 1 ns.
        probe.record(ProcLoopReading(state: .busy, beganNs: 2, endedNs: 2))
        probe.record(ProcLoopReading(state: .busy, beganNs: Self.threshold, endedNs: Self.threshold))
        probe.record(ProcLoopReading(state: .waiting, beganNs: Self.threshold + 2, endedNs: Self.threshold + 2))
        #expect(probe.busyMaxNs == Self.threshold)
        #expect(probe.stallRecords.isEmpty)
    }

    @Test func busyAtTheFirstReadingCountsFromThatReading() {
        let probe = Self.probe([.busy, .busy, .busy])
        #expect(probe.snapshot == LoopSnapshot(activity: .afterWaiting, sinceNs: 1 * Self.ms))
        #expect(probe.openBusySinceNs == 1 * Self.ms)
        #expect(probe.firstReadingNs == 1 * Self.ms)
        #expect(probe.passes == 1)
        #expect(probe.transitions == 0)
    }

    @Test func waitingAtTheFirstReadingIsIdle() {
        let probe = Self.probe([.waiting, .waiting])
        #expect(probe.snapshot == LoopSnapshot(activity: .beforeWaiting, sinceNs: 1 * Self.ms))
        #expect(probe.passes == 0)
        #expect(probe.busyCount == 0)
    }

    @Test func anIterationBetweenTwoWaitingReadingsIsInferredFromSchedstat() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(Self.reading(.waiting, atMs: 10, onCPUMs: 50, queuedMs: 5, slices: 7))
        // Between the readings it waited 1 ms for a CPU, then ran 1 ms.
        probe.record(Self.reading(.waiting, atMs: 14, onCPUMs: 51, queuedMs: 6, slices: 8))
        #expect(probe.passes == 1)
        #expect(probe.busyCount == 1)
        #expect(probe.busyTotalNs == 2 * Self.ms)
        #expect(probe.transitions == 0)
        #expect(probe.snapshot == LoopSnapshot(activity: .beforeWaiting, sinceNs: 10 * Self.ms))
    }

    @Test func noInferenceWithoutANewTimeSliceOrCPUTime() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(Self.reading(.waiting, atMs: 10, onCPUMs: 50, slices: 7))
        probe.record(Self.reading(.waiting, atMs: 11, onCPUMs: 50, slices: 8))
        probe.record(Self.reading(.waiting, atMs: 12, onCPUMs: 51, slices: 8))
        probe.record(ProcLoopReading(state: .waiting, beganNs: 13 * Self.ms, endedNs: 13 * Self.ms))
        #expect(probe.busyCount == 0)
    }

    @Test func anInferredPeriodNeverExceedsTheSpanBetweenReadings() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        probe.record(Self.reading(.waiting, atMs: 10, onCPUMs: 0, slices: 0))
        probe.record(Self.reading(.waiting, atMs: 12, onCPUMs: 30, slices: 1))
        #expect(probe.busyMaxNs == 2 * Self.ms + 10_000)
    }

    @Test func aGoneReadingChangesNothing() {
        var probe = Self.probe([.waiting, .busy])
        let before = probe.snapshot
        #expect(probe.record(ProcLoopReading(state: .gone, beganNs: 5 * Self.ms, endedNs: 5 * Self.ms)) == before)
        #expect(probe.transitions == 1)
    }

    /// A stack sample stops the thread inside `poll`; the kernel resumes it as `restart_syscall`.
    /// That is still the wait (no iteration), or still the busy call it interrupted.
    @Test func aResumedCallKeepsThePreviousState() {
        let waiting = Self.probe([.waiting] + Array(repeating: .resuming, count: 300) + [.waiting])
        #expect(waiting.transitions == 0)
        #expect(waiting.stallRecords.isEmpty)
        #expect(waiting.snapshot.activity == .beforeWaiting)

        let busy = Self.probe([.waiting, .busy] + Array(repeating: .resuming, count: 150) + [.waiting])
        #expect(busy.transitions == 2)
        #expect(busy.stallRecords.count == 1)
    }

    @Test func aResumedCallAtTheFirstReadingIsBusy() {
        let probe = Self.probe([.resuming])
        #expect(probe.snapshot.activity == .afterWaiting)
    }

    @Test func aLongBusyPeriodOpenAtTheEndIsALongIterationWithoutASeenEnd() {
        var probe = Self.probe([.waiting, .busy])
        probe.finish(atNs: 500 * Self.ms)
        let start = 1 * Self.ms + 505_000
        #expect(probe.longIterations == [LongIterationRecord(startNs: start, endNs: 500 * Self.ms, endSeen: false)])
        #expect(probe.stallRecords.isEmpty, "the report builder makes the stall open at exit")
    }

    @Test func longIterationsAreCapped() {
        var probe = ProcLoopProbe(thresholdNs: 1 * Self.ms, maxLongIterations: 2)
        for index in 0..<4 {
            let base = UInt64(index) * 10
            probe.record(Self.reading(.waiting, atMs: base + 1))
            probe.record(Self.reading(.busy, atMs: base + 2))
            probe.record(Self.reading(.waiting, atMs: base + 6))
        }
        #expect(probe.stallRecords.count == 4)
        #expect(probe.longIterations.count == 2)
        #expect(probe.longIterationsOmitted == 2)
    }

    @Test func theRecordingCarriesEverythingAsAProcLoop() {
        let probe = Self.probe([.waiting] + Array(repeating: .busy, count: 120) + [.waiting, .busy])
        let loop = probe.recording(
            thread: ThreadRef(tid: 7, name: "loop"), pid: 7, liveStallNoticedNs: [1_505_000: 102_000_000])
        #expect(loop.observer == "proc")
        #expect(loop.claimedNs == 1 * Self.ms)
        #expect(loop.passes == 2)
        #expect(loop.transitions == 3)
        #expect(loop.stallRecords.count == 1)
        #expect(loop.liveStallNoticedNs == [1_505_000: 102_000_000])
        #expect(loop.openBusySinceNs == probe.openBusySinceNs)
        #expect(loop.lastSnapshot.activity == .afterWaiting)
        #expect(loop.timingErrorNs == 505_000)
    }

    @Test func theDetectorSeesTheSameStallStartAsTheRecord() {
        var probe = ProcLoopProbe(thresholdNs: Self.threshold)
        var detector = StallDetector(configuration: .init(thresholdNs: Self.threshold))
        var began: [UInt64] = []
        let states: [ProcLoopReading.State] = [.waiting] + Array(repeating: .busy, count: 150) + [.waiting]
        for (index, state) in states.enumerated() {
            let reading = Self.reading(state, atMs: UInt64(index) + 1)
            let (events, _) = detector.observe(probe.record(reading), nowNs: reading.endedNs)
            for case .began(let stall) in events { began.append(stall.startNs) }
        }
        #expect(began == probe.stallRecords.map { $0.startNs })
    }
}

/// Which /proc syscall lines mean a loop between iterations.
struct ProcLoopReadingTests {
    static func line(_ number: Int) -> ProcSyscall {
        .inSyscall(
            number: number, arguments: [3, 0, 0, 0, 0, 0], stackPointer: 0x7ffd_0000, programCounter: 0x7f00_1234)
    }

    @Test(arguments: [232, 281, 441, 7, 271, 23, 270])
    func eventLoopWaitCallsAreWaiting(number: Int) {
        #expect(SyscallTable.isEventLoopWait(number))
        #expect(ProcLoopReading.state(of: Self.line(number)) == .waiting)
    }

    @Test func restartSyscallIsResuming() {
        #expect(ProcLoopReading.state(of: Self.line(219)) == .resuming)
        #expect(SyscallTable.name(219) == "restart_syscall")
    }

    @Test(arguments: [0, 1, 202, 35, 230, 61, 426, 233, 999])
    func otherCallsAreBusy(number: Int) {
        #expect(!SyscallTable.isEventLoopWait(number))
        #expect(ProcLoopReading.state(of: Self.line(number)) == .busy)
    }

    @Test func runningAndKernelWorkAreBusyAndAFreedStackIsGone() {
        #expect(ProcLoopReading.state(of: .running) == .busy)
        #expect(ProcLoopReading.state(of: .notInSyscall(stackPointer: 0x7ffd_0000, programCounter: 0x4010)) == .busy)
        #expect(ProcLoopReading.state(of: .notInSyscall(stackPointer: 0, programCounter: 0)) == .gone)
    }

    static let lines: [String] = [
        "running\n", "-1 0x7ffd42257c58 0x55d0c0de\n", "-1 0x0 0x0\n",
        "271 0x7ffec9a45cfc 0x1 0x0 0x0 0x8 0x0 0x7ffec9a45c80 0x7f8f99541308\n",
        "232 0x3 0x7f0dd780d000 0x20 0xffffffff 0x0 0x0 0x7ffd42257c58 0x7f0dd79892ad\n",
        "219 0x0 0x0 0x0 0x0 0x0 0x0 0x7ffd42257c58 0x7f0dd79892ad\n",
        "0 0x3 0x7f0dd780d000 0x20000 0x7f0dd78a0b60 0xffffffff 0x0 0x7ffd42257c58 0x7f0dd79892ad\n",
        "2147483647 0xffffffffffffffff 0x0 0x0 0x0 0x0 0xFFFFFFFFFFFFFFFF 0x0000000000000001 0x1\n",
    ]

    @Test(arguments: lines + ProcSyscallTests.garbled)
    func theFastPathAgreesWithTheFullParser(text: String) {
        let bytes = Array(text.utf8)
        guard let parsed = ProcSyscall.parse(bytes) else { return }
        #expect(ProcLoopReading.state(ofSyscallText: bytes[...]) == ProcLoopReading.state(of: parsed))
    }

    @Test(arguments: ["", "\n", "x 0x1\n", "-\n", "12345678901 0x1\n", "7", "7\n", "-1"])
    func textThatIsNoSyscallLineIsNil(text: String) {
        #expect(ProcLoopReading.state(ofSyscallText: Array(text.utf8)[...]) == nil)
    }

    @Test func randomBytesNeverCrashAndAgreeWhenTheyParse() {
        var generator = SplitMix(seed: 11)
        let alphabet = Array("0123456789abcx- \n".utf8)
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 40)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let fast = ProcLoopReading.state(ofSyscallText: bytes[...])
            if let parsed = ProcSyscall.parse(bytes) { #expect(fast == ProcLoopReading.state(of: parsed)) }
        }
    }

    @Test func anEndBeforeTheBeginningIsClamped() {
        #expect(ProcLoopReading(state: .busy, beganNs: 10, endedNs: 5).endedNs == 10)
    }
}

/// /proc/<pid>/cmdline and /proc/<pid>/status, hostile inputs included.
struct ProcProcessTextTests {
    @Test func argumentsAreSplitAtNULs() {
        #expect(
            ProcProcessText.commandLine(Array("/usr/bin/python3\0-m\0http.server\0".utf8)) == [
                "/usr/bin/python3", "-m", "http.server",
            ])
        #expect(ProcProcessText.commandLine(Array("a\0\0b\0".utf8)) == ["a", "", "b"])
    }

    @Test func rewrittenArgumentsReadAsWritten() {
        #expect(ProcProcessText.commandLine(Array("nginx: worker process".utf8)) == ["nginx: worker process"])
        #expect(ProcProcessText.commandLine([]) == [])
        #expect(ProcProcessText.commandLine([0]) == [""])
    }

    @Test func invalidUTF8IsReplaced() {
        #expect(ProcProcessText.commandLine([0x61, 0xff, 0x62, 0]) == ["a\u{FFFD}b"])
    }

    static let status = Array(
        "Name:\tlagmon-demo\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t1\nTracerPid:\t0\n"
            .utf8)

    @Test func statusNumbersAreFoundByName() {
        #expect(ProcProcessText.statusNumber("Tgid", in: Self.status) == 4242)
        #expect(ProcProcessText.statusNumber("Pid", in: Self.status) == 4243)
        #expect(ProcProcessText.statusNumber("TracerPid", in: Self.status) == 0)
        #expect(ProcProcessText.statusNumber("Ngid", in: Self.status) == 0)
    }

    @Test(arguments: ["", "Tgid:\n", "Tgid:\t\n", "Tgid:\t-1\n", "Tgid:\t12a\n", "Tgid:\t99999999999\n", "Tgi:\t5\n"])
    func missingOrGarbledNumbersAreNil(text: String) {
        #expect(ProcProcessText.statusNumber("Tgid", in: Array(text.utf8)) == nil)
    }

    @Test func aNameIsMatchedWholeAtTheStartOfALine() {
        #expect(ProcProcessText.statusNumber("Pid", in: Array("PPid:\t1\nTracerPid:\t9\n".utf8)) == nil)
    }
}
