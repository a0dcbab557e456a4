/// One metric in a baseline and a current report, and whether its change is a regression.
public struct MetricDelta: Sendable, Equatable {
    /// The metric.
    public var metric: BudgetMetric
    /// Its value in the baseline.
    public var baseline: MetricReading
    /// Its value in the current report.
    public var current: MetricReading
    /// The tolerance that gates it; nil when it is shown but not gated.
    public var tolerance: RegressionTolerance?
    /// The change was smaller than the noise floor (`--min-change`), so it counts as none.
    public var withinNoise: Bool
    /// It got worse by more than its tolerance (or could not be measured in the current report).
    public var regressed: Bool

    /// Compares `metric` between two readings. A change smaller than `noiseFloor` (in the
    /// metric's unit) is no change; every metric is worse when higher.
    public init(
        metric: BudgetMetric, baseline: MetricReading, current: MetricReading, tolerance: RegressionTolerance?,
        noiseFloor: Double
    ) {
        self.metric = metric
        self.baseline = baseline
        self.current = current
        self.tolerance = tolerance
        guard let before = baseline.value, let after = current.value else {
            withinNoise = false
            // Measured before, not now: the gate cannot vouch for it.
            regressed = tolerance != nil && baseline.value != nil
            return
        }
        let delta = after - before
        withinNoise = abs(delta) < noiseFloor
        regressed = !withinNoise && tolerance.map { delta > $0.allowedIncrease(over: before) } ?? false
    }

    /// Current minus baseline, when both were measured.
    public var delta: Double? {
        guard let before = baseline.value, let after = current.value else { return nil }
        return after - before
    }

    /// `221ms → 283ms (+62ms, +28%)`, `6 → 6`, `not measured → 283ms`.
    public var change: String {
        let dimension = metric.dimension
        let before = baseline.value.map(dimension.format) ?? "not measured"
        let after = current.value.map(dimension.format) ?? "not measured"
        guard let delta, let before = baseline.value else { return "\(before) → \(after)" }
        guard delta != 0 else { return "\(dimension.format(before)) → \(after)" }
        var parts = [dimension.formatDelta(delta)]
        if before != 0 { parts.append(Self.relative(delta, before)) }
        if withinNoise { parts.append("below the noise floor") }
        return "\(dimension.format(before)) → \(after) (\(parts.joined(separator: ", ")))"
    }

    /// `+28%`, or `×12` for changes beyond tenfold, where a percentage stops reading well.
    private static func relative(_ delta: Double, _ before: Double) -> String {
        let ratio = (before + delta) / before
        if ratio >= 10 { return "×" + MetricDimension.count.format(ratio.rounded()) }
        return MetricDimension.percent.formatDelta(delta / before * 100).replacingPoints()
    }

    /// The gate's view of this delta.
    public var check: GateCheck {
        let limit = tolerance?.allowanceText ?? ""
        var message = "\(metric) \(change)"
        if let tolerance { message += " (limit \(tolerance.allowanceText))" }
        if current.value == nil, case .unavailable(let reason) = current { message += ": \(reason)" }
        return GateCheck(
            name: metric.description, severity: tolerance == nil ? .info : .error, passed: !regressed,
            measured: change, limit: limit, message: message)
    }
}

extension String {
    /// `+28pp` → `+28%`: a relative change reads as a plain percentage.
    fileprivate func replacingPoints() -> String { hasSuffix("pp") ? String(dropLast(2)) + "%" : self }
}
