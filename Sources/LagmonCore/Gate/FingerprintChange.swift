/// A stall fingerprint (the code a group of stalls ran in) that appeared, grew or disappeared
/// between a baseline and a current report.
public struct FingerprintChange: Sendable, Equatable {
    /// What happened to it.
    public enum Kind: String, Sendable {
        /// Only in the current report: new code stalls.
        case new
        /// In both, with more total stall time now.
        case grown
        /// Only in the baseline.
        case gone
    }

    /// What happened.
    public var kind: Kind
    /// The group in the baseline (absent when new).
    public var baseline: FingerprintReport?
    /// The group in the current report (absent when gone).
    public var current: FingerprintReport?

    public init(kind: Kind, baseline: FingerprintReport?, current: FingerprintReport?) {
        self.kind = kind
        self.baseline = baseline
        self.current = current
    }

    /// The fingerprint's id.
    public var id: String { current?.id ?? baseline?.id ?? "" }

    /// Its innermost frame, `module`symbol`, for people.
    public var frame: String { QuotedText.printable((current ?? baseline)?.frames.first ?? id, limit: 100) }

    /// `2 stalls, 450ms → 6 stalls, 1.2s`.
    public var change: String {
        func text(_ group: FingerprintReport?) -> String {
            guard let group else { return "none" }
            return
                "\(group.count) \(group.count == 1 ? "stall" : "stalls"), \(DurationText.format(nanoseconds: group.totalNs))"
        }
        return "\(text(baseline)) → \(text(current))"
    }

    /// The gate's view: a new fingerprint fails when `gated`; growth and disappearance inform.
    public func check(gated: Bool) -> GateCheck {
        let name = "\(kind.rawValue) stall: \(frame)"
        let failing = kind == .new && gated
        return GateCheck(
            name: name, severity: failing ? .error : .info, passed: !failing, measured: change,
            limit: failing ? "none new" : "",
            message: "\(kind.rawValue) stall fingerprint \(id) in \(frame) (\(change))")
    }
}
