/// An icicle flame graph of a call tree you can search and zoom: the root on top, callees
/// below, each frame as wide as its share of the samples. The program's frames are warm, the
/// system's cool (CallTreeDetails, ModuleClassifier), folded `(N more)` nodes grey; in a
/// differential graph (`difference`) frames are red where they grew and blue where they shrank.
/// Every frame has a title (name, module, source place, samples, share) and a label with its
/// source place when known, clipped to the frame; frames narrower than `minWidth` are left out
/// (their samples still widen their callers).
///
/// The page's script (HTMLPageAssets.flameScript) reads each frame's samples (`data-n`), the
/// samples left of it (`data-o`) and its depth (`data-d`): it zooms into a clicked frame (or
/// one focused and Enter), searches names, modules and files and says what share of the
/// samples match. Positions are percentages and each frame a nested `<svg>`, so labels keep
/// their size at any width.
struct FlameGraphChart {
    static let width = 1180.0
    static let rowHeight = 17.0
    /// Narrowest frame drawn, in units of `width`.
    static let minWidth = 0.3

    var tree: CallTreeNode
    /// The root's label (`all stalls`, `6 stalls`).
    var rootLabel: String
    /// Places and runtimes of the nodes.
    var details: CallTreeDetails = .none
    /// For a differential graph: how each frame changed against a baseline.
    var difference: FlameDifference?

    /// The graph with its search box, zoom reset and status line.
    var html: String {
        var frames: [String] = []
        var depth = 0
        var path: [CallPath.Step] = []
        let total = max(tree.count, 1)
        draw(tree, offset: 0, depth: 0, total: total, path: &path, into: &frames, maxDepth: &depth)
        let height = Double(depth + 1) * Self.rowHeight + 2
        let label = SVG.escape(rootLabel)
        return """
            <div class="flame-graph"\(difference == nil ? "" : " data-stat-lines=\"3\"")>
            <div class="flame-tools"><input type="search" class="flame-search" placeholder="Search functions, modules, files" aria-label="Search the flame graph of \(label)"> <button type="button" class="flame-reset" disabled>Reset zoom</button> <span class="flame-status" role="status"></span></div>
            <svg class="chart flame" width="100%" height="\(SVG.number(height))" role="group" aria-label="flame graph of \(label): \(tree.count) samples; click a frame or press Enter on it to zoom">
            \(frames.joined(separator: "\n"))
            </svg>
            </div>
            """
    }

    private func draw(
        _ node: CallTreeNode, offset: Int, depth: Int, total: Int, path: inout [CallPath.Step],
        into frames: inout [String], maxDepth: inout Int
    ) {
        guard Double(node.count) / Double(total) * Self.width >= Self.minWidth else { return }
        maxDepth = max(maxDepth, depth)
        frames.append(frame(node, offset: offset, depth: depth, total: total, path: path))
        var childOffset = offset
        for child in node.children {
            path.append(CallPath.Step(name: child.name, module: child.module))
            draw(
                child, offset: childOffset, depth: depth + 1, total: total, path: &path, into: &frames,
                maxDepth: &maxDepth)
            path.removeLast()
            childOffset += child.count
        }
    }

    /// One frame: a nested `<svg>` with its title, its box and its label.
    private func frame(_ node: CallTreeNode, offset: Int, depth: Int, total: Int, path: [CallPath.Step]) -> String {
        let isRoot = depth == 0
        let name = isRoot ? rootLabel : node.name
        let place = isRoot ? nil : details.place(of: path)
        let share = DurationText.fixed(Double(node.count) * 100 / Double(total), digits: 1)
        var title = [name]
        let whereLine = [node.module, place?.text ?? ""].filter { !$0.isEmpty }.joined(separator: " · ")
        if !whereLine.isEmpty { title.append(whereLine) }
        var kind = Self.kind(node, path: path, isRoot: isRoot, details: details)
        var fill = ""
        if let difference {
            let change = difference.change(at: path, node: node, total: total)
            kind = "diff"
            fill = " style=\"fill:\(change.fill)\""
            title += change.lines
        } else {
            title.append("\(node.count) samples, \(share)%")
        }
        let label = place.map { "\(name) · \($0.shortText)" } ?? name
        let x = SVG.percent(Double(offset) / Double(total))
        let width = SVG.percent(Double(node.count) / Double(total))
        let y = SVG.number(Double(depth) * Self.rowHeight)
        return
            "<svg class=\"frame \(kind)\" x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(SVG.number(Self.rowHeight - 1))\" data-o=\"\(offset)\" data-n=\"\(node.count)\" data-d=\"\(depth)\" tabindex=\"0\" role=\"button\">"
            + "<title>\(SVG.escape(title.joined(separator: "\n")))</title><rect width=\"100%\" height=\"100%\"\(fill)/>"
            + SVG.text(label, x: 3, y: Self.rowHeight - 5) + "</svg>"
    }

    /// The colour class of a frame.
    private static func kind(_ node: CallTreeNode, path: [CallPath.Step], isRoot: Bool, details: CallTreeDetails)
        -> String
    {
        if isRoot { return "root" }
        if node.module.isEmpty { return "folded" }
        return details.isApplication(path) ? "app" : "system"
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
