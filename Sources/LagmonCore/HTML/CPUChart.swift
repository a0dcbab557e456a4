/// Per-thread CPU use over time, on the same time axis as the timeline (and zoomed with it):
/// one line per thread for the busiest threads and the main thread, CPU alerts as squares of a
/// fixed size (they stay squares when zoomed), and an HTML legend that wraps with the page.
struct CPUChart {
    static let width = TimelineChart.width
    static let plotLeft = TimelineChart.plotLeft
    static let plotRight = TimelineChart.plotRight
    /// Side of an alert's square, in pixels.
    static let alertSide = 8.0
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
        let axis = TimeAxis(spanNs: report.target.wallNs, width: Self.width - Self.plotLeft - Self.plotRight)
        let maxPct = max(100, drawn.flatMap { $0.cpuSeries.map(\.pct) }.max() ?? 0)
        let y = { (pct: Double) in Self.plotHeight - min(pct, maxPct) / maxPct * (Self.plotHeight - 6) }
        var plot = [SVG.rect(x: 0, y: 0, width: axis.width, height: Self.plotHeight, className: "plot-bg span")]
        for (index, thread) in drawn.enumerated() {
            let color = Self.colors[index % Self.colors.count]
            let line = steps(thread.cpuSeries, axis: axis, y: y)
            plot.append(
                SVG.polyline(
                    line.map { ($0.x, $0.y) }, className: "cpu",
                    style: "stroke:\(color)",
                    attributes: " data-t=\"\(line.map { TimeAxis.seconds($0.ns) }.joined(separator: " "))\""))
            for alert in thread.alerts {
                let side = Self.alertSide
                plot.append(
                    SVG.rect(
                        x: axis.x(alert.atNs) - side / 2, y: y(alert.cpuPct) - side / 2, width: side, height: side,
                        className: "alert", attributes: " data-t=\"\(TimeAxis.seconds(alert.atNs))\"",
                        title:
                            "CPU alert: \(thread.exportLabel) at \(DurationText.fixed(alert.cpuPct, digits: 0))% (\(TimeAxis.instant(alert.atNs)))"
                    ))
            }
        }
        return frame(axis: axis, maxPct: maxPct, plot: plot.joined(separator: "\n"))
    }

    /// A step line: each interval's percentage held from its start to its end; each point with
    /// its time, for the page's script.
    private func steps(_ series: [CPUPoint], axis: TimeAxis, y: (Double) -> Double) -> [(
        x: Double, y: Double, ns: UInt64
    )] {
        var points: [(x: Double, y: Double, ns: UInt64)] = []
        var startNs =
            series.first.map { $0.atNs > report.config.cpuIntervalNs ? $0.atNs - report.config.cpuIntervalNs : 0 } ?? 0
        for point in series {
            points.append((axis.x(startNs), y(point.pct), min(startNs, axis.spanNs)))
            points.append((axis.x(point.atNs), y(point.pct), min(point.atNs, axis.spanNs)))
            startNs = point.atNs
        }
        return points
    }

    /// The legend, as HTML: one key per thread drawn, wrapping with the page's width.
    var legendHTML: String {
        let keys = threads.enumerated().map { index, thread in
            "<span class=\"thread-key\"><span class=\"key\" style=\"background:\(Self.colors[index % Self.colors.count])\"></span>\(SVG.escape(thread.exportLabel)) avg \(DurationText.fixed(thread.cpu.avgPct, digits: 0))% max \(DurationText.fixed(thread.cpu.maxPct, digits: 0))%</span>"
        }
        return "<p class=\"legend cpu-legend\">\(keys.joined(separator: " "))</p>"
    }

    private func frame(axis: TimeAxis, maxPct: Double, plot: String) -> String {
        let height = Self.top + Self.plotHeight + 28
        var parts = [
            TimeAxis.chartOpening(
                className: "cpu-chart", width: Self.width, height: height, plotLeft: Self.plotLeft,
                plotRight: Self.plotRight, top: Self.top, plotHeight: Self.plotHeight, label: "CPU use per thread")
        ]
        parts += axis.gridSVG(left: Self.plotLeft, top: Self.top, height: Self.plotHeight)
        parts.append(
            SVG.text(
                "\(DurationText.fixed(maxPct, digits: 0))%", x: Self.plotLeft - 6, y: Self.top + 12, className: "tick",
                anchor: "end"))
        parts.append(
            SVG.text("0%", x: Self.plotLeft - 6, y: Self.top + Self.plotHeight, className: "tick", anchor: "end"))
        parts.append(axis.plotOpening(left: Self.plotLeft, top: Self.top, height: Self.plotHeight))
        parts.append(plot)
        parts.append("</svg></svg>")
        return parts.joined(separator: "\n")
    }
}
