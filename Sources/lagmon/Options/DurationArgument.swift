import ArgumentParser
import LagmonCore

/// A duration option value such as `100ms` (nanoseconds inside).
struct DurationArgument: ExpressibleByArgument, Sendable {
    var nanoseconds: UInt64

    init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    init?(argument: String) {
        guard let value = try? DurationText.parseNanoseconds(argument) else { return nil }
        nanoseconds = value
    }

    /// Parses an option value, throwing an error that says what a valid value looks like.
    static func parse(_ text: String) throws -> DurationArgument {
        DurationArgument(nanoseconds: try DurationText.parseNanoseconds(text))
    }

    var defaultValueDescription: String { DurationText.format(nanoseconds: nanoseconds) }
}
