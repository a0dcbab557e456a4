/// How each frame of the current run's call tree changed against a baseline's, for a
/// differential flame graph as `difffolded.pl` and `flamegraph.pl` draw one: frames match by
/// their path from the root (names and modules), each run's counts are shares of its own
/// samples (runs of different lengths compare, as `difffolded.pl -n` scales them), and a frame
/// is red as far as its share grew, blue as far as it shrank, against the largest change of a
/// frame in the graph; unchanged frames are grey. Widths are the current run's, so frames that
/// ran only in the baseline are not drawn: `gone` lists them.
struct FlameDifference {
    /// The baseline's samples through each path (the root excluded).
    private var baseline: [[CallPath.Step]: Int]
    private var baselineTotal: Int
    /// The largest change of a frame's share, 0…1.
    private var largestChange: Double
    /// The outermost paths of the baseline the current tree lacks (their callers ran in both),
    /// with their samples, most first.
    private(set) var gone: [(path: [CallPath.Step], count: Int)]

    init(baseline: CallTreeNode, current: CallTreeNode) {
        let baselineTotal = max(baseline.count, 1)
        var before: [[CallPath.Step]: Int] = [:]
        var path: [CallPath.Step] = []
        Self.walk(baseline, path: &path) { before[$0] = $1.count }
        var seen = Set<[CallPath.Step]>()
        var largest = 0.0
        let currentTotal = max(current.count, 1)
        Self.walk(current, path: &path) { path, node in
            seen.insert(path)
            let then = Self.fraction(before[path] ?? 0, of: baselineTotal)
            largest = max(largest, abs(Self.fraction(node.count, of: currentTotal) - then))
        }
        self.baseline = before
        self.baselineTotal = baselineTotal
        largestChange = largest
        // The outermost frames missing now: their callees are missing with them.
        gone = before.filter {
            !seen.contains($0.key) && ($0.key.count == 1 || seen.contains(Array($0.key.dropLast())))
        }
        .map { (path: $0.key, count: $0.value) }
        // Most samples first; then the outermost, then by path.
        .sorted { a, b in
            (b.count, a.path.count, Self.text(a.path)) < (a.count, b.path.count, Self.text(b.path))
        }
    }

    /// The colour and title lines of the current tree's `node` at `path`, of `total` samples.
    func change(at path: [CallPath.Step], node: CallTreeNode, total: Int) -> (fill: String, lines: [String]) {
        let now = Self.fraction(node.count, of: max(total, 1))
        let before = baseline[path] ?? 0
        let then = Self.fraction(before, of: baselineTotal)
        let delta = path.isEmpty ? 0 : now - then
        var lines = ["now: \(node.count) samples (\(Self.percent(now)))"]
        lines.append(
            path.isEmpty || before > 0 ? "baseline: \(before) samples (\(Self.percent(then)))" : "baseline: not seen")
        if !path.isEmpty {
            let points = DurationText.fixed(abs(delta) * 100, digits: 1)
            lines.append(
                delta == 0 ? "change: none" : "change: \(delta > 0 ? "+" : "−")\(points) points of the samples")
        }
        return (Self.fill(delta, largest: largestChange), lines)
    }

    /// Red for growth, blue for shrinkage, the more saturated the larger the change; grey for none.
    static func fill(_ delta: Double, largest: Double) -> String {
        guard delta != 0, largest > 0 else { return "#e0e0e0" }
        let strength = min(1, abs(delta) / largest)
        let pale = Int((224 * (1 - strength)).rounded())
        let channel = Self.hex(pale)
        return delta > 0 ? "#ff\(channel)\(channel)" : "#\(channel)\(channel)ff"
    }

    private static func hex(_ value: Int) -> String {
        let text = String(max(0, min(255, value)), radix: 16)
        return text.count == 1 ? "0" + text : text
    }

    /// `count` as a share of `total` (0…1).
    static func fraction(_ count: Int, of total: Int) -> Double { Double(count) / Double(total) }

    /// A path as one line, outermost first.
    static func text(_ path: [CallPath.Step]) -> String { path.map(\.name).joined(separator: " → ") }

    private static func percent(_ share: Double) -> String { DurationText.fixed(share * 100, digits: 1) + "%" }

    /// Every node below `node` (the root excluded), depth first, with its path.
    private static func walk(
        _ node: CallTreeNode, path: inout [CallPath.Step], _ visit: ([CallPath.Step], CallTreeNode) -> Void
    ) {
        for child in node.children {
            path.append(CallPath.Step(name: child.name, module: child.module))
            visit(path, child)
            walk(child, path: &path, visit)
            path.removeLast()
        }
    }
}
