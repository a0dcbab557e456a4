/// The loop-latency timeline: time across, latency up. Every stall is a mark spanning its
/// interval, as tall as it was long, coloured by its diagnosis, with a hover title (duration,
/// diagnosis, culprit); every long busy period of a loop is a fainter band behind; the threshold
/// is a dashed line. The plot is a nested `<svg class="plot">` whose viewBox the page's script
/// changes to zoom (marks keep their hover titles; strokes do not scale).
struct TimelineChart {
    static let width = 1180.0
    static let plotLeft = 60.0
    static let plotHeight = 220.0
    static let top = 12.0

    var report: Report

    var svg: String {
        let axis = TimeAxis(spanNs: report.target.wallNs, width: Self.width - Self.plotLeft - 10)
        let maxNs = scaleMaxNs
        let y = { (ns: UInt64) in Self.plotHeight - Double(min(ns, maxNs)) / Double(maxNs) * (Self.plotHeight - 8) }
        var plot: [String] = []
        plot.append(SVG.rect(x: 0, y: 0, width: axis.width, height: Self.plotHeight, className: "plot-bg"))
        for loop in report.loops {
            for iteration in loop.longIterations {
                let x = axis.x(iteration.startNs)
                let width = max(axis.x(iteration.startNs + iteration.durationNs) - x, 1)
                plot.append(
                    SVG.rect(
                        x: x, y: y(iteration.durationNs), width: width,
                        height: Self.plotHeight - y(iteration.durationNs),
                        className: "iteration",
                        title:
                            "long iteration: awake \(DurationText.format(nanoseconds: iteration.durationNs)) at \(TimeAxis.instant(iteration.startNs))"
                    ))
            }
        }
        for stall in report.stalls {
            let x = axis.x(stall.startNs)
            let width = max(axis.x(stall.startNs + stall.durationNs) - x, 1.5)
            plot.append(
                SVG.rect(
                    x: x, y: y(stall.durationNs), width: width, height: Self.plotHeight - y(stall.durationNs),
                    className: "stall kind-\(stall.diagnosis.kind.rawValue)", attributes: " data-stall=\"\(stall.id)\"",
                    title: Self.title(stall)))
        }
        let threshold = y(report.config.thresholdNs)
        plot.append(SVG.line(x1: 0, y1: threshold, x2: axis.width, y2: threshold, className: "threshold"))
        return frame(axis: axis, maxNs: maxNs, plot: plot.joined(separator: "\n"))
    }

    /// The latency shown at the top: the longest stall or busy period, at least 1.5 thresholds.
    private var scaleMaxNs: UInt64 {
        let longest = report.loops.flatMap(\.longIterations).map(\.durationNs).max() ?? 0
        return max(report.summary.longestStallNs, longest, report.config.thresholdNs * 3 / 2, 1)
    }

    /// The hover text of a stall's mark.
    static func title(_ stall: StallReport) -> String {
        var lines = [
            "stall #\(stall.id): \(DurationText.format(nanoseconds: stall.durationNs)) in \(stall.activity) at \(TimeAxis.instant(stall.startNs))"
                + (stall.ongoingAtExit ? " (ongoing at exit)" : ""),
            stall.diagnosis.text,
        ]
        if let culprit = stall.culprit { lines.append("culprit: \(culprit.displayName) (\(culprit.module))") }
        lines.append("\(stall.samples) samples · thread \(stall.thread.exportLabel)")
        return lines.joined(separator: "\n")
    }

    /// Axes, labels and the zoomable plot.
    private func frame(axis: TimeAxis, maxNs: UInt64, plot: String) -> String {
        let height = Self.top + Self.plotHeight + 28
        var parts = [
            "<svg class=\"chart timeline\" viewBox=\"0 0 \(SVG.number(Self.width)) \(SVG.number(height))\" role=\"img\" aria-label=\"loop latency timeline\">"
        ]
        parts += axis.gridSVG(left: Self.plotLeft, top: Self.top, height: Self.plotHeight)
        parts.append(
            SVG.text(
                DurationText.format(nanoseconds: maxNs), x: Self.plotLeft - 6, y: Self.top + 12, className: "tick",
                anchor: "end"))
        parts.append(
            SVG.text("0", x: Self.plotLeft - 6, y: Self.top + Self.plotHeight, className: "tick", anchor: "end"))
        parts.append(
            "<svg class=\"plot\" x=\"\(SVG.number(Self.plotLeft))\" y=\"\(SVG.number(Self.top))\" width=\"\(SVG.number(axis.width))\" height=\"\(SVG.number(Self.plotHeight))\" viewBox=\"0 0 \(SVG.number(axis.width)) \(SVG.number(Self.plotHeight))\" preserveAspectRatio=\"none\">"
        )
        parts.append(plot)
        parts.append("</svg></svg>")
        return parts.joined(separator: "\n")
    }
}
