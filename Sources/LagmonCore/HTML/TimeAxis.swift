/// Maps nanoseconds since the program started onto a chart's horizontal extent, and labels it
/// with round ticks (`0s`, `0.5s`, `1s` …).
public struct TimeAxis: Sendable, Equatable {
    /// The time shown at the right edge (at least 1 ns).
    public var spanNs: UInt64
    /// Width of the plot, in SVG units.
    public var width: Double

    public init(spanNs: UInt64, width: Double) {
        self.spanNs = max(spanNs, 1)
        self.width = width
    }

    /// The horizontal position of `ns`.
    public func x(_ ns: UInt64) -> Double { Double(min(ns, spanNs)) / Double(spanNs) * width }

    /// Round tick times, at most about `count` of them, starting at 0.
    public func ticks(count: Int = 10) -> [UInt64] {
        let raw = Double(spanNs) / Double(max(count, 1))
        var step = 1.0
        while step * 10 <= raw { step *= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where step * factor >= raw {
            step *= factor
            break
        }
        let stepNs = UInt64(max(step, 1))
        return stride(from: UInt64(0), through: spanNs, by: Int(clamping: stepNs)).map { $0 }
    }

    /// An instant's label: `+1.234s`, to the millisecond.
    public static func instant(_ ns: UInt64) -> String {
        "+" + DurationText.fixed(Double(ns) / 1e9, digits: 3) + "s"
    }

    /// A time chart's vertical grid: a line and a label per tick, for a plot `height` tall whose
    /// top-left corner is at (`left`, `top`), in one `<g class="axis">` the page's script redraws
    /// for the zoomed range. Labels at the plot's edges are aligned to stay inside it.
    func gridSVG(left: Double, top: Double, height: Double) -> [String] {
        let ticks = ticks().flatMap { tick in
            let x = left + self.x(tick)
            let anchor = self.x(tick) < 20 ? "start" : (width - self.x(tick) < 20 ? "end" : "middle")
            return [
                SVG.line(x1: x, y1: top, x2: x, y2: top + height + 4, className: "grid"),
                SVG.text(Self.label(tick), x: x, y: top + height + 18, className: "tick", anchor: anchor),
            ]
        }
        return ["<g class=\"axis\">"] + ticks + ["</g>"]
    }

    /// An instant in seconds with nanosecond digits, for the page's script (`data-t0`).
    static func seconds(_ ns: UInt64) -> String {
        "\(ns / 1_000_000_000).\(String(String(ns % 1_000_000_000 + 1_000_000_000).dropFirst()))"
    }

    /// The opening tag of a time chart drawn `width` × `height` units, with the geometry the
    /// page's script needs to lay it out again in CSS pixels.
    static func chartOpening(
        className: String, width: Double, height: Double, plotLeft: Double, plotRight: Double, top: Double,
        plotHeight: Double, label: String
    ) -> String {
        "<svg class=\"chart time-chart \(className)\" viewBox=\"0 0 \(SVG.number(width)) \(SVG.number(height))\" data-plot-left=\"\(SVG.number(plotLeft))\" data-plot-right=\"\(SVG.number(plotRight))\" data-top=\"\(SVG.number(top))\" data-plot-height=\"\(SVG.number(plotHeight))\" role=\"img\" aria-label=\"\(label)\">"
    }

    /// The opening tag of the plot: a nested `<svg>` that clips what lies outside the shown
    /// range. It has no viewBox: one unit is one pixel, so nothing is stretched when it zooms.
    func plotOpening(left: Double, top: Double, height: Double) -> String {
        "<svg class=\"plot\" x=\"\(SVG.number(left))\" y=\"\(SVG.number(top))\" width=\"\(SVG.number(width))\" height=\"\(SVG.number(height))\">"
    }

    /// A tick's label: seconds with as few decimals as the step needs.
    public static func label(_ ns: UInt64) -> String {
        let seconds = Double(ns) / 1e9
        for digits in 0...6 {
            let text = DurationText.fixed(seconds, digits: digits)
            if abs((Double(text) ?? 0) - seconds) < 1e-9 { return text + "s" }
        }
        return DurationText.fixed(seconds, digits: 6) + "s"
    }
}
