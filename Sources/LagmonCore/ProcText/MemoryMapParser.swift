/// Parses the text of /proc/<pid>/maps into `MemoryMapping`s.
///
/// A line is `start-end perms offset major:minor inode`, then (after padding spaces) an optional
/// path that may itself contain spaces. The kernel's text is kept as written: a path keeps a
/// ` (deleted)` suffix (`MemoryMapping.isDeleted` reads it), pseudo-paths keep their brackets.
/// Lines that do not have this shape (truncated reads, garbage) are skipped, never fatal.
public enum MemoryMapParser {
    /// Every well-formed line of `text`, in the order the kernel wrote them.
    public static func parse(_ text: String) -> [MemoryMapping] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { parseLine($0) }
    }

    /// One line (without its newline), or nil when it is not a maps line.
    public static func parseLine(_ line: Substring) -> MemoryMapping? {
        // Five single-space separated fields, then whatever follows the inode (padding + path).
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
        guard fields.count >= 5 else { return nil }
        guard let range = addressRange(fields[0]), isPermissions(fields[1]),
            let offset = hexadecimal(fields[2]), let device = device(fields[3]), isDecimal(fields[4]),
            let inode = UInt64(fields[4])
        else { return nil }
        let path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
        return MemoryMapping(
            start: range.start, end: range.end, permissions: String(fields[1]), fileOffset: offset,
            path: String(path), inode: inode, device: device)
    }

    /// `start-end`, both hexadecimal, start below end.
    private static func addressRange(_ field: Substring) -> (start: UInt64, end: UInt64)? {
        let bounds = field.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = hexadecimal(bounds[0]), let end = hexadecimal(bounds[1]), start < end
        else { return nil }
        return (start, end)
    }

    /// `r-xp`: read, write, execute, then shared or private.
    private static func isPermissions(_ field: Substring) -> Bool {
        let flags = Array(field.utf8)
        guard flags.count == 4 else { return false }
        return (flags[0] == UInt8(ascii: "r") || flags[0] == UInt8(ascii: "-"))
            && (flags[1] == UInt8(ascii: "w") || flags[1] == UInt8(ascii: "-"))
            && (flags[2] == UInt8(ascii: "x") || flags[2] == UInt8(ascii: "-"))
            && (flags[3] == UInt8(ascii: "p") || flags[3] == UInt8(ascii: "s"))
    }

    /// `fe:01`: major and minor device numbers in hexadecimal, as `major << 32 | minor`.
    private static func device(_ field: Substring) -> UInt64? {
        let parts = field.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = hexadecimal(parts[0]), let minor = hexadecimal(parts[1]),
            major <= UInt64(UInt32.max), minor <= UInt64(UInt32.max)
        else { return nil }
        return major << 32 | minor
    }

    /// A non-empty run of hexadecimal digits that fits 64 bits (no sign, no `0x`).
    private static func hexadecimal(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 16, text.utf8.allSatisfy(isHexDigit) else { return nil }
        return UInt64(text, radix: 16)
    }

    private static func isDecimal(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}

extension MemoryMapping {
    /// The suffix the kernel appends to the path of a file unlinked since it was mapped.
    static let deletedSuffix = " (deleted)"

    /// Whether the mapping is backed by a file (its path is absolute).
    public var isFile: Bool { path.hasPrefix("/") }

    /// Whether the mapped file was deleted (or replaced) after it was mapped: whatever is at its
    /// path now is not what the target runs.
    public var isDeleted: Bool { isFile && path.hasSuffix(Self.deletedSuffix) }

    /// Whether the mapping may hold code.
    public var isExecutable: Bool { permissions.utf8.dropFirst(2).first == UInt8(ascii: "x") }

    /// The file's path without the kernel's ` (deleted)` marker; nil when no file backs it.
    public var filePath: String? {
        guard isFile else { return nil }
        return isDeleted ? String(path.dropLast(Self.deletedSuffix.count)) : path
    }

    /// The name frames show: the file name (`libc.so.6`), the pseudo-path (`[vdso]`), or `?` for
    /// anonymous memory.
    public var moduleName: String {
        guard let filePath else { return path.isEmpty ? "?" : path }
        return filePath.split(separator: "/").last.map(String.init) ?? filePath
    }
}
