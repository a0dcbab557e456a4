/// Parses and formats durations written the way people type them: `250us`, `100ms`, `1.5s`.
public enum DurationText {
    /// A duration that could not be parsed; `description` names the text and the fix.
    public struct InvalidDuration: Error, CustomStringConvertible, Equatable {
        /// The rejected text.
        public let text: String
        public var description: String {
            if DurationText.isNegative(text) {
                return "negative durations are invalid; give a positive one (for example 100ms)"
            }
            if DurationText.isTooLong(text) {
                return "too long: lagmon counts durations up to \(DurationText.longestHours)h; give a shorter one"
            }
            return DurationText.isBelowOneNanosecond(text)
                ? "must be longer than 0 (for example 100ms)"
                : "use a number with a unit: ns, us, ms, s, m or h (for example 100ms or 1m)"
        }
    }

    private static let units: [(suffix: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1_000), ("µs", 1_000), ("μs", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000),
        // After "ms": a suffix "m" is minutes only when no longer unit matched.
        ("min", 60_000_000_000), ("m", 60_000_000_000), ("h", 3_600_000_000_000),
    ]

    /// Parses `text` into nanoseconds. A unit is required; the value must be positive and finite.
    public static func parseNanoseconds(_ text: String) throws(InvalidDuration) -> UInt64 {
        let trimmed = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = String(trimmed.dropLast(unit.suffix.count))
            guard isPlainDecimal(number), let value = Double(number) else { break }
            let nanoseconds = (value * unit.nanoseconds).rounded()
            guard nanoseconds >= 1, nanoseconds < Double(UInt64.max / 2) else { break }
            return UInt64(nanoseconds)
        }
        throw InvalidDuration(text: text)
    }

    /// Whether `text` is a duration with a minus sign (`-5ms`).
    static func isNegative(_ text: String) -> Bool {
        let trimmed = text.drop(while: { $0 == " " })
        return trimmed.hasPrefix("-") && (try? parseNanoseconds(String(trimmed.dropFirst()))) != nil
    }

    /// The longest duration lagmon counts, in whole hours (nanoseconds below `UInt64.max / 2`).
    static let longestHours = UInt64.max / 2 / 3_600_000_000_000

    /// Whether `text` is a well-formed duration too long to count (`99999999999h`).
    static func isTooLong(_ text: String) -> Bool {
        let trimmed = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = String(trimmed.dropLast(unit.suffix.count))
            guard isPlainDecimal(number), let value = Double(number) else { return false }
            return value * unit.nanoseconds >= Double(UInt64.max / 2)
        }
        return false
    }

    /// Whether `text` is a well-formed duration too short to count (`0ms`, `0.4ns`).
    static func isBelowOneNanosecond(_ text: String) -> Bool {
        let trimmed = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = String(trimmed.dropLast(unit.suffix.count))
            guard isPlainDecimal(number), let value = Double(number) else { return false }
            return (value * unit.nanoseconds).rounded() < 1
        }
        return false
    }

    /// Formats nanoseconds compactly for people: `840µs`, `12.5ms`, `1.20s`.
    public static func format(nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        switch nanoseconds {
        case ..<1_000: return "\(nanoseconds)ns"
        // Values that round up to 1000 at three digits move to the next unit (1ms, not 1000µs).
        case ..<999_500: return "\(trim(value / 1_000))µs"
        case ..<999_500_000: return "\(trim(value / 1_000_000))ms"
        default: return "\(fixed(value / 1_000_000_000, digits: 2))s"
        }
    }

    private static func isPlainDecimal(_ text: String) -> Bool {
        guard !text.isEmpty, text.first != "." || text.count > 1 else { return false }
        var seenDot = false
        for character in text {
            if character == "." {
                if seenDot { return false }
                seenDot = true
            } else if !character.isASCII || !character.isNumber {
                return false
            }
        }
        return true
    }

    /// Three significant digits, no trailing zeros: 1.5, 12.3, 240.
    private static func trim(_ value: Double) -> String {
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        var text = fixed(value, digits: digits)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// Fixed-point formatting without Foundation's locale-dependent String(format:).
    static func fixed(_ value: Double, digits: Int) -> String {
        // A saved report can hold any number: one no Int64 holds (or no number) is shown as Swift
        // writes it (`1e+20`, `inf`, `nan`) instead of trapping.
        guard value.isFinite, abs(value) < 9e15 else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int64(scaled / scale)
        guard digits > 0 else { return "\(whole)" }
        let fraction = Int64(abs(scaled - Double(whole) * scale).rounded())
        var fractionText = String(fraction)
        while fractionText.count < digits { fractionText = "0" + fractionText }
        return "\(whole).\(fractionText)"
    }
}
