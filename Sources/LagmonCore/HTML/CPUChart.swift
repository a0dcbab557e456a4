/// Per-thread CPU use over time, on the same time axis as the timeline (and zoomed with it):
/// one line per thread for the busiest threads and the main thread, CPU alerts as marks, a legend.
struct CPUChart {
    static let width = TimelineChart.width
    static let plotLeft = TimelineChart.plotLeft
    static let plotHeight = 160.0
    static let top = 12.0
    /// Threads drawn, at most (the busiest by CPU time, and always the main thread).
    static let maxThreads = 8
    static let colors = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    var report: Report

    /// The threads drawn, busiest first, the main thread always among them.
    var threads: [ThreadReport] {
        let busiest = report.threads.sorted { ($0.cpu.totalNs, $1.tid) > ($1.cpu.totalNs, $0.tid) }
        var chosen = Array(busiest.filter { !$0.cpuSeries.isEmpty }.prefix(Self.maxThreads))
        if let main = report.threads.first(where: { $0.tid == report.target.pid }), !main.cpuSeries.isEmpty,
            !chosen.contains(where: { $0.tid == main.tid })
        {
            chosen[chosen.count - 1] = main
        }
        return chosen
    }

    var svg: String? {
        let drawn = threads
        guard !drawn.isEmpty else { return nil }
        let axis = TimeAxis(spanNs: report.target.wallNs, width: Self.width - Self.plotLeft - 10)
        let maxPct = max(100, drawn.flatMap { $0.cpuSeries.map(\.pct) }.max() ?? 0)
        let y = { (pct: Double) in Self.plotHeight - min(pct, maxPct) / maxPct * (Self.plotHeight - 6) }
        var plot = [SVG.rect(x: 0, y: 0, width: axis.width, height: Self.plotHeight, className: "plot-bg")]
        for (index, thread) in drawn.enumerated() {
            let color = Self.colors[index % Self.colors.count]
            plot.append(
                SVG.polyline(steps(thread.cpuSeries, axis: axis, y: y), className: "cpu", style: "stroke:\(color)"))
            for alert in thread.alerts {
                plot.append(
                    SVG.rect(
                        x: axis.x(alert.atNs) - 2, y: y(alert.cpuPct) - 2, width: 4, height: 4, className: "alert",
                        title:
                            "CPU alert: \(thread.exportLabel) at \(DurationText.fixed(alert.cpuPct, digits: 0))% (\(TimeAxis.instant(alert.atNs)))"
                    ))
            }
        }
        return frame(axis: axis, maxPct: maxPct, plot: plot.joined(separator: "\n"), threads: drawn)
    }

    /// A step line: each interval's percentage held from its start to its end.
    private func steps(_ series: [CPUPoint], axis: TimeAxis, y: (Double) -> Double) -> [(x: Double, y: Double)] {
        var points: [(x: Double, y: Double)] = []
        var startNs =
            series.first.map { $0.atNs > report.config.cpuIntervalNs ? $0.atNs - report.config.cpuIntervalNs : 0 } ?? 0
        for point in series {
            points.append((axis.x(startNs), y(point.pct)))
            points.append((axis.x(point.atNs), y(point.pct)))
            startNs = point.atNs
        }
        return points
    }

    private func frame(axis: TimeAxis, maxPct: Double, plot: String, threads: [ThreadReport]) -> String {
        let legendTop = Self.top + Self.plotHeight + 30
        let height = legendTop + Double((threads.count + 3) / 4) * 18 + 4
        var parts = [
            "<svg class=\"chart cpu-chart\" viewBox=\"0 0 \(SVG.number(Self.width)) \(SVG.number(height))\" role=\"img\" aria-label=\"CPU use per thread\">"
        ]
        parts += axis.gridSVG(left: Self.plotLeft, top: Self.top, height: Self.plotHeight)
        parts.append(
            SVG.text(
                "\(DurationText.fixed(maxPct, digits: 0))%", x: Self.plotLeft - 6, y: Self.top + 12, className: "tick",
                anchor: "end"))
        parts.append(
            SVG.text("0%", x: Self.plotLeft - 6, y: Self.top + Self.plotHeight, className: "tick", anchor: "end"))
        parts.append(
            "<svg class=\"plot\" x=\"\(SVG.number(Self.plotLeft))\" y=\"\(SVG.number(Self.top))\" width=\"\(SVG.number(axis.width))\" height=\"\(SVG.number(Self.plotHeight))\" viewBox=\"0 0 \(SVG.number(axis.width)) \(SVG.number(Self.plotHeight))\" preserveAspectRatio=\"none\">"
        )
        parts.append(plot)
        parts.append("</svg>")
        for (index, thread) in threads.enumerated() {
            let x = Self.plotLeft + Double(index % 4) * 280
            let y = legendTop + Double(index / 4) * 18
            parts.append(
                SVG.rect(
                    x: x, y: y - 9, width: 12, height: 4,
                    attributes: " style=\"fill:\(Self.colors[index % Self.colors.count])\""))
            parts.append(
                SVG.text(
                    "\(thread.exportLabel) avg \(DurationText.fixed(thread.cpu.avgPct, digits: 0))% max \(DurationText.fixed(thread.cpu.maxPct, digits: 0))%",
                    x: x + 18, y: y, className: "legend"))
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }
}
