/// Small helpers to write SVG (and HTML) text by hand: escaping, fixed-precision numbers and
/// the few elements the charts use. Everything is plain string building, so the same input
/// always gives the same bytes.
public enum SVG {
    /// `text` safe inside an element or a double-quoted attribute.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            // Control characters are not allowed in XML 1.0 text; names come from the program.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A fraction (0…1) as a percentage with at most four decimals: `12.3456%`.
    public static func percent(_ fraction: Double) -> String {
        guard fraction.isFinite else { return "0%" }
        var text = DurationText.fixed(fraction * 100, digits: 4)
        while text.hasSuffix("0") && text.contains(".") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return (text == "-0" ? "0" : text) + "%"
    }

    /// A coordinate with at most two decimals, without trailing zeros.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        var text = DurationText.fixed(value, digits: 2)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A rectangle with optional class, extra attributes and hover title.
    public static func rect(
        x: Double, y: Double, width: Double, height: Double, className: String? = nil, attributes: String = "",
        title: String? = nil
    ) -> String {
        let classText = className.map { " class=\"\($0)\"" } ?? ""
        let geometry = "x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(width))\" height=\"\(number(height))\""
        guard let title else { return "<rect\(classText) \(geometry)\(attributes)/>" }
        return "<rect\(classText) \(geometry)\(attributes)><title>\(escape(title))</title></rect>"
    }

    /// A text element; `anchor` is `start`, `middle` or `end`.
    public static func text(_ content: String, x: Double, y: Double, className: String? = nil, anchor: String = "start")
        -> String
    {
        let classText = className.map { " class=\"\($0)\"" } ?? ""
        let anchorText = anchor == "start" ? "" : " text-anchor=\"\(anchor)\""
        return "<text\(classText) x=\"\(number(x))\" y=\"\(number(y))\"\(anchorText)>\(escape(content))</text>"
    }

    /// A straight line.
    public static func line(x1: Double, y1: Double, x2: Double, y2: Double, className: String) -> String {
        "<line class=\"\(className)\" x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\"/>"
    }

    /// A polyline through `points`, with optional extra attributes.
    public static func polyline(
        _ points: [(x: Double, y: Double)], className: String, style: String = "", attributes: String = ""
    ) -> String {
        let list = points.map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
        let styleText = style.isEmpty ? "" : " style=\"\(style)\""
        return "<polyline class=\"\(className)\"\(styleText)\(attributes) points=\"\(list)\"/>"
    }
}
