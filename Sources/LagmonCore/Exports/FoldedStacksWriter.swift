/// Brendan Gregg's folded stacks of every stall sample, one line per distinct stack:
/// `thread;outermost;…;executing count`, the input of `flamegraph.pl`, inferno and speedscope.
/// The root frame is the thread's name without its id, as `stackcollapse-perf.pl` names it by
/// default: ids change from run to run, names do not, so the files of two runs line up for
/// `difffolded.pl` (threads of one name add up; pprof and the trace keep them apart). Stacks
/// from all stalls of a thread add up; lines are sorted, so the output is deterministic. Every
/// sample counts once: the counts add up to the stalls' `samples`.
///
/// Frame and thread names come from the program and may contain the separators: `\` becomes
/// `\\`, `;` becomes `\x3b`, a newline `\n` and a carriage return `\r`, so every line stays one
/// stack and the names can be read back exactly (`unescape`).
public struct FoldedStacksWriter: ReportWriter {
    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        Array(lines(report).map { "\($0.stack) \($0.count)\n" }.joined().utf8)
    }

    /// Distinct folded stacks with their sample counts, sorted by stack.
    public func lines(_ report: Report) -> [(stack: String, count: Int)] {
        var counts: [String: Int] = [:]
        for stall in report.stalls {
            guard let tree = stall.callTree else { continue }
            let thread = Self.escape(stall.thread.name.isEmpty ? "thread" : stall.thread.name)
            for path in tree.selfPaths {
                let stack = ([thread] + path.steps.map { Self.escape($0.name) }).joined(separator: ";")
                counts[stack, default: 0] += path.count
            }
        }
        return counts.sorted { $0.key < $1.key }.map { (stack: $0.key, count: $0.value) }
    }

    /// `name` with the folded format's separators escaped.
    public static func escape(_ name: String) -> String {
        var escaped = ""
        for character in name {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\x3b"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\r\n": escaped += "\\r\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The name `escape` was given.
    public static func unescape(_ escaped: String) -> String {
        var name = ""
        var rest = Substring(escaped)
        while let first = rest.first {
            rest = rest.dropFirst()
            guard first == "\\" else {
                name.append(first)
                continue
            }
            if rest.hasPrefix("x3b") {
                name += ";"
                rest = rest.dropFirst(3)
            } else if let next = rest.first {
                name += next == "n" ? "\n" : next == "r" ? "\r" : String(next)
                rest = rest.dropFirst()
            }
        }
        return name
    }
}
