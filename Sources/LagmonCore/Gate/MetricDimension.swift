/// What kind of number a gate metric is, which decides the units its limits take and how its
/// values are printed.
public enum MetricDimension: String, Codable, Sendable, Equatable {
    /// A whole number of things (stalls), written bare: `3`.
    case count
    /// A duration in nanoseconds, written with a unit: `250ms`, `1.5s`.
    case duration
    /// A percentage (of wall time, or of one CPU core), written with `%`: `5%`.
    case percent

    /// The unit the report's `budgets[]` records values in: `count`, `ns` or `%`.
    public var reportUnit: String {
        switch self {
        case .count: "count"
        case .duration: "ns"
        case .percent: "%"
        }
    }

    /// What a limit of this dimension looks like, for error messages.
    var example: String {
        switch self {
        case .count: "a bare whole number, for example 3"
        case .duration: "a number with a unit ns, us, ms or s, for example 250ms"
        case .percent: "a number with %, for example 5%"
        }
    }

    /// `value` for people: `312ms`, `1.2s`, `7`, `4.1%`.
    public func format(_ value: Double) -> String {
        switch self {
        case .count:
            return value.rounded() == value && abs(value) < 1e15
                ? "\(Int64(value))" : DurationText.fixed(value, digits: 2)
        case .duration:
            guard value >= 0.5 else { return "0" }
            let text = DurationText.format(nanoseconds: UInt64(max(0, min(value, 9e18)).rounded()))
            return Self.trimmingZeros(text)
        case .percent:
            return Self.trimmingZeros(DurationText.fixed(value, digits: value < 1 ? 2 : 1)) + "%"
        }
    }

    /// A signed change of this dimension: `+62ms`, `-1`, `+0.4pp`.
    public func formatDelta(_ delta: Double) -> String {
        let sign = delta < 0 ? "-" : "+"
        let magnitude = abs(delta)
        switch self {
        case .count, .duration: return sign + format(magnitude)
        case .percent: return sign + String(format(magnitude).dropLast()) + "pp"
        }
    }

    /// `1.20s` → `1.2s`, `2.00s` → `2s`, `4.10` → `4.1`: the formatters' fixed digits, trimmed.
    private static func trimmingZeros(_ text: String) -> String {
        let unitStart = text.firstIndex { !$0.isNumber && $0 != "." && $0 != "-" } ?? text.endIndex
        var number = String(text[..<unitStart])
        guard number.contains(".") else { return text }
        while number.hasSuffix("0") { number.removeLast() }
        if number.hasSuffix(".") { number.removeLast() }
        return number + text[unitStart...]
    }
}

extension MetricDimension {
    /// The dimension whose `reportUnit` is `unit`.
    public init?(reportUnit unit: String) {
        guard let dimension = [MetricDimension.count, .duration, .percent].first(where: { $0.reportUnit == unit })
        else { return nil }
        self = dimension
    }
}
