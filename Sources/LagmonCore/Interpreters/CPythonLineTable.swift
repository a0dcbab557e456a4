/// Line numbers from a CPython code object's line table: pure decoding of the three formats
/// (Objects/lnotab_notes.txt of 3.9 and 3.10, Objects/locations.md of 3.11+). Hostile input
/// (the bytes come from the target) gives nil or a wrong line, never a trap; walks are bounded
/// by the table's length.
public enum CPythonLineTable {
    /// The line of the instruction at `byteOffset` (bytes from the first instruction) in a code
    /// object whose first line is `firstLine`; nil when the table says "no line" or ends first.
    public static func line(
        _ format: CPythonLayout.LineTableFormat, table: [UInt8], firstLine: Int, byteOffset: Int
    ) -> Int? {
        guard byteOffset >= 0 else { return firstLine }
        switch format {
        case .lnotabUnsignedLines:
            return lnotabLine(table, firstLine: firstLine, byteOffset: byteOffset, signedLines: false)
        case .lnotab: return lnotabLine(table, firstLine: firstLine, byteOffset: byteOffset)
        case .lineTable310: return lineTable310Line(table, firstLine: firstLine, byteOffset: byteOffset)
        case .locationTable: return locationTableLine(table, firstLine: firstLine, unit: byteOffset / 2)
        }
    }

    /// 3.6 to 3.9: pairs of (unsigned address delta, signed line delta); the line holds from its
    /// address on. 2.7's line deltas are unsigned (`signedLines` false).
    static func lnotabLine(_ table: [UInt8], firstLine: Int, byteOffset: Int, signedLines: Bool = true) -> Int {
        var line = firstLine
        var address = 0
        var index = 0
        while index + 1 < table.count {
            address += Int(table[index])
            if address > byteOffset { break }
            line += signedLines ? Int(Int8(bitPattern: table[index + 1])) : Int(table[index + 1])
            index += 2
        }
        return line
    }

    /// 3.10: pairs of (unsigned range length, signed line delta or -128 for none).
    static func lineTable310Line(_ table: [UInt8], firstLine: Int, byteOffset: Int) -> Int? {
        var line = firstLine
        var start = 0
        var index = 0
        while index + 1 < table.count {
            let end = start + Int(table[index])
            let delta = Int8(bitPattern: table[index + 1])
            if delta != -128 { line += Int(delta) }
            if byteOffset >= start && byteOffset < end { return delta == -128 ? nil : line }
            start = end
            index += 2
        }
        return nil
    }

    /// 3.11+: entries of `1 code:4 length-1:3` and a code-dependent tail; lengths in code units.
    static func locationTableLine(_ table: [UInt8], firstLine: Int, unit: Int) -> Int? {
        var reader = Reader(bytes: table)
        var line = firstLine
        var start = 0
        while let first = reader.next() {
            guard first & 0x80 != 0 else { return nil }
            let code = (first >> 3) & 0x0f
            let end = start + Int(first & 7) + 1
            var hasLine = true
            switch code {
            case 15: hasLine = false
            case 14:
                line += reader.signedVarint()
                for _ in 0..<3 { _ = reader.varint() }
            case 13: line += reader.signedVarint()
            case 10...12:
                line += Int(code) - 10
                reader.skip(2)
            default: reader.skip(1)
            }
            if unit >= start && unit < end { return hasLine ? line : nil }
            start = end
        }
        return nil
    }

    /// A cursor over the table; reads past the end give zero and stop varints.
    struct Reader {
        var bytes: [UInt8]
        var index = 0

        mutating func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func skip(_ count: Int) { index = min(bytes.count, index + count) }

        /// 6 bits per byte, bit 6 says another follows; at most 10 bytes count.
        mutating func varint() -> Int {
            var value = 0
            var shift = 0
            while let byte = next() {
                if shift < 60 { value |= Int(byte & 0x3f) << shift }
                shift += 6
                if byte & 0x40 == 0 { break }
            }
            return value
        }

        /// The low bit is the sign.
        mutating func signedVarint() -> Int {
            let value = varint()
            return value & 1 != 0 ? -(value >> 1) : value >> 1
        }
    }
}
