/// One thing a gate checked, ready to show: a budget, or a metric or fingerprint `lagmon diff`
/// compared. Every writer (terminal, JUnit, GitHub, Markdown) shows the same checks.
public struct GateCheck: Sendable, Equatable {
    /// What a check's failure does.
    public enum Severity: String, Sendable, Equatable {
        /// A failure fails the gate.
        case error
        /// A failure is reported only.
        case warning
        /// Shown for context; never fails (a metric diff compares but does not gate).
        case info
    }

    /// What was checked, as the user wrote it: `stall.max < 250ms`, `stall.p99`.
    public var name: String
    /// What a failure does.
    public var severity: Severity
    /// Whether the check held.
    public var passed: Bool
    /// The measurement, for people: `312ms`, `221ms → 283ms (+62ms, +28%)`, `not measured`.
    public var measured: String
    /// The limit, for people: `<250ms`, `+10%`; empty for info checks.
    public var limit: String
    /// One line saying what happened: `stall.max=312ms (limit <250ms)`.
    public var message: String
    /// What the number is about and its culprits (the worst stalls, the busiest thread), for a
    /// check that failed or warned; nil when the report held nothing to show.
    public var evidence: GateEvidence?

    public init(
        name: String, severity: Severity, passed: Bool, measured: String, limit: String, message: String,
        evidence: GateEvidence? = nil
    ) {
        self.name = name
        self.severity = severity
        self.passed = passed
        self.measured = measured
        self.limit = limit
        self.message = message
        self.evidence = evidence
    }

    /// The check a budget result makes; a failed one carries the evidence `report` holds for
    /// its metric.
    public init(_ result: BudgetResult, report: Report? = nil) {
        let dimension = MetricDimension(reportUnit: result.unit) ?? .count
        let limit = result.comparison.rawValue + dimension.format(result.limit)
        let measured = result.measured.map(dimension.format) ?? "not measured"
        let message =
            result.measured == nil
            ? "\(result.metric) not measured: \(result.unavailable ?? "no value") (limit \(limit))"
            : "\(result.metric)=\(measured) (limit \(limit))"
        self.init(
            name: result.expression, severity: result.level == .error ? .error : .warning, passed: result.passed,
            measured: measured, limit: limit, message: message,
            evidence: result.passed ? nil : report.flatMap { Self.evidence(for: result, in: $0) })
    }

    /// The evidence for the metric of `result` (its expression, normalised when it was judged,
    /// parses again).
    private static func evidence(for result: BudgetResult, in report: Report) -> GateEvidence? {
        guard let expression = try? BudgetExpression(parsing: result.expression) else { return nil }
        return GateEvidence(for: expression.metric, in: report)
    }

    /// `message`, and where its culprit is: `stall.max=260ms (limit <250ms) — culprit:
    /// ThumbnailCache.value(for:) at Sources/App/ImageList.swift:19`.
    public var messageWithCulprit: String {
        guard let place = evidence?.primary?.place else { return message }
        return "\(message) — culprit: \(place)"
    }

    /// Whether this check fails the gate.
    public var failsGate: Bool { severity == .error && !passed }
    /// Whether this check is a reported-only failure.
    public var isWarning: Bool { severity == .warning && !passed }
}
