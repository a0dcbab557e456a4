/// `/proc/<pid>/task/<tid>/stack` (root only): the thread's kernel stack, one frame a line,
/// innermost first — `[<0>] percpu_rwsem_wait+0x10a/0x150`. Parsed to function names.
public enum ProcKernelStack {
    /// Frames kept, at most (the kernel prints up to 64).
    public static let maxFrames = 64
    /// Longest function name kept; a longer line is malformed.
    static let maxNameLength = 256

    /// The function of each line, innermost first: the text after `] ` up to `+`; lines
    /// that fit no frame are skipped. Empty for empty text (no stack, or not root).
    public static func parse(_ bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        var frames: [String] = []
        for line in text.split(separator: "\n") where frames.count < maxFrames {
            guard let name = function(in: line) else { continue }
            frames.append(name)
        }
        return frames
    }

    private static func function(in line: Substring) -> String? {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
        var rest = line[line.index(after: close)...].drop { $0 == " " }
        if let plus = rest.firstIndex(of: "+") { rest = rest[..<plus] }
        guard !rest.isEmpty, rest.count <= maxNameLength,
            rest.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "$" })
        else { return nil }
        return String(rest)
    }
}
