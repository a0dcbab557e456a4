/// Which threads a `cpu[THREAD]` metric reads: the main thread, every thread, one thread id, or
/// every thread with a given name. Several matching threads: the metric is the worst of them.
public enum ThreadSelector: Hashable, Sendable, CustomStringConvertible {
    /// The target's main thread (its tid equals its pid): `cpu[main]`.
    case main
    /// Every thread: `cpu[*]`.
    case any
    /// The thread with this kernel thread id: `cpu[4242]`.
    case tid(Int32)
    /// Every thread with this name (comm): `cpu[decoder]`, or quoted, `cpu["main"]`.
    case name(String)

    /// The selector as written in a budget; names that would read as something else are quoted.
    public var description: String {
        switch self {
        case .main: return "main"
        case .any: return "*"
        case .tid(let tid): return "\(tid)"
        case .name(let name):
            let plain =
                !name.isEmpty && name != "main" && name != "*" && !name.allSatisfy(\.isASCIIDigit)
                && !name.contains { "[]\"'".contains($0) || $0.isWhitespace }
            if plain { return name }
            return name.contains("\"") ? "'\(name)'" : "\"\(name)\""
        }
    }

    /// The threads of `report` this selector picks.
    public func matches(in report: Report) -> [ThreadReport] {
        report.threads.filter { thread in
            switch self {
            case .main: thread.tid == report.target.pid
            case .any: true
            case .tid(let tid): thread.tid == tid
            case .name(let name): thread.name == name
            }
        }
    }
}

extension Character {
    /// `0`–`9` only (not other scripts' digits, which `isNumber` also accepts).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
