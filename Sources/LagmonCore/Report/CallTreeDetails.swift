/// What a call tree does not keep about its nodes, read back from the stalls' listed `stacks`:
/// where in the source each node ran and whether it is the user's own interpreted code. A
/// node merges every call site of a function, so its place is the one most of its samples
/// were at (then the smallest line); a frame has a file and line when its binary has debug
/// information or it is interpreted. Nodes only in stacks beyond the listed ones
/// (`stacksOmitted`) have neither. Paths merge across stalls, as merged trees do.
public struct CallTreeDetails: Sendable {
    /// Samples per place, by path from the root (the root itself excluded).
    private var places: [[CallPath.Step]: [SourcePlace: Int]] = [:]
    /// The runtime of interpreted frames, by path.
    private var runtimes: [[CallPath.Step]: FrameRuntime] = [:]

    /// No details: every node by its module alone.
    public static let none = CallTreeDetails(stalls: [])

    /// The details of `stalls`' listed stacks.
    public init(stalls: [StallReport]) {
        for stall in stalls {
            for stack in stall.stacks { add(stack) }
        }
    }

    private mutating func add(_ stack: StackCount) {
        var path: [CallPath.Step] = []
        for frame in stack.frames {
            path.append(CallPath.Step(name: CallTreeBuilder.nodeName(frame), module: frame.module))
            if let runtime = frame.runtime { runtimes[path] = runtime }
            guard let file = frame.file, !file.isEmpty else { continue }
            places[path, default: [:]][SourcePlace(file: file, line: frame.line), default: 0] += stack.count
        }
    }

    /// The place of the node at `path` (its steps from the root's child down), if known.
    public func place(of path: [CallPath.Step]) -> SourcePlace? {
        guard let votes = places[path] else { return nil }
        return votes.max { a, b in
            if a.value != b.value { return a.value < b.value }
            return (a.key.line ?? .max, a.key.file) > (b.key.line ?? .max, b.key.file)
        }?.key
    }

    /// Whether the node at `path` is the application's code rather than the system's
    /// (ModuleClassifier; an interpreted frame by its source file).
    public func isApplication(_ path: [CallPath.Step]) -> Bool {
        guard let step = path.last else { return false }
        guard let runtime = runtimes[path] else { return ModuleClassifier.isApplication(step.module) }
        return ModuleClassifier.isApplicationSource(step.module, runtime: runtime)
    }
}
