import LagmonCore
import Testing

/// Run-queue time, major faults and the busiest other processes over a stall's samples.
struct ContentionAnalyzerTests {
    static func sample(at ms: UInt64, runDelayMs: UInt64, onCPUMs: UInt64, faults: UInt64?) -> StackSample {
        var state = Fixture.state(.running, runDelayNs: runDelayMs * Fixture.ms)
        state.onCPUNs = onCPUMs * Fixture.ms
        state.majorFaults = faults
        return StackSample(
            timestampNs: ms * Fixture.ms, tid: 100, addresses: [1], outcome: .complete, pauseNs: 1, unwindNs: 1,
            state: state)
    }

    @Test func theSpanBetweenFirstAndLastSampleIsMeasured() throws {
        var last = Self.sample(at: 300, runDelayMs: 260, onCPUMs: 50, faults: 19)
        last.busiestOthers = [ProcessCPU(pid: 812, name: "stress", cpuNs: 290 * Fixture.ms, windowNs: 300 * Fixture.ms)]
        // Out of order on purpose: the analysis orders by time.
        let samples = [last, Self.sample(at: 100, runDelayMs: 100, onCPUMs: 20, faults: 5)]
        let report = try #require(ContentionAnalyzer.analyze(samples))
        #expect(report.spanNs == 200 * Fixture.ms && report.runQueueNs == 160 * Fixture.ms)
        #expect(report.runQueueShare == 0.8 && report.onCPUNs == 30 * Fixture.ms)
        #expect(report.majorFaults == 14)
        #expect(
            ContentionAnalyzer.suffix(report, kind: .runqueue)
                == "; 80% of it in the run queue, busiest other: stress (pid 812) 290ms; 14 major page faults")
        #expect(ContentionAnalyzer.suffix(report, kind: .io) == "; 14 major page faults")
        #expect(ContentionAnalyzer.suffix(report, kind: .cpu).isEmpty)
        #expect(ContentionAnalyzer.suffix(report, kind: .lock).isEmpty)
    }

    @Test func theOpeningAndClosingReadingsSpanTheStallWhateverTheSamples() throws {
        // One sample, taken when the starved thread at last got a CPU; the period's readings at
        // its first request and at its end hold the run-queue time schedstat counted since.
        var only = Self.sample(at: 150, runDelayMs: 130, onCPUMs: 3, faults: 0)
        let opening = Self.sample(at: 100, runDelayMs: 90, onCPUMs: 2, faults: 0)
        let closing = Self.sample(at: 500, runDelayMs: 440, onCPUMs: 40, faults: 2)
        only.openingState = TimedThreadState(timestampNs: opening.timestampNs, state: try #require(opening.state))
        only.closingState = TimedThreadState(timestampNs: closing.timestampNs, state: try #require(closing.state))
        let report = try #require(ContentionAnalyzer.analyze([only]))
        #expect(report.spanNs == 400 * Fixture.ms && report.runQueueNs == 350 * Fixture.ms)
        #expect(report.onCPUNs == 38 * Fixture.ms && report.majorFaults == 2)
        #expect(report.runQueueShare == 0.875)
    }

    @Test func aWaitCountedWholeNeverMakesTheRunQueueTimeExceedTheTimeOffTheCPU() {
        // A wait under way at the opening reading is added whole when the thread runs again.
        let report = ContentionReport(spanNs: 400 * Fixture.ms, runQueueNs: 420 * Fixture.ms, onCPUNs: 20 * Fixture.ms)
        #expect(report.runQueueNs == 380 * Fixture.ms && report.runQueueShare == 0.95)
        let ranLonger = ContentionReport(spanNs: 10, runQueueNs: 5, onCPUNs: 30)
        #expect(ranLonger.runQueueNs == 0 && ranLonger.runQueueShare == 0)
    }

    @Test func fewerThanTwoSamplesOrUnreadFaultsSayNothing() throws {
        #expect(ContentionAnalyzer.analyze([Self.sample(at: 1, runDelayMs: 0, onCPUMs: 0, faults: 0)]) == nil)
        let samples = [
            Self.sample(at: 100, runDelayMs: 50, onCPUMs: 0, faults: nil),
            // A counter that went backwards (a reused tid) never underflows; the share stays ≤ 1.
            Self.sample(at: 110, runDelayMs: 10, onCPUMs: 0, faults: 3),
        ]
        let report = try #require(ContentionAnalyzer.analyze(samples))
        #expect(report.majorFaults == nil && report.runQueueNs == 0)
        #expect(ContentionAnalyzer.suffix(report, kind: .cpu).isEmpty)
    }

    @Test func aFileTakingHalfTheRecordedFaultsIsNamed() throws {
        var first = Self.sample(at: 100, runDelayMs: 0, onCPUMs: 0, faults: 5)
        let files = [
            PageFaultFile(path: "/var/lib/app/index.db", faults: 300), PageFaultFile(path: "[anonymous]", faults: 8),
            PageFaultFile(path: "/usr/lib/libc.so.6", faults: 3), PageFaultFile(path: "/a", faults: 1),
        ]
        first.majorFaultSites = MajorFaultSites(recorded: 312, lost: 0, files: files)
        let report = try #require(
            ContentionAnalyzer.analyze([first, Self.sample(at: 400, runDelayMs: 0, onCPUMs: 10, faults: 320)]))
        #expect(report.majorFaults == 315 && report.majorFaultsRecorded == 312)
        #expect(report.majorFaultFiles == Array(files.prefix(3)) && report.majorFaultFilesUnavailable == nil)
        let named = "; 312 major page faults, 96% in /var/lib/app/index.db"
        #expect(ContentionAnalyzer.suffix(report, kind: .io) == named)
        #expect(ContentionAnalyzer.suffix(report, kind: .cpu) == named)
        #expect(ContentionAnalyzer.suffix(report, kind: .lock).isEmpty)
        // Below half, no file dominates: the count alone.
        var spread = report
        spread.majorFaultFiles = [PageFaultFile(path: "/a", faults: 155), PageFaultFile(path: "/b", faults: 150)]
        #expect(ContentionAnalyzer.suffix(spread, kind: .io) == "; 315 major page faults")
        #expect(ContentionAnalyzer.suffix(spread, kind: .cpu).isEmpty)
    }

    @Test func unmeasuredFilesAreSaidToBe() throws {
        var first = Self.sample(at: 100, runDelayMs: 0, onCPUMs: 0, faults: 0)
        first.majorFaultSites = .unavailable("perf_event_open failed: Permission denied")
        let report = try #require(
            ContentionAnalyzer.analyze([first, Self.sample(at: 400, runDelayMs: 0, onCPUMs: 10, faults: 14)]))
        #expect(report.majorFaultsRecorded == nil && report.majorFaultFiles == nil)
        #expect(
            ContentionAnalyzer.suffix(report, kind: .io)
                == "; 14 major page faults (files not measured: perf_event_open failed: Permission denied)")
    }

    @Test func theBusiestOthersLeaveOutTheExcludedAndTheIdle() {
        let before: [Int32: ProcessTicks] = [
            1: ProcessTicks(name: "a", ticks: 10), 2: ProcessTicks(name: "b", ticks: 5),
            3: ProcessTicks(name: "c", ticks: 0),
        ]
        let after: [Int32: ProcessTicks] = [
            1: ProcessTicks(name: "a", ticks: 40), 2: ProcessTicks(name: "b", ticks: 5),
            3: ProcessTicks(name: "c", ticks: 90),
            4: ProcessTicks(name: "new", ticks: 500),
        ]
        let busiest = ProcessTicks.busiest(
            before: before, after: after, ticksPerSecond: 100, windowNs: 1, excluding: [3])
        #expect(busiest == [ProcessCPU(pid: 1, name: "a", cpuNs: 300 * Fixture.ms, windowNs: 1)])
    }
}
