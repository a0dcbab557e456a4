import LagmonCore
import Testing

/// Budgets evaluated on a report, and the verdict line lagmon prints last.
struct GateVerdictTests {
    static let ms = Fixture.ms

    /// Seven stalls, the longest 312 ms, over 5 s.
    static func report(exitStatus: Int32 = 0, signal: Int32? = nil, loops: [LoopReport]? = nil) -> Report {
        let durations: [UInt64] = [312, 150, 140, 130, 120, 110, 240]
        return Fixture.report(
            exitStatus: exitStatus, signal: signal, loops: loops,
            stalls: durations.enumerated().map { index, duration in
                Fixture.stall(id: index + 1, startNs: UInt64(index) * Fixture.second, durationNs: duration * ms)
            })
    }

    func budgets(_ texts: [(String, BudgetLevel)]) throws -> [Budget] {
        try texts.map { try Budget(parsing: $0.0, level: $0.1) }
    }

    @Test func failingErrorBudgetFailsWithTheIssuesLine() throws {
        let report = Self.report()
        let results = BudgetResult.evaluate(try budgets([("stall.max < 250ms", .error)]), on: report)
        #expect(results.count == 1)
        #expect(results[0].measured == 312e6)
        #expect(results[0].limit == 250e6)
        #expect(!results[0].passed)
        let verdict = GateVerdict(budgets: results, report: report)
        #expect(!verdict.passed)
        #expect(verdict.line == "FAIL stall.max=312ms (limit <250ms) · 7 stalls · blocking 502ms (10%)")
    }

    @Test func passingBudgetsPassAndWarningsAreNamed() throws {
        let report = Self.report()
        let results = BudgetResult.evaluate(
            try budgets([("stall.max < 1s", .error), ("stall.count <= 3", .warn), ("blocking.ratio < 20%", .error)]),
            on: report)
        let verdict = GateVerdict(budgets: results, report: report)
        #expect(verdict.passed)
        #expect(
            verdict.line
                == "PASS 3 budgets (1 warning: stall.count=7 (limit <=3)) · 7 stalls · blocking 502ms (10%)")
    }

    @Test func offBudgetsAreNotEvaluated() throws {
        let results = BudgetResult.evaluate(try budgets([("stall.max < 1ms", .off)]), on: Self.report())
        #expect(results.isEmpty)
        #expect(GateVerdict(budgets: results, report: Self.report()).passed)
    }

    @Test func unmeasurableBudgetsFail() throws {
        let report = Self.report(loops: [])
        let results = BudgetResult.evaluate(try budgets([("stall.count < 1", .error)]), on: report)
        #expect(results[0].measured == nil)
        #expect(results[0].unavailable?.contains("no run loop was observed") == true)
        let verdict = GateVerdict(budgets: results, report: report)
        #expect(!verdict.passed)
        #expect(verdict.line.hasPrefix("FAIL stall.count not measured: no run loop was observed"))
        #expect(verdict.line.contains("no run loop observed"))
    }

    @Test func aFailedTargetIsNamedInTheLine() throws {
        let results = BudgetResult.evaluate(
            try budgets([("stall.max < 250ms", .error)]), on: Self.report(exitStatus: 3))
        let verdict = GateVerdict(budgets: results, report: Self.report(exitStatus: 3))
        #expect(verdict.line.contains("FAIL stall.max=312ms (limit <250ms) · target exited with status 3 · 7 stalls"))
        let killed = GateVerdict(budgets: [], report: Self.report(exitStatus: 139, signal: 11))
        #expect(killed.targetFailure == "target killed by SIGSEGV")
        #expect(killed.passed, "the target's status is judged apart from the budgets")
    }

    @Test func manyFailuresAreCounted() throws {
        let texts = [
            "stall.max < 1ms", "stall.total < 1ms", "stall.count < 1", "blocking.total < 1ms", "stall.p50 < 1ms",
        ]
        let results = BudgetResult.evaluate(try budgets(texts.map { ($0, .error) }), on: Self.report())
        let line = GateVerdict(budgets: results, report: Self.report()).line
        #expect(line.contains(", stall.count=7 (limit <1) and 2 more · 7 stalls"))
    }

    @Test func resultsEncodeForTheReport() throws {
        let results = BudgetResult.evaluate(
            try budgets([("stall.max < 250ms", .error), ("cpu[main].avg < 5%", .warn)]), on: Self.report())
        var report = Self.report()
        report.budgets = results
        let bytes = try JSONReportWriter().render(report)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""expression" : "stall.max < 250ms""#))
        #expect(text.contains(#""measured" : 312000000"#))
        #expect(text.contains(#""unavailable" : "no thread CPU was recorded"#))
        #expect(try JSONReportWriter.decode(bytes) == report)
        // Reports without budgets keep their bytes: no key at all.
        #expect(!String(decoding: try JSONReportWriter().render(Self.report()), as: UTF8.self).contains("budgets"))
    }
}
