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
        placed(stacks).tree
    }

    /// The tree of `stacks`, and for each stack the node its samples end in: its index in the
    /// tree's depth-first order (the root is 0, a node comes before its callees, callees in their
    /// order). A stack deeper than `maxDepth` ends at its node at that depth; one whose callee
    /// was folded ends in the `(N more)` node that holds it.
    public func placed(_ stacks: [StackCount]) -> (tree: CallTreeNode, leaves: [Int]) {
        var arena = [Node(name: Self.rootName, module: "", parent: -1)]
        var arenaLeaves: [Int] = []
        for stack in stacks {
            var index = 0
            arena[0].count += stack.count
            for frame in stack.frames.prefix(maxDepth) {
                index = Self.child(of: index, for: frame, in: &arena)
                arena[index].count += stack.count
            }
            arenaLeaves.append(index)
        }
        var output = Output(budget: maxNodes - 1)
        let tree = node(0, arena, into: &output)
        let leaves = arenaLeaves.map { leaf in
            var index = leaf
            // A node left out of the output was folded: its nearest kept (or folded) ancestor holds it.
            while output.placed[index] == nil, arena[index].parent >= 0 { index = arena[index].parent }
            return output.placed[index] ?? 0
        }
        return (tree, leaves)
    }

    /// The name of `frame`'s node: its group name; a logical frame (a Swift async caller) is
    /// marked as text reports mark it.
    public static func nodeName(_ frame: Frame) -> String {
        frame.isAsyncCaller == true ? frame.groupName + " [async]" : frame.groupName
    }

    /// A node under construction: children by identity, as indices into the arena.
    private struct Node {
        var name: String
        var module: String
        /// The caller's index; -1 for the root.
        var parent: Int
        var count = 0
        var children: [FrameIdentity: Int] = [:]
    }

    /// The tree being written out: the nodes it may still take, and where each arena node went
    /// (its depth-first index; a folded callee's is its `(N more)` node's).
    private struct Output {
        var budget: Int
        var next = 0
        var placed: [Int: Int] = [:]
    }

    private static func child(of parent: Int, for frame: Frame, in arena: inout [Node]) -> Int {
        let identity = FrameIdentity(frame)
        if let existing = arena[parent].children[identity] { return existing }
        arena.append(Node(name: nodeName(frame), module: frame.module, parent: parent))
        arena[parent].children[identity] = arena.count - 1
        return arena.count - 1
    }

    /// Depth first, heaviest callee first, spending the output's budget on every node kept.
    private func node(_ index: Int, _ arena: [Node], into output: inout Output) -> CallTreeNode {
        output.placed[index] = output.next
        output.next += 1
        let callees = arena[index].children.values.sorted { a, b in
            let (left, right) = (arena[a], arena[b])
            if left.count != right.count { return left.count > right.count }
            return (left.name, left.module) < (right.name, right.module)
        }
        var children: [CallTreeNode] = []
        var folded: [Int] = []
        var foldedSamples = 0
        for callee in callees {
            if children.count < maxChildren, output.budget > 0 {
                output.budget -= 1
                children.append(node(callee, arena, into: &output))
            } else {
                folded.append(callee)
                foldedSamples += arena[callee].count
            }
        }
        if !folded.isEmpty {
            for callee in folded { output.placed[callee] = output.next }
            output.next += 1
            children.append(
                CallTreeNode(name: "(\(folded.count) more)", module: "", count: foldedSamples, children: []))
        }
        return CallTreeNode(
            name: arena[index].name, module: arena[index].module, count: arena[index].count, children: children)
    }
}
