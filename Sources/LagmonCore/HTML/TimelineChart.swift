/// The loop-latency timeline: time across, latency up. Every stall is a mark spanning its
/// interval, as tall as it was long, coloured by its diagnosis, with a hover title (duration,
/// diagnosis, culprit); every long busy period of a loop is a fainter band behind; the threshold
/// is a dashed line. Drawn for `width` units; every timed element carries its times
/// (`data-t0`, `data-t1`, in seconds) so the page's script lays the chart out again in CSS pixels
/// for the window's width and for a zoomed range, axis included, without stretching anything.
struct TimelineChart {
    static let width = 1180.0
    static let plotLeft = 60.0
    static let plotRight = 10.0
    static let plotHeight = 220.0
    static let top = 12.0
    /// Narrowest stall mark, in pixels (a short stall stays visible).
    static let minMarkWidth = 1.5

    var report: Report

    var svg: String {
        let axis = TimeAxis(spanNs: report.target.wallNs, width: Self.width - Self.plotLeft - Self.plotRight)
        let maxNs = scaleMaxNs
        let y = { (ns: UInt64) in Self.plotHeight - Double(min(ns, maxNs)) / Double(maxNs) * (Self.plotHeight - 8) }
        var plot: [String] = []
        plot.append(SVG.rect(x: 0, y: 0, width: axis.width, height: Self.plotHeight, className: "plot-bg span"))
        for loop in report.loops {
            for iteration in loop.longIterations {
                plot.append(
                    Self.interval(
                        startNs: iteration.startNs, durationNs: iteration.durationNs, axis: axis,
                        y: y(iteration.durationNs), minWidth: 1, className: "iteration", attributes: "",
                        title:
                            "long iteration: awake \(DurationText.format(nanoseconds: iteration.durationNs)) at \(TimeAxis.instant(iteration.startNs))"
                    ))
            }
        }
        for stall in report.stalls {
            plot.append(
                Self.interval(
                    startNs: stall.startNs, durationNs: stall.durationNs, axis: axis, y: y(stall.durationNs),
                    minWidth: Self.minMarkWidth, className: "stall kind-\(stall.diagnosis.kind.rawValue)",
                    attributes: " data-stall=\"\(stall.id)\"", title: Self.title(stall)))
        }
        let threshold = y(report.config.thresholdNs)
        plot.append(SVG.line(x1: 0, y1: threshold, x2: axis.width, y2: threshold, className: "threshold span"))
        return frame(axis: axis, maxNs: maxNs, plot: plot.joined(separator: "\n"))
    }

    /// A mark from `startNs` to its end, at least `minWidth` wide (`data-min` tells the script).
    private static func interval(
        startNs: UInt64, durationNs: UInt64, axis: TimeAxis, y: Double, minWidth: Double, className: String,
        attributes: String, title: String
    ) -> String {
        let x = axis.x(startNs)
        // Durations come from the channel, which the target can write: the end saturates.
        let endNs = saturatingAdd(startNs, durationNs)
        let width = max(axis.x(endNs) - x, minWidth)
        let times =
            " data-t0=\"\(TimeAxis.seconds(startNs))\" data-t1=\"\(TimeAxis.seconds(endNs))\" data-min=\"\(SVG.number(minWidth))\""
        return SVG.rect(
            x: x, y: y, width: width, height: plotHeight - y, className: className, attributes: attributes + times,
            title: title)
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
            TimeAxis.chartOpening(
                className: "timeline", width: Self.width, height: height, plotLeft: Self.plotLeft,
                plotRight: Self.plotRight, top: Self.top, plotHeight: Self.plotHeight, label: "loop latency timeline")
        ]
        parts += axis.gridSVG(left: Self.plotLeft, top: Self.top, height: Self.plotHeight)
        parts.append(
            SVG.text(
                DurationText.format(nanoseconds: maxNs), x: Self.plotLeft - 6, y: Self.top + 12, className: "tick",
                anchor: "end"))
        parts.append(
            SVG.text("0", x: Self.plotLeft - 6, y: Self.top + Self.plotHeight, className: "tick", anchor: "end"))
        parts.append(axis.plotOpening(left: Self.plotLeft, top: Self.top, height: Self.plotHeight))
        parts.append(plot)
        parts.append("</svg></svg>")
        return parts.joined(separator: "\n")
    }
}
