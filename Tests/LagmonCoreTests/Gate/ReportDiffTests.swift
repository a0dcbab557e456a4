import LagmonCore
import Testing

/// `lagmon diff`'s judgement: tolerances, the noise floor, and stall fingerprints that appear.
struct ReportDiffTests {
    static let ms = Fixture.ms

    static func fingerprint(_ id: String, count: Int, totalMs: UInt64) -> FingerprintReport {
        FingerprintReport(
            id: id, frames: ["ImageViewer`decode\(id)"], count: count, totalNs: totalMs * ms, worstNs: totalMs * ms,
            stallIds: Array(1...count))
    }

    static func report(_ durationsMs: [UInt64], fingerprints: [FingerprintReport] = []) -> Report {
        Fixture.report(
            stalls: durationsMs.enumerated().map { index, duration in
                Fixture.stall(id: index + 1, startNs: UInt64(index) * Fixture.second, durationNs: duration * ms)
            }, fingerprints: fingerprints)
    }

    func diff(_ baseline: Report, _ current: Report, _ tolerances: [String] = [], minChangeMs: UInt64 = 0) throws
        -> ReportDiff
    {
        ReportDiff(
            baseline: baseline, current: current,
            options: ReportDiff.Options(
                tolerances: try tolerances.map { try RegressionTolerance(parsing: $0) },
                minChangeNs: minChangeMs * Self.ms))
    }

    func delta(_ diff: ReportDiff, _ metric: BudgetMetric) throws -> MetricDelta {
        try #require(diff.deltas.first { $0.metric == metric })
    }

    @Test func injectedRegressionBeyondToleranceFails() throws {
        let result = try diff(Self.report([200, 150]), Self.report([260, 150]), ["stall.max:+10%"], minChangeMs: 5)
        let max = try delta(result, .stallMax)
        #expect(max.regressed)
        #expect(max.change == "200ms → 260ms (+60ms, +30%)")
        #expect(!result.passed)
        let verdict = result.verdict(subject: "a.json → b.json")
        #expect(verdict.line.hasPrefix("FAIL stall.max 200ms → 260ms (+60ms, +30%) (limit +10%)"))
        // Only the named metric is gated.
        #expect(try delta(result, .stallTotal).tolerance == nil)
    }

    @Test func changeBelowTheNoiseFloorIsIgnored() throws {
        let result = try diff(Self.report([200, 150]), Self.report([204, 150]), ["*:+0%"], minChangeMs: 5)
        let max = try delta(result, .stallMax)
        #expect(max.withinNoise)
        #expect(!max.regressed)
        #expect(max.change.contains("below the noise floor"))
        #expect(result.passed)
        // The same change with no noise floor is a regression at +0 %.
        #expect(!(try diff(Self.report([200, 150]), Self.report([204, 150]), ["*:+0%"], minChangeMs: 0)).passed)
    }

    @Test func changeWithinToleranceAndImprovementsPass() throws {
        #expect(try diff(Self.report([200]), Self.report([215]), ["stall.max:+10%"]).passed)
        #expect(try diff(Self.report([200, 300]), Self.report([120]), ["*:+0%"]).passed)
        #expect(try diff(Self.report([200]), Self.report([219]), ["stall.max:+20ms"]).passed)
        #expect(!(try diff(Self.report([200]), Self.report([221]), ["stall.max:+20ms"])).passed)
        #expect(try diff(Self.report([200]), Self.report([200, 130]), ["stall.count:+1", "stall.total:+70%"]).passed)
    }

    @Test func defaultsGateStallsAndBlockingAtTenPercent() throws {
        let result = try diff(Self.report([200, 200]), Self.report([200, 200, 200]))
        let gated = result.deltas.filter { $0.tolerance != nil }.map(\.metric)
        #expect(gated == [.stallCount, .stallMax, .stallTotal, .blockingTotal])
        #expect(try delta(result, .stallCount).regressed)
        #expect(!result.passed)
    }

    @Test func specificToleranceBeatsTheWildcard() throws {
        let result = try diff(Self.report([200]), Self.report([260]), ["stall.max:+50%", "*:+1%"])
        #expect(!(try delta(result, .stallMax)).regressed)
        #expect(try delta(result, .stallTotal).regressed)
    }

    @Test func newFingerprintsFailGrownAndGoneInform() throws {
        let baseline = Self.report(
            [200, 200],
            fingerprints: [
                Self.fingerprint("a", count: 1, totalMs: 200), Self.fingerprint("b", count: 1, totalMs: 200),
            ])
        let current = Self.report(
            [200, 200],
            fingerprints: [
                Self.fingerprint("a", count: 2, totalMs: 400), Self.fingerprint("c", count: 1, totalMs: 200),
            ])
        let result = try diff(baseline, current, ["*:+1000%"], minChangeMs: 5)
        #expect(result.fingerprints.map(\.kind) == [.new, .grown, .gone])
        #expect(result.fingerprints.map(\.id) == ["c", "a", "b"])
        let verdict = result.verdict(subject: "")
        #expect(!verdict.passed)
        #expect(verdict.line.hasPrefix("FAIL new stall fingerprint c in ImageViewer`decodec (none → 1 stall, 200ms)"))
        #expect(verdict.line.contains("1 new stall fingerprint"))
        let allowed = ReportDiff(
            baseline: baseline, current: current,
            options: .init(tolerances: [try RegressionTolerance(parsing: "*:+1000%")], failOnNewFingerprints: false))
        #expect(allowed.passed)
    }

    @Test func unmeasuredCurrentFailsAGatedMetric() throws {
        let current = Fixture.report(loops: [])
        let result = try diff(Self.report([200]), current, ["stall.max:+10%"])
        #expect(try delta(result, .stallMax).regressed)
        #expect(result.verdict(subject: "").line.contains("no run loop was observed"))
    }

    @Test(arguments: [
        ("stall.p99:+10%", "stall.p99:+10%"), ("*:+5%", "*:+5%"), (" stall.max : 20ms", "stall.max:+20ms"),
        ("stall.count:+1", "stall.count:+1"), ("blocking.ratio:+0.5pp", "blocking.ratio:+0.5pp"),
        ("cpu[main].avg:+10%", "cpu[main].avg:+10%"),
    ])
    func parsesTolerances(_ text: String, _ normalised: String) throws {
        #expect(try RegressionTolerance(parsing: text).description == normalised)
    }

    @Test(arguments: [
        ("stall.p99", "expected ':'"), ("stall.p99:-10%", "write it with +"),
        ("*:+5ms", "'*' takes a relative tolerance only"),
        ("stall.count:+1.5", "a whole number"), ("stall.max:+5", "a duration (+20ms)"),
        ("blocking.ratio:+1s", "percentage points"),
        ("stall.p99:+10% x", "unexpected 'x'"), ("", "empty tolerance"), ("stall.p95:+1%", "unknown statistic"),
    ])
    func rejectsTolerances(_ text: String, _ mention: String) {
        #expect {
            try RegressionTolerance(parsing: text)
        } throws: { error in
            guard let error = error as? BudgetSyntaxError else { return false }
            #expect(error.description.hasPrefix("invalid tolerance"))
            #expect(error.description.contains(mention), "\(error)")
            return true
        }
    }
}
