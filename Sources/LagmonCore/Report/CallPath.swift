/// A path from the top of a call tree down to one node, with the samples that ended there
/// (executing in that node itself, not in a callee). Exporters write stacks as such paths, so
/// every sample of a stall is counted exactly once, even those of stacks the report does not
/// list one by one (`stacksOmitted`).
public struct CallPath: Sendable, Equatable {
    /// One frame of the path: the call tree node's name and module.
    public struct Step: Sendable, Hashable {
        /// The function (or `module+0xoffset`, or `(N more)`).
        public var name: String
        /// Its module; empty for folded `(N more)` nodes.
        public var module: String

        public init(name: String, module: String) {
            self.name = name
            self.module = module
        }
    }

    /// Frames from the outermost (the thread's entry) to the executing one; empty for samples
    /// whose unwind failed at once.
    public var steps: [Step]
    /// Samples that ended in the last step.
    public var count: Int

    public init(steps: [Step], count: Int) {
        self.steps = steps
        self.count = count
    }
}

extension CallTreeNode {
    /// Every path below this (synthetic root) node to a node with samples of its own, depth
    /// first, heaviest callee first (the tree's order). The counts add up to `count`.
    public var selfPaths: [CallPath] {
        var paths: [CallPath] = []
        var prefix: [CallPath.Step] = []
        appendPaths(to: &paths, prefix: &prefix)
        return paths
    }

    private func appendPaths(to paths: inout [CallPath], prefix: inout [CallPath.Step]) {
        let own = count - children.reduce(0) { $0 + $1.count }
        if own > 0 { paths.append(CallPath(steps: prefix, count: own)) }
        for child in children {
            prefix.append(CallPath.Step(name: child.name, module: child.module))
            child.appendPaths(to: &paths, prefix: &prefix)
            prefix.removeLast()
        }
    }
}

extension StallReport {
    /// How exports name the stall: `stall #2 +0.204s 221ms afterWaiting`.
    public var exportLabel: String {
        "stall #\(id) +\(DurationText.fixed(Double(startNs) / 1e9, digits: 3))s "
            + "\(DurationText.format(nanoseconds: durationNs)) \(activity)"
    }
}

extension ThreadRef {
    /// How exports name the thread: `lagmon-demo [24499]`.
    public var exportLabel: String { "\(name) [\(tid)]" }
}

extension ThreadReport {
    /// How exports name the thread: `cpu-burner [24501]`.
    public var exportLabel: String { ThreadRef(tid: tid, name: name).exportLabel }
}
