/// Loops shown together in the summary and the HTML page: the event loops of one SwiftNIO
/// `MultiThreadedEventLoopGroup` (threads NIO names `NIO-ELT-<group>-#<n>`, or
/// `NIO-SGLTN-<group>-#<n>` in the `.singleton` group that Hummingbird and Vapor use by default)
/// and the threads of Swift's cooperative pool or tokio's workers. Every other loop is a group of its own. The JSON report keeps one
/// entry per loop.
public struct LoopGroup: Sendable, Equatable {
    /// `NIO-ELT-0-#*`, `Swift cooperative pool`, `tokio workers`, or nil for a single loop shown as itself.
    public var name: String?
    /// The loops, in report order.
    public var loops: [LoopReport]

    /// `loops` grouped, each group where its first loop was.
    public static func groups(_ loops: [LoopReport]) -> [LoopGroup] {
        var groups: [LoopGroup] = []
        for loop in loops {
            let name = groupName(loop)
            if let name, let index = groups.firstIndex(where: { $0.name == name && $0.loops[0].pid == loop.pid }) {
                groups[index].loops.append(loop)
            } else {
                groups.append(LoopGroup(name: name, loops: [loop]))
            }
        }
        return groups
    }

    /// The group a loop belongs to: its NIO event loop group, the cooperative pool, or none.
    public static func groupName(_ loop: LoopReport) -> String? {
        if loop.observer == LoopObserver.swiftPool { return "Swift cooperative pool" }
        if loop.observer == LoopObserver.tokioWorker { return "tokio workers" }
        let name = Array(loop.thread.name)
        let nioPrefixes = ["NIO-ELT-", "NIO-SGLTN-"]
        guard nioPrefixes.contains(where: { name.starts(with: $0) }), let hash = name.lastIndex(of: "#"),
            name[hash - 1] == "-", hash + 1 < name.count, name[(hash + 1)...].allSatisfy(\.isNumber)
        else { return nil }
        return String(name[...hash]) + "*"
    }

    /// One line for a group of several loops: the members, iterations, busy share, the longest
    /// busy period and stalls, summed or taken over the members.
    public var summary: String {
        // The counts are the channel's (the target can write it): sums saturate.
        let iterations = loops.map(\.iterations).reduce(0, saturatingAdd)
        let busyNs = loops.map(\.busyNs).reduce(0, saturatingAdd)
        let observedNs = loops.map(\.observedNs).reduce(0, saturatingAdd)
        let busy = DurationText.fixed(observedNs == 0 ? 0 : Double(busyNs) / Double(observedNs) * 100, digits: 1)
        let maxNs = loops.map(\.latency.maxNs).max() ?? 0
        let stalls = loops.reduce(0) { $0 + $1.stallCount }
        let members = Self.poolObservers.contains(loops[0].observer) ? "threads" : "event loops"
        let tids = loops.map(\.thread.tid).sorted().map(String.init).joined(separator: ", ")
        return
            "\(name ?? "") (\(loops.count) \(members): threads \(tids)): \(iterations) iterations, busy \(busy)% · longest busy period \(DurationText.format(nanoseconds: maxNs)) · \(stalls) \(stalls == 1 ? "stall" : "stalls")"
    }

    /// Loops that are the threads of a pool, not event loops of their own.
    static let poolObservers: Set<String> = [LoopObserver.swiftPool, LoopObserver.tokioWorker]
}
