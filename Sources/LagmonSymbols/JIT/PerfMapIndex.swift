/// The entries of a `PerfMap` sorted for lookup by address. Where entries overlap (a runtime
/// reused memory for new code), the one written last wins, as perf decides.
public struct PerfMapIndex: Sendable {
    private struct Slot {
        var start: UInt64
        var end: UInt64
        /// The entry's position in the file: later wins.
        var order: Int
    }

    private let slots: [Slot]
    private let names: [String]
    /// How far back from the last start ≤ address overlapping entries are searched.
    static let overlapSearch = 64

    /// An index over `entries` (in file order).
    public init(_ entries: [PerfMap.Entry]) {
        names = entries.map(\.name)
        slots = entries.indices.map {
            Slot(start: entries[$0].start, end: entries[$0].start + entries[$0].size, order: $0)
        }
        .sorted { ($0.start, $0.order) < ($1.start, $1.order) }
    }

    /// Whether the map has no entries.
    public var isEmpty: Bool { slots.isEmpty }

    /// The name of the function holding `address`; nil when no entry does.
    public func name(at address: UInt64) -> String? {
        // The first slot starting after `address`.
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        var best: Slot?
        var index = low - 1
        while index >= 0 && low - index <= Self.overlapSearch {
            let slot = slots[index]
            if address < slot.end, best.map({ slot.order > $0.order }) ?? true { best = slot }
            index -= 1
        }
        return best.map { names[$0.order] }
    }
}
