/// A JIT's perf map (`/tmp/perf-<pid>.map`, the format perf reads): one `START SIZE name` line
/// per compiled function, START and SIZE in hex without `0x`. Node (V8), Python ≥ 3.12's perf
/// trampolines, the JVM's perf-map-agent, .NET and LuaJIT write them.
///
/// The text comes from the target, so it is untrusted: lines longer than `maxLineBytes` and
/// malformed lines are skipped (counted), at most `maxEntries` are kept, and parsing is
/// incremental (`append` takes whatever bytes arrived; an unfinished last line waits for the
/// rest), because runtimes append to the file as they compile.
public struct PerfMap: Sendable, Equatable {
    /// One compiled function.
    public struct Entry: Sendable, Equatable {
        /// Its first address.
        public var start: UInt64
        /// Its length in bytes.
        public var size: UInt64
        /// The name the runtime gave it (`JS:*deriveKey /srv/app.js:6:19`).
        public var name: String
    }

    /// Longest line parsed; longer ones are skipped.
    public static let maxLineBytes = 4096
    /// Most entries kept (a busy JVM writes hundreds of thousands).
    public static let maxEntries = 2_000_000

    /// The entries, in file order (a later one wins over an earlier one at the same address).
    public private(set) var entries: [Entry] = []
    /// Lines skipped as malformed or too long.
    public private(set) var skippedLines = 0
    /// Bytes consumed so far (where the next read of the file starts).
    public private(set) var bytesConsumed = 0
    private var partial: [UInt8] = []
    private var skippingLongLine = false

    public init() {}

    /// Parses `bytes`, the file's next bytes after `bytesConsumed`.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        bytesConsumed += bytes.count
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if skippingLongLine { skippedLines += 1 } else { parse(partial) }
                partial.removeAll(keepingCapacity: true)
                skippingLongLine = false
            } else if !skippingLongLine {
                partial.append(byte)
                if partial.count > Self.maxLineBytes {
                    skippingLongLine = true
                    partial.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// Adds the entry `line` holds, or counts it skipped.
    private mutating func parse(_ line: [UInt8]) {
        guard let entry = Self.entry(line) else {
            if !line.isEmpty { skippedLines += 1 }
            return
        }
        guard entries.count < Self.maxEntries else {
            skippedLines += 1
            return
        }
        entries.append(entry)
    }

    /// `START SIZE name`; nil for anything else (an empty name, a range that wraps).
    static func entry(_ line: [UInt8]) -> Entry? {
        let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let start = hex(fields[0]), let size = hex(fields[1]), size > 0,
            start.addingReportingOverflow(size).overflow == false
        else { return nil }
        let name = String(decoding: fields[2], as: UTF8.self).trimmingSuffixWhitespace()
        guard !name.isEmpty else { return nil }
        return Entry(start: start, size: size, name: name)
    }

    /// A hex number of at most 16 digits, with or without `0x`.
    static func hex(_ text: ArraySlice<UInt8>) -> UInt64? {
        var digits = text
        if digits.starts(with: Array("0x".utf8)) { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = hexDigit(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// A lookup structure over the entries as they are now.
    public func index() -> PerfMapIndex { PerfMapIndex(entries) }
}

extension String {
    /// Without trailing spaces, tabs and carriage returns.
    fileprivate func trimmingSuffixWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
