/// The gate's lines on stderr: one per check (unless only the verdict is wanted), then the
/// verdict line, which is always the last line lagmon prints.
public struct GateTextWriter: GateWriter {
    /// Colours, or none.
    public var style: TerminalStyle
    /// Print the verdict line only (`--quiet`).
    public var verdictOnly: Bool

    public init(style: TerminalStyle, verdictOnly: Bool = false) {
        self.style = style
        self.verdictOnly = verdictOnly
    }

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        Array(lines(verdict).map { "lagmon: \($0)\n" }.joined().utf8)
    }

    /// The lines, without the `lagmon: ` prefix.
    public func lines(_ verdict: GateVerdict) -> [String] {
        var lines: [String] = []
        if !verdictOnly && !verdict.checks.isEmpty {
            lines.append("\(verdict.title):")
            lines += verdict.checks.map(line)
        }
        let text = verdict.line
        lines.append(verdict.passed ? style.green(text) : style.bold(style.red(text)))
        return lines
    }

    private func line(_ check: GateCheck) -> String {
        let label: String
        switch (check.passed, check.severity) {
        case (_, .info): label = style.dim("info")
        case (true, _): label = style.green("pass")
        case (false, .error): label = style.red("FAIL")
        case (false, .warning): label = style.yellow("warn")
        }
        // A budget's name already ends with its limit (`stall.max < 250ms`); a diff metric's does not.
        let named = check.name.filter { !$0.isWhitespace }.hasSuffix(check.limit)
        let limit = named ? "" : style.dim(" (limit \(check.limit))")
        return "  \(label) \(check.name): \(check.measured)\(limit)"
    }
}
