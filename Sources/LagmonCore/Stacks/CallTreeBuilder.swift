/// Merges stacks into one call tree: a synthetic root `(all)` whose children are the outermost
/// frames, each node counting the samples that passed through it. Frames merge by
/// FrameIdentity (module + symbol), so call sites inside one function share a node, and frames
/// without a symbol share one `module+?` node per module.
///
/// The tree is bounded (STYLE habit 13): at most `maxDepth` frames below the root, at most
/// `maxChildren` children per node and about `maxNodes` nodes in all. Callees beyond a cap are
/// folded into one last child named `(N more)` that keeps their samples but not their subtrees.
public struct CallTreeBuilder: Sendable {
    /// The synthetic root's name (its module is empty).
    public static let rootName = "(all)"

    /// Frames below the root, at most.
    public var maxDepth: Int
    /// Children per node, at most, before the rest are folded.
    public var maxChildren: Int
    /// Nodes in the whole tree, about: the heaviest paths are kept first.
    public var maxNodes: Int

    public init(maxDepth: Int = 128, maxChildren: Int = 16, maxNodes: Int = 2_000) {
        self.maxDepth = maxDepth
        self.maxChildren = maxChildren
        self.maxNodes = maxNodes
    }

    /// The tree of `stacks` (frames root first, each stack seen `count` times).
    public func tree(_ stacks: [StackCount]) -> CallTreeNode {
        var arena = [Node(name: Self.rootName, module: "")]
        for stack in stacks {
            var index = 0
            arena[0].count += stack.count
            for frame in stack.frames.prefix(maxDepth) {
                index = Self.child(of: index, for: frame, in: &arena)
                arena[index].count += stack.count
            }
        }
        var budget = maxNodes - 1
        return node(0, arena, budget: &budget)
    }

    /// A node under construction: children by identity, as indices into the arena.
    private struct Node {
        var name: String
        var module: String
        var count = 0
        var children: [FrameIdentity: Int] = [:]
    }

    private static func child(of parent: Int, for frame: Frame, in arena: inout [Node]) -> Int {
        let identity = FrameIdentity(frame)
        if let existing = arena[parent].children[identity] { return existing }
        // A logical frame (a Swift async caller) is named as text reports mark it.
        let name = frame.isAsyncCaller == true ? frame.groupName + " [async]" : frame.groupName
        arena.append(Node(name: name, module: frame.module))
        arena[parent].children[identity] = arena.count - 1
        return arena.count - 1
    }

    /// Depth first, heaviest callee first, spending `budget` on every node kept.
    private func node(_ index: Int, _ arena: [Node], budget: inout Int) -> CallTreeNode {
        let callees = arena[index].children.values.sorted { a, b in
            let (left, right) = (arena[a], arena[b])
            if left.count != right.count { return left.count > right.count }
            return (left.name, left.module) < (right.name, right.module)
        }
        var children: [CallTreeNode] = []
        var folded = 0
        var foldedSamples = 0
        for callee in callees {
            if children.count < maxChildren, budget > 0 {
                budget -= 1
                children.append(node(callee, arena, budget: &budget))
            } else {
                folded += 1
                foldedSamples += arena[callee].count
            }
        }
        if folded > 0 {
            children.append(CallTreeNode(name: "(\(folded) more)", module: "", count: foldedSamples, children: []))
        }
        return CallTreeNode(
            name: arena[index].name, module: arena[index].module, count: arena[index].count, children: children)
    }
}
