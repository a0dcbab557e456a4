/// Pure parsers for the per-process /proc files `lagmon attach` reads before it starts.
public enum ProcProcessText {
    /// /proc/<pid>/cmdline: the arguments, each ended by a NUL. A process that rewrote its
    /// arguments may leave one string with spaces or no final NUL; both read as written. Invalid
    /// UTF-8 is replaced by U+FFFD. Empty for kernel threads and exited processes.
    public static func commandLine(_ bytes: [UInt8]) -> [String] {
        var words = bytes.split(separator: 0, omittingEmptySubsequences: false)
        if words.last?.isEmpty == true { words.removeLast() }
        return words.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The number on the line `name:\t<number>` of /proc/<pid>/status (`Tgid`, `TracerPid`, …);
    /// nil when the line is missing or garbled.
    public static func statusNumber(_ name: String, in bytes: [UInt8]) -> Int32? {
        let prefix = Array((name + ":").utf8)
        for line in bytes.split(separator: ProcText.newline) where line.starts(with: prefix) {
            let value = line.dropFirst(prefix.count).drop(while: { $0 == ProcText.space || $0 == UInt8(ascii: "\t") })
            return ProcText.decimal(value).flatMap { Int32(exactly: $0) }
        }
        return nil
    }

    /// The numbers on the line `name:\t<n>\t<n>…` of /proc/<pid>/status (`NSpid`: the pid in
    /// each PID namespace, outermost first); empty when the line is missing, and up to the first
    /// garbled one.
    public static func statusNumbers(_ name: String, in bytes: [UInt8]) -> [Int32] {
        guard let line = statusLine(name, in: bytes) else { return [] }
        var numbers: [Int32] = []
        for word in line.split(whereSeparator: { $0 == ProcText.space || $0 == UInt8(ascii: "\t") }).prefix(64) {
            guard let number = ProcText.decimal(word).flatMap({ Int32(exactly: $0) }) else { break }
            numbers.append(number)
        }
        return numbers
    }

    /// The hexadecimal mask on the line `name:\t<hex>` of /proc/<pid>/status (`SigCgt`); nil
    /// when missing or garbled.
    public static func statusMask(_ name: String, in bytes: [UInt8]) -> UInt64? {
        guard let line = statusLine(name, in: bytes) else { return nil }
        let text = String(decoding: line.filter { $0 != ProcText.space && $0 != UInt8(ascii: "\t") }, as: UTF8.self)
        return text.count <= 16 ? UInt64(text, radix: 16) : nil
    }

    /// What follows `name:` on its line.
    private static func statusLine(_ name: String, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let prefix = Array((name + ":").utf8)
        return bytes.split(separator: ProcText.newline).first { $0.starts(with: prefix) }?.dropFirst(prefix.count)
    }
}
