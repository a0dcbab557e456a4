import Foundation

/// Records, for tests and benchmarks, each stall the demo injects: what, when and how long,
/// measured on CLOCK_MONOTONIC around the blocking call.
final class TruthLog: @unchecked Sendable {
    struct Entry: Codable {
        var function: String
        var startMonotonicNs: UInt64
        var durationNs: UInt64
    }

    private let path: String?
    private var entries: [Entry] = []

    init(path: String?) {
        self.path = path
    }

    /// Runs `body` and records it as one injected stall.
    func stall<T>(_ function: String, _ body: () throws -> T) rethrows -> T {
        let start = monotonicNs()
        let result = try body()
        entries.append(Entry(function: function, startMonotonicNs: start, durationNs: monotonicNs() - start))
        return result
    }

    /// Writes the entries (called before a clean exit).
    func save() {
        guard let path else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(entries) { try? data.write(to: URL(fileURLWithPath: path)) }
    }
}
