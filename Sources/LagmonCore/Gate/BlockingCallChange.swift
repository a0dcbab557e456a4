/// A StrictMode blocking call (a libc call at one call site, over all loop threads) that
/// appeared, grew or disappeared between a baseline and a current report (`lagmon diff`).
public struct BlockingCallChange: Sendable, Equatable {
    /// What happened to it.
    public enum Kind: String, Sendable {
        /// Only in the current report.
        case new
        /// In both, with more calls or more time now.
        case grown
        /// Only in the baseline.
        case gone
    }

    /// One call at one site, summed over threads and processes.
    public struct Calls: Sendable, Equatable {
        /// The libc call (`pread`).
        public var call: String
        /// The call site, for people (`load_index (app.c:12)`).
        public var site: String
        /// Calls, and the time in them.
        public var count: UInt64
        public var totalNs: UInt64

        public init(call: String, site: String, count: UInt64, totalNs: UInt64) {
            self.call = call
            self.site = site
            self.count = count
            self.totalNs = totalNs
        }
    }

    /// What happened.
    public var kind: Kind
    /// The calls in the baseline (absent when new) and now (absent when gone).
    public var baseline: Calls?
    public var current: Calls?

    public init(kind: Kind, baseline: Calls?, current: Calls?) {
        self.kind = kind
        self.baseline = baseline
        self.current = current
    }

    /// `pread at load_index (app.c:12)`.
    public var name: String {
        guard let calls = current ?? baseline else { return "" }
        return "\(calls.call) at \(QuotedText.printable(calls.site, limit: 100))"
    }

    /// `2 calls, 4ms → 12 calls, 30ms`.
    public var change: String {
        func text(_ calls: Calls?) -> String {
            guard let calls else { return "none" }
            return
                "\(calls.count) \(calls.count == 1 ? "call" : "calls"), \(DurationText.format(nanoseconds: calls.totalNs))"
        }
        return "\(text(baseline)) → \(text(current))"
    }

    /// The gate's view: shown for context, never failing (`--max-regression strict.count=…`
    /// gates the totals).
    public var check: GateCheck {
        GateCheck(
            name: "\(kind.rawValue) blocking call: \(name)", severity: .info, passed: true, measured: change, limit: "",
            message: "\(kind.rawValue) blocking call \(name) on a loop thread (\(change))")
    }

    /// The changes from `baseline`'s blocking calls to `current`'s: new, grown (more calls, or
    /// more time by at least `minChangeNs`), gone; each by most time first.
    public static func changes(
        _ baseline: [BlockingCallReport], _ current: [BlockingCallReport], minChangeNs: UInt64
    ) -> [BlockingCallChange] {
        let before = summed(baseline)
        let now = summed(current)
        let order = { (calls: Calls) in (calls.totalNs, calls.count) }
        let new = now.values.filter { before[key($0)] == nil }.sorted { order($0) > order($1) }
        let grown = now.values.compactMap { calls -> (Calls, Calls)? in
            guard let old = before[key(calls)],
                calls.count > old.count || saturatingSubtract(calls.totalNs, old.totalNs) >= max(minChangeNs, 1)
            else { return nil }
            return (old, calls)
        }.sorted { order($0.1) > order($1.1) }
        let gone = before.values.filter { now[key($0)] == nil }.sorted { order($0) > order($1) }
        return new.map { BlockingCallChange(kind: .new, baseline: nil, current: $0) }
            + grown.map { BlockingCallChange(kind: .grown, baseline: $0.0, current: $0.1) }
            + gone.map { BlockingCallChange(kind: .gone, baseline: $0, current: nil) }
    }

    private static func key(_ calls: Calls) -> String { calls.call + "\u{0}" + calls.site }

    private static func summed(_ reports: [BlockingCallReport]) -> [String: Calls] {
        var sums: [String: Calls] = [:]
        for report in reports {
            let calls = Calls(
                call: report.call, site: report.site.displayName, count: report.count, totalNs: report.totalNs)
            sums[key(calls), default: Calls(call: calls.call, site: calls.site, count: 0, totalNs: 0)].count &+=
                calls.count
            sums[key(calls)]?.totalNs &+= calls.totalNs
        }
        return sums
    }
}
