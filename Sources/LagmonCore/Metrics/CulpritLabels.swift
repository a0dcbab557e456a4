/// Bounds the `culprit` label values of `lagmon_stall_culprit_seconds_total`, as stalls are
/// counted while a session runs: a culprit gets a series of its own when it is seen while fewer
/// than `maxNamed` have one (and `admit` can name the busiest first, when all are known at
/// once); once given, a series stays (a counter never moves to another label). Every other
/// culprit counts as `other`, a stall without one (no stack samples) as `none`. So a target
/// with thousands of stalling functions exposes at most `maxNamed + 2` series.
public struct CulpritLabels: Sendable {
    /// The label value of culprits without a series of their own.
    public static let other = "other"
    /// The label value of stalls without a culprit.
    public static let none = "none"
    /// Culprit names are cut at this many characters (a C++ or Swift signature can be long).
    public static let maxNameLength = 120
    /// Culprits with a series of their own, at most.
    public let maxNamed: Int
    /// Names given a series, in the order they got one.
    public private(set) var named: [String] = []

    public init(maxNamed: Int = 20) {
        self.maxNamed = maxNamed
    }

    /// The label value for a stall whose culprit is `culprit` (a function name; nil: none).
    public mutating func label(for culprit: String?) -> String {
        guard let culprit else { return Self.none }
        let name = String(culprit.prefix(Self.maxNameLength))
        if named.contains(name) { return name }
        guard named.count < maxNamed, name != Self.other, name != Self.none else { return Self.other }
        named.append(name)
        return name
    }

    /// Gives `culprits` (busiest first) series while there is room: a saved report's culprits
    /// are all known before they are counted.
    public mutating func admit(_ culprits: [String]) {
        for culprit in culprits { _ = label(for: culprit) }
    }
}
