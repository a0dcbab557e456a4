/// An icicle flame graph of a call tree: the root on top, callees below, each frame as wide as
/// its share of the samples. Application frames are warm, system frames cool, folded
/// `(N more)` nodes grey; every frame has a hover title with its samples and share, and a label
/// when it is wide enough. Frames narrower than `minWidth` are left out (their samples still
/// widen their callers). Positions are percentages of the page's width and each frame is a
/// nested `<svg>` clipping its label, so labels keep their font size at any width and show as
/// much of the name as the frame holds.
struct FlameGraphChart {
    static let width = 1180.0
    static let rowHeight = 17.0
    /// Narrowest frame drawn, in units of `width`.
    static let minWidth = 0.3
    /// Average glyph width of the label font: frames narrower than three glyphs at `width` get
    /// no label.
    static let glyphWidth = 6.6

    var tree: CallTreeNode
    /// The root's label (`all stalls`, `stall #3`).
    var rootLabel: String

    var svg: String {
        var rects: [String] = []
        var depth = 0
        draw(tree, x: 0, depth: 0, total: max(tree.count, 1), into: &rects, maxDepth: &depth)
        let height = Double(depth + 1) * Self.rowHeight + 2
        return
            "<svg class=\"chart flame\" width=\"100%\" height=\"\(SVG.number(height))\" role=\"img\" aria-label=\"flame graph of \(SVG.escape(rootLabel))\">\n"
            + rects.joined(separator: "\n") + "\n</svg>"
    }

    private func draw(
        _ node: CallTreeNode, x: Double, depth: Int, total: Int, into rects: inout [String], maxDepth: inout Int
    ) {
        let width = Double(node.count) / Double(total) * Self.width
        guard width >= Self.minWidth else { return }
        maxDepth = max(maxDepth, depth)
        let isRoot = depth == 0
        let name = isRoot ? rootLabel : node.name
        let share = DurationText.fixed(Double(node.count) * 100 / Double(total), digits: 1)
        let module = node.module.isEmpty ? "" : " (\(node.module))"
        let title = "\(name)\(module)\n\(node.count) samples, \(share)%"
        let y = Double(depth) * Self.rowHeight
        rects.append(
            "<svg class=\"frame \(Self.kind(node, isRoot: isRoot))\" x=\"\(SVG.percent(x / Self.width))\" y=\"\(SVG.number(y))\" width=\"\(SVG.percent(width / Self.width))\" height=\"\(SVG.number(Self.rowHeight - 1))\">"
        )
        rects.append(
            "<rect width=\"100%\" height=\"100%\"><title>\(SVG.escape(title))</title></rect>")
        if Int((width - 6) / Self.glyphWidth) >= 3 {
            rects.append(SVG.text(name, x: 3, y: Self.rowHeight - 5))
        }
        rects.append("</svg>")
        var childX = x
        for child in node.children {
            draw(child, x: childX, depth: depth + 1, total: total, into: &rects, maxDepth: &maxDepth)
            childX += Double(child.count) / Double(total) * Self.width
        }
    }

    /// The colour class of a frame.
    private static func kind(_ node: CallTreeNode, isRoot: Bool) -> String {
        if isRoot { return "root" }
        if node.module.isEmpty { return "folded" }
        return ModuleClassifier.isApplication(node.module) ? "app" : "system"
    }
}

extension CallTreeNode {
    /// Several trees merged into one under a new root: nodes with the same name and module
    /// merge (their counts add up), children most samples first, then by name and module.
    static func merged(_ trees: [CallTreeNode], rootName: String) -> CallTreeNode {
        CallTreeNode(
            name: rootName, module: "", count: trees.reduce(0) { $0 + $1.count },
            children: mergedChildren(trees.flatMap(\.children)))
    }

    private static func mergedChildren(_ nodes: [CallTreeNode]) -> [CallTreeNode] {
        var groups: [CallPath.Step: [CallTreeNode]] = [:]
        for node in nodes { groups[CallPath.Step(name: node.name, module: node.module), default: []].append(node) }
        return groups.map { step, group in
            CallTreeNode(
                name: step.name, module: step.module, count: group.reduce(0) { $0 + $1.count },
                children: mergedChildren(group.flatMap(\.children)))
        }
        .sorted { ($1.count, $0.name, $0.module) < ($0.count, $1.name, $1.module) }
    }
}
