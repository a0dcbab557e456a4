/// Stalls drawn as one flame graph: the sampled stalls of one fingerprint (they ran the same
/// code), or a sampled stall without a fingerprint on its own. Their call trees merge, so six
/// stalls in one function are one graph with their count, not six alike.
struct StallFlameGroup {
    /// The stalls, in order of start.
    var stalls: [StallReport]

    /// The groups of `stalls` (those with a call tree), most stall time first (then the
    /// earliest first stall).
    static func groups(_ stalls: [StallReport]) -> [StallFlameGroup] {
        var order: [String] = []
        var members: [String: [StallReport]] = [:]
        for stall in stalls where stall.callTree != nil {
            let key = stall.fingerprint ?? "stall-\(stall.id)"
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(stall)
        }
        return order.compactMap { members[$0].map(StallFlameGroup.init) }
            .sorted { a, b in (b.totalNs, a.stalls[0].id) < (a.totalNs, b.stalls[0].id) }
    }

    /// The stalls' summed duration.
    var totalNs: UInt64 { stalls.reduce(0) { saturatingAdd($0, $1.durationNs) } }

    /// `6 stalls, 140ms–260ms` (`1 stall, 221ms`).
    var summary: String {
        let durations = stalls.map(\.durationNs)
        let shortest = DurationText.format(nanoseconds: durations.min() ?? 0)
        let longest = DurationText.format(nanoseconds: durations.max() ?? 0)
        let range = shortest == longest ? longest : "\(shortest)–\(longest)"
        return "\(stalls.count) stall\(stalls.count == 1 ? "" : "s"), \(range)"
    }

    /// The stalls' call trees merged under a root named `summary`.
    var tree: CallTreeNode { CallTreeNode.merged(stalls.compactMap(\.callTree), rootName: summary) }

    /// The diagnosis kinds with their counts, most first: `cpu ×4, runqueue ×2` (`cpu` alone).
    var kinds: String {
        var counts: [String: Int] = [:]
        for stall in stalls { counts[stall.diagnosis.kind.rawValue, default: 0] += 1 }
        if counts.count == 1, let kind = counts.keys.first { return kind }
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) ×\($0.value)" }
            .joined(separator: ", ")
    }

    /// The culprit of the most stalls (then the first by name), as shown.
    var culprit: String? {
        var counts: [String: Int] = [:]
        for stall in stalls { if let culprit = stall.culprit { counts[culprit.displayName, default: 0] += 1 } }
        return counts.min { ($1.value, $0.key) < ($0.value, $1.key) }?.key
    }
}
