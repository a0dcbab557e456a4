/// Two reports of the same program compared, for `lagmon diff BASELINE CURRENT`: every diffable
/// metric's change, stall fingerprints that are new, grown or gone, and which of those are
/// regressions beyond tolerance.
public struct ReportDiff: Sendable {
    /// How changes are judged.
    public struct Options: Sendable {
        /// Per-metric tolerances; empty means `RegressionTolerance.defaults`.
        public var tolerances: [RegressionTolerance]
        /// The noise floor: duration changes smaller than this are no change.
        public var minChangeNs: UInt64
        /// Whether a new stall fingerprint fails the gate.
        public var failOnNewFingerprints: Bool

        public init(tolerances: [RegressionTolerance] = [], minChangeNs: UInt64 = 0, failOnNewFingerprints: Bool = true)
        {
            self.tolerances = tolerances
            self.minChangeNs = minChangeNs
            self.failOnNewFingerprints = failOnNewFingerprints
        }
    }

    /// Every diffable metric, in `BudgetMetric.diffable` order (plus any other tolerated one).
    public var deltas: [MetricDelta]
    /// New, grown and gone fingerprints, in that order, each by the current (or baseline) order.
    public var fingerprints: [FingerprintChange]
    /// StrictMode's blocking calls that are new, grown or gone (context only).
    public var blockingCalls: [BlockingCallChange]
    /// The options used.
    public var options: Options
    /// The current report, where the culprits of regressions are read.
    private var current: Report

    public init(baseline: Report, current: Report, options: Options) {
        self.options = options
        self.current = current
        let tolerances = options.tolerances.isEmpty ? RegressionTolerance.defaults : options.tolerances
        let named = tolerances.compactMap(\.metric).filter { !BudgetMetric.diffable.contains($0) }
        var seen = Set<BudgetMetric>()
        // StrictMode's totals, when either report counted blocking calls.
        let strict: [BudgetMetric] =
            baseline.blockingCalls != nil || current.blockingCalls != nil ? [.strictCount, .strictTotal] : []
        let metrics = (BudgetMetric.diffable + strict + named).filter { seen.insert($0).inserted }
        let before = ReportMetrics(baseline)
        let after = ReportMetrics(current)
        deltas = metrics.map { metric in
            MetricDelta(
                metric: metric, baseline: before.read(metric), current: after.read(metric),
                tolerance: RegressionTolerance.applying(to: metric, in: tolerances),
                noiseFloor: Self.noiseFloor(of: metric, minChangeNs: options.minChangeNs, wallNs: current.target.wallNs)
            )
        }
        fingerprints = Self.fingerprintChanges(baseline.fingerprints, current.fingerprints, options.minChangeNs)
        blockingCalls = BlockingCallChange.changes(
            baseline.blockingCalls ?? [], current.blockingCalls ?? [], minChangeNs: options.minChangeNs)
    }

    /// `--min-change` in `metric`'s unit: itself for durations, its share of the current run's
    /// wall time for the blocking ratio (blocking time is a duration), none for counts and CPU.
    static func noiseFloor(of metric: BudgetMetric, minChangeNs: UInt64, wallNs: UInt64) -> Double {
        switch metric.dimension {
        case .duration: Double(minChangeNs)
        case .percent where metric == .blockingRatio && wallNs > 0: Double(minChangeNs) / Double(wallNs) * 100
        default: 0
        }
    }

    private static func fingerprintChanges(
        _ baseline: [FingerprintReport], _ current: [FingerprintReport], _ minChangeNs: UInt64
    ) -> [FingerprintChange] {
        let before = Dictionary(baseline.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let now = Set(current.map(\.id))
        let new = current.filter { before[$0.id] == nil && $0.totalNs >= minChangeNs }
            .map { FingerprintChange(kind: .new, baseline: nil, current: $0) }
        let grown = current.compactMap { group -> FingerprintChange? in
            guard let old = before[group.id], group.totalNs > old.totalNs,
                group.totalNs - old.totalNs >= max(minChangeNs, 1)
            else { return nil }
            return FingerprintChange(kind: .grown, baseline: old, current: group)
        }
        let gone = baseline.filter { !now.contains($0.id) }.map {
            FingerprintChange(kind: .gone, baseline: $0, current: nil)
        }
        return new + grown + gone
    }

    /// Whether nothing regressed beyond tolerance.
    public var passed: Bool { verdict(subject: "").passed }

    /// The gate verdict; `subject` names the two reports.
    public func verdict(subject: String) -> GateVerdict {
        let checks =
            deltas.map(check) + fingerprints.map(check) + blockingCalls.map(\.check)
        let gated = deltas.filter { $0.tolerance != nil }.count
        let new = fingerprints.filter { $0.kind == .new }.count
        var facts = ["\(deltas.count) metrics compared, \(gated) gated"]
        if options.minChangeNs > 0 {
            facts.append("noise floor \(DurationText.format(nanoseconds: options.minChangeNs))")
        }
        if new > 0 { facts.append(new == 1 ? "1 new stall fingerprint" : "\(new) new stall fingerprints") }
        return GateVerdict(title: "diff", subject: subject, checks: checks, facts: facts)
    }

    /// A metric's check; a regression carries its culprits in the current report.
    private func check(_ delta: MetricDelta) -> GateCheck {
        var check = delta.check
        if !check.passed { check.evidence = GateEvidence(for: delta.metric, in: current) }
        return check
    }

    /// A fingerprint's check; a new or grown one carries its stalls' culprits.
    private func check(_ change: FingerprintChange) -> GateCheck {
        var check = change.check(gated: options.failOnNewFingerprints)
        if change.kind != .gone { check.evidence = GateEvidence(fingerprint: change.id, in: current) }
        return check
    }
}
