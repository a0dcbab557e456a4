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
}
