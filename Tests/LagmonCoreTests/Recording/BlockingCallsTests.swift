import LagmonCore
import Testing

/// StrictMode's records as the channel gives them (untrusted), the report's `blockingCalls`, the
/// `strict.*` budget metrics and the summary's section.
struct BlockingCallsTests {
    static let ms = Fixture.ms

    @Test(arguments: [
        (code: UInt32(0), count: UInt64(1), totalNs: UInt64(5), maxNs: UInt64(5)),  // no such call
        (code: 23, count: 1, totalNs: 5, maxNs: 5),  // one past the last
        (code: 1, count: 0, totalNs: 0, maxNs: 0),  // no call
        (code: 1, count: 2, totalNs: 5, maxNs: 6),  // longest beyond all
        (code: 1, count: 2, totalNs: 13, maxNs: 6),  // more than count times the longest
    ])
    func impossibleRecordsAreRejected(code: UInt32, count: UInt64, totalNs: UInt64, maxNs: UInt64) {
        #expect(BlockingCallRecord(callCode: code, siteAddress: 1, count: count, totalNs: totalNs, maxNs: maxNs) == nil)
    }

    @Test func possibleRecordsAreKept() throws {
        let record = try #require(
            BlockingCallRecord(callCode: 9, siteAddress: 0x40_1000, count: 2, totalNs: 12, maxNs: 6))
        #expect(record.call == .getaddrinfo)
        #expect(record.call.category == "dns")
        // count × max overflows: the bound cannot be broken.
        #expect(BlockingCallRecord(callCode: 14, siteAddress: 1, count: .max, totalNs: .max, maxNs: .max) != nil)
        #expect(BlockingCall.clockNanosleep.name == "clock_nanosleep")
        #expect(BlockingCall.allCases.map(\.rawValue) == Array(1...22))
        #expect(BlockingCall.pwritev.category == "file")
    }

    static func strictRecording() -> SessionRecording {
        var main = Fixture.loop(tid: 4242)
        main.blockingCalls = [
            BlockingCallRecord(call: .read, siteAddress: 0x1000, count: 3, totalNs: 3 * ms, maxNs: 2 * ms),
            BlockingCallRecord(call: .usleep, siteAddress: 0x2000, count: 1, totalNs: 10 * ms, maxNs: 10 * ms),
        ]
        main.blockingCalls[0].site = Frame(symbol: "load_config", module: "app", offset: 0x1000, address: 0x1000)
        main.blockingCallsUnrecorded = 4
        var recording = Fixture.recording(loops: [main])
        recording.strict = true
        return recording
    }

    @Test func theReportListsThemMostTimeFirst() throws {
        let report = ReportBuilder(toolVersion: "test").build(Self.strictRecording())
        let calls = try #require(report.blockingCalls)
        #expect(calls.map(\.call) == ["usleep", "read"])
        #expect(calls[0].site.symbol == nil)
        #expect(calls[0].site.address == 0x2000)
        #expect(calls[1].site.symbol == "load_config")
        #expect(calls[1].thread.tid == 4242)
        #expect(report.blockingCallsUnrecorded == 4)
        #expect(report.config.strict == true)
    }

    @Test func strictMetricsSumTheCalls() {
        let metrics = ReportMetrics(ReportBuilder(toolVersion: "test").build(Self.strictRecording()))
        #expect(metrics.read(.strictCount) == .value(8))
        #expect(metrics.read(.strictTotal) == .value(Double(13 * Self.ms)))
        #expect(metrics.read(.strictMax) == .value(Double(10 * Self.ms)))
        let off = ReportMetrics(
            ReportBuilder(toolVersion: "test").build(Fixture.recording(loops: [Fixture.loop(tid: 1)])))
        guard case .unavailable(let reason) = off.read(.strictCount) else {
            Issue.record("strict.count without StrictMode read as a value")
            return
        }
        #expect(reason.contains("--no-strict"))
    }

    @Test func theSummaryHasASection() {
        let lines = TerminalSummaryWriter(style: TerminalStyle(colors: false))
            .lines(ReportBuilder(toolVersion: "test").build(Self.strictRecording()))
        #expect(lines.contains("8 blocking calls on loop threads (StrictMode): 13ms in all"))
        #expect(lines.contains("  usleep ×1 (sleep) 10ms, max 10ms at ?+0x2000"))
        #expect(lines.contains("  read ×3 (file) 3ms, max 2ms at load_config"))
        #expect(lines.contains("  4 more from call sites beyond what the probe's table holds"))
    }

    @Test func budgetsNameTheStrictMetrics() throws {
        #expect(try BudgetExpression(parsing: "strict < 1").metric == .strictCount)
        #expect(try BudgetExpression(parsing: "strict.total < 5ms").metric == .strictTotal)
        #expect(try BudgetExpression(parsing: "strict.max <= 1ms").metric.description == "strict.max")
    }
}
