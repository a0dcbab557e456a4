/// Number parsing shared by the /proc parsers: strict, overflow-checked, no locale, no
/// whitespace trimming (the kernel prints exactly one separator).
enum ProcText {
    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
    static let openParenthesis = UInt8(ascii: "(")
    static let closeParenthesis = UInt8(ascii: ")")

    /// An unsigned decimal (`0`…`18446744073709551615`); nil when empty, signed or too large.
    static func decimal(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// A signed decimal that fits an `Int32` (`-1`, `202`).
    static func signedDecimal(_ text: ArraySlice<UInt8>) -> Int32? {
        if text.first == UInt8(ascii: "-") {
            guard let magnitude = decimal(text.dropFirst()), magnitude <= 1 << 31 else { return nil }
            return Int32(exactly: -Int64(magnitude))
        }
        return decimal(text).flatMap { Int32(exactly: $0) }
    }

    /// `0x` followed by one or more hexadecimal digits, at most 64 bits of value.
    static func hexadecimal(_ text: ArraySlice<UInt8>) -> UInt64? {
        guard text.count > 2, text.first == UInt8(ascii: "0"),
            text[text.startIndex + 1] == UInt8(ascii: "x")
        else { return nil }
        var value: UInt64 = 0
        for byte in text.dropFirst(2) {
            guard let digit = hexDigit(byte), value >> 60 == 0 else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The space-separated fields of a newline-terminated one-line file; nil when the newline
    /// is missing (a truncated read) or the line holds `count` fields of another number.
    static func fields(_ bytes: [UInt8], count: Int) -> [ArraySlice<UInt8>]? {
        guard bytes.last == newline else { return nil }
        let fields = bytes.dropLast().split(separator: space, omittingEmptySubsequences: false)
        return fields.count == count ? fields : nil
    }
}
