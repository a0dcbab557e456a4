/// A gate metric read from a report: its value, or why the report cannot give one.
public enum MetricReading: Equatable, Sendable {
    /// The value, in the metric's unit (nanoseconds, a count, or percent).
    case value(Double)
    /// Not measurable in this report; the text says why, for people.
    case unavailable(String)

    /// The value, if there is one.
    public var value: Double? {
        if case .value(let value) = self { return value }
        return nil
    }
}
