/// Stalls the summary shows as one: those with one fingerprint (the same code). Six stalls in
/// one decode function are one entry with their count and durations, not six copies of one
/// stack. A stall without a fingerprint (no stack) is a group of its own.
struct TerminalStallGroup {
    /// The stalls, in id order (at least one).
    var stalls: [StallReport]
    /// Their summed duration.
    var totalNs: UInt64

    /// The longest stall (the earliest of equals).
    var worst: StallReport {
        stalls.reduce(stalls[0]) { $1.durationNs > $0.durationNs ? $1 : $0 }
    }

    /// Whether the group is one fingerprint: stalls in the same code.
    var sharesCode: Bool { stalls[0].fingerprint != nil }

    /// `stalls` grouped: the fingerprints first, the most total stall time first (then the
    /// earliest), so the few distinct culprits lead; then the stalls without one, by id.
    static func groups(_ stalls: [StallReport]) -> [TerminalStallGroup] {
        var order: [String] = []
        var members: [String: [StallReport]] = [:]
        var alone: [TerminalStallGroup] = []
        for stall in stalls.sorted(by: { $0.id < $1.id }) {
            guard let fingerprint = stall.fingerprint else {
                alone.append(TerminalStallGroup(stalls: [stall], totalNs: stall.durationNs))
                continue
            }
            if members[fingerprint] == nil { order.append(fingerprint) }
            members[fingerprint, default: []].append(stall)
        }
        let grouped = order.compactMap { members[$0] }.map { stalls in
            TerminalStallGroup(stalls: stalls, totalNs: stalls.reduce(0) { saturatingAdd($0, $1.durationNs) })
        }
        return grouped.sorted { $0.totalNs != $1.totalNs ? $0.totalNs > $1.totalNs : $0.stalls[0].id < $1.stalls[0].id }
            + alone
    }

    /// `205ms, 231ms, 246ms` (five or fewer, by start), else `min 205ms · median 246ms · max 405ms`.
    var durations: String {
        let format = DurationText.format(nanoseconds:)
        guard stalls.count > 5 else { return stalls.map { format($0.durationNs) }.joined(separator: ", ") }
        let sorted = stalls.map(\.durationNs).sorted()
        // The lower median of an even count: a duration that occurred.
        return
            "min \(format(sorted[0])) · median \(format(sorted[(sorted.count - 1) / 2])) · max \(format(sorted[sorted.count - 1]))"
    }

    /// `#1–#6`, `#1, #3, #4`, `#2–#4, #9`: the ids with consecutive runs of three or more joined,
    /// at most eight pieces, then `…`.
    var ids: String {
        var pieces: [String] = []
        var index = 0
        let numbers = stalls.map(\.id)
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count, numbers[end + 1] == numbers[end] + 1 { end += 1 }
            if end - index >= 2 {
                pieces.append("#\(numbers[index])–#\(numbers[end])")
            } else {
                pieces += numbers[index...end].map { "#\($0)" }
            }
            index = end + 1
        }
        return pieces.count > 8 ? pieces.prefix(8).joined(separator: ", ") + ", …" : pieces.joined(separator: ", ")
    }

    /// The most common stack over the group's stalls, frames compared by function (not address),
    /// with its samples and all the group's samples; nil without stacks.
    var topStack: (stack: StackCount, samples: Int)? {
        var counts: [[FrameIdentity]: (stack: StackCount, count: Int, first: Int)] = [:]
        for stack in stalls.flatMap(\.stacks) where !stack.frames.isEmpty {
            let key = stack.frames.map(FrameIdentity.init)
            let seen = counts[key]
            counts[key] = (seen?.stack ?? stack, (seen?.count ?? 0) + stack.count, seen?.first ?? counts.count)
        }
        guard let top = counts.values.max(by: { ($0.count, $1.first) < ($1.count, $0.first) }) else { return nil }
        return (StackCount(count: top.count, frames: top.stack.frames), stalls.reduce(0) { $0 + $1.samples })
    }
}
