import Foundation

/// A worker thread that burns CPU while the main loop stays idle.
struct CPUBurner: Sendable {
    func run(seconds: Double, then done: @escaping @Sendable () -> Void) {
        let worker = Thread {
            // Named from inside: Foundation on Linux names the kernel thread only this way.
            nameCurrentThread("cpu-burner")
            let until = monotonicNs() + UInt64(seconds * 1e9)
            var x: UInt64 = 1
            // The clock is read once every 100 rounds, so that a stack sample of this thread all but
            // always lands in spinHashRound (with a read every round, about 1 in 200 landed in the
            // clock read instead).
            while monotonicNs() < until {
                for _ in 0..<100 { x = spinHashRound(x) }
            }
            announce("burned \(x % 10)")
        }
        worker.start()
        IdleLoop().run(seconds: seconds + 0.1, then: done)
    }
}

@inline(never)
func spinHashRound(_ value: UInt64) -> UInt64 {
    var x = value
    for _ in 0..<1000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
    return x
}
