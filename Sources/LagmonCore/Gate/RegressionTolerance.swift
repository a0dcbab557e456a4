/// How much worse a metric may get between a baseline and a current report before `lagmon diff`
/// calls it a regression: `stall.p99:+10%` (relative to the baseline), `stall.max:+20ms`,
/// `stall.count:+1`, `blocking.ratio:+0.5pp` (absolute, in the metric's unit; `pp` is
/// percentage points), or `*:+10%` for every metric.
public struct RegressionTolerance: Hashable, Sendable, CustomStringConvertible {
    /// The metric the tolerance is for; nil for `*`, every metric.
    public var metric: BudgetMetric?
    /// How much worse is allowed.
    public var allowance: Allowance
    /// The allowance as written, with its sign: `+10%`.
    public var allowanceText: String

    /// An allowed increase.
    public enum Allowance: Hashable, Sendable {
        /// A percentage of the baseline value.
        case relative(percent: Double)
        /// An amount in the metric's unit (nanoseconds, a count, percentage points).
        case absolute(Double)
    }

    public init(metric: BudgetMetric?, allowance: Allowance, allowanceText: String) {
        self.metric = metric
        self.allowance = allowance
        self.allowanceText = allowanceText
    }

    /// Parses `METRIC:+VALUE[UNIT]`; the error says where and what is wrong.
    public init(parsing text: String) throws(BudgetSyntaxError) {
        var parser = BudgetExpressionParser(text)
        do {
            self = try parser.parseTolerance()
        } catch {
            var error = error
            error.subject = "tolerance"
            throw error
        }
    }

    /// Without any `--max-regression`, `lagmon diff` gates the stall and blocking totals.
    public static let defaults: [RegressionTolerance] = [
        BudgetMetric.stallCount, .stallMax, .stallTotal, .blockingTotal,
    ].map { RegressionTolerance(metric: $0, allowance: .relative(percent: 10), allowanceText: "+10%") }

    public var description: String { "\(metric.map(\.description) ?? "*"):\(allowanceText)" }

    /// The increase allowed over `baseline`.
    public func allowedIncrease(over baseline: Double) -> Double {
        switch allowance {
        case .relative(let percent): baseline * percent / 100
        case .absolute(let amount): amount
        }
    }

    /// The tolerance that applies to `metric`: the last one naming it, else the last `*`.
    public static func applying(to metric: BudgetMetric, in tolerances: [RegressionTolerance])
        -> RegressionTolerance?
    {
        tolerances.last { $0.metric == metric } ?? tolerances.last { $0.metric == nil }
    }
}
