import LagmonCore
import Testing

/// The bound on a long busy period's samples (`lagmon attach`).
struct SampleThinningTests {
    /// Samples offered at 0, 1, 2, … are taken or not, and thinned, as the sampler does it.
    private func feed(_ offers: Int, capacity: Int) -> (kept: [Int], dropped: Int, maxHeld: Int) {
        var thinning = SampleThinning(capacity: capacity)
        var kept: [Int] = []
        var dropped = 0
        var maxHeld = 0
        for offer in 0..<offers where thinning.admitsNext() {
            kept.append(offer)
            maxHeld = max(maxHeld, kept.count)
            dropped += thinning.thin(&kept).count
        }
        return (kept, dropped, maxHeld)
    }

    @Test func aShortPeriodKeepsEverySample() {
        let fed = feed(63, capacity: 64)
        #expect(fed.kept == Array(0..<63))
        #expect(fed.dropped == 0)
    }

    @Test func aLongPeriodKeepsAtMostTheCapacitySpreadEvenlyFromItsFirst() {
        for offers in [64, 65, 1000, 100_000] {
            let fed = feed(offers, capacity: 64)
            #expect(fed.maxHeld <= 64, "\(offers) offered")
            #expect(fed.kept.count >= 32, "\(offers) offered")
            #expect(fed.kept.first == 0)
            // Evenly spaced: one step between all kept, and they reach the period's last part.
            let steps = Set(zip(fed.kept, fed.kept.dropFirst()).map { $1 - $0 })
            #expect(steps.count == 1, "\(offers) offered: steps \(steps)")
            #expect(offers - (fed.kept.last ?? 0) <= 2 * (steps.first ?? 1), "\(offers) offered")
        }
    }

    @Test func everySampleTakenIsKeptOrCountedAsDropped() {
        var thinning = SampleThinning(capacity: 8)
        var kept: [Int] = []
        var taken = 0
        var dropped = 0
        for offer in 0..<1000 where thinning.admitsNext() {
            taken += 1
            kept.append(offer)
            dropped += thinning.thin(&kept).count
        }
        #expect(kept.count + dropped == taken)
        #expect(thinning.offered == 1000)
    }
}
