import Foundation

/// Many short stalls, back to back (a timer that is always due), for scale tests: each one is a
/// separate trip through the loop.
struct ManyStalls: Sendable {
    let count: Int
    let lengthNs: UInt64

    func run(then done: @escaping @Sendable () -> Void) {
        announce("\(count) stalls of \(Double(lengthNs) / 1e6)ms")
        final class Counter: @unchecked Sendable { var value = 0 }
        let counter = Counter()
        let data = Data(count: 16_384)
        _ = Timer.scheduledTimer(withTimeInterval: 0.0005, repeats: true) { timer in
            guard counter.value < count else {
                timer.invalidate()
                done()
                return
            }
            counter.value += 1
            _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: lengthNs)
        }
    }
}
