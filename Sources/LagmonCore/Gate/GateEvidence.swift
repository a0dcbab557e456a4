/// What a check's number is about and the culprits behind it: the worst stalls of a stall
/// budget, the busiest thread of a CPU budget, the call sites of a StrictMode budget. CI outputs
/// show it beside a failed check, so the verdict says where, not only how much.
public struct GateEvidence: Sendable, Equatable {
    /// What was measured, in one line: `6 stalls in 3 code paths`, `thread 5001 "lagmon-demo":
    /// avg 32.6%, max 88% of a core`.
    public var summary: String
    /// The culprits, worst first, at most `maxCulprits`.
    public var culprits: [GateCulprit]

    /// Culprits a check keeps: enough to see the pattern, few enough for an annotation.
    public static let maxCulprits = 3

    public init(summary: String, culprits: [GateCulprit]) {
        self.summary = summary
        self.culprits = Array(culprits.prefix(Self.maxCulprits))
    }

    /// The culprit a one-line message names and an annotation points at: the worst with a
    /// source file in the repository (`sourcePath`), else the worst with any source file, else
    /// the worst with a function.
    public var primary: GateCulprit? {
        culprits.first { $0.sourcePath != nil } ?? culprits.first { $0.file != nil }
            ?? culprits.first { $0.function != nil }
    }

    /// The evidence as plain lines (JUnit failure texts, annotation messages): the summary, then
    /// per culprit its subject and diagnosis, its place and its top frames.
    public var lines: [String] {
        var lines = [summary]
        for culprit in culprits {
            lines.append("\(culprit.subject): \(culprit.diagnosis)")
            if let place = culprit.place { lines.append("  culprit: \(place)") }
            guard !culprit.frames.isEmpty else { continue }
            lines.append("  top frames, innermost first:")
            lines += culprit.frames.map { "    " + $0 }
        }
        return lines
    }
}
