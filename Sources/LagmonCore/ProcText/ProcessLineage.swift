/// Whether a process descends from another, by following parent pids as /proc gives them. The
/// channel names processes, but the target writes it; lagmon believes /proc instead.
public enum ProcessLineage {
    /// Longest parent chain followed; deeper (or cyclic, as a pid reused mid-walk could make it)
    /// counts as unrelated.
    public static let maxDepth = 64

    /// Whether `pid` is `ancestor` or descends from it; `parent` reads a process's parent pid
    /// (nil when the process is gone).
    public static func descends(_ pid: Int32, from ancestor: Int32, parent: (Int32) -> Int32?) -> Bool {
        var current = pid
        for _ in 0..<maxDepth {
            if current == ancestor { return true }
            guard current > 1, let next = parent(current), next > 0 else { return false }
            current = next
        }
        return false
    }

    /// The parent pid in a `/proc/<pid>/stat` line: the second field after the comm, which ends
    /// at the line's last `)` (a comm may hold spaces and parentheses). Nil when garbled.
    public static func parentPid(statLine bytes: [UInt8]) -> Int32? {
        guard let close = bytes.lastIndex(of: ProcText.closeParenthesis) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: ProcText.space, maxSplits: 3)
        guard fields.count >= 3 else { return nil }
        return ProcText.decimal(fields[1]).flatMap { Int32(exactly: $0) }
    }
}
