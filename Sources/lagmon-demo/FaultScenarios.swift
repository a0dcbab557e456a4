import CoreFoundation
import Foundation

/// Scenarios for lagmon's fault handling: a crash and a hang in the middle of a stall.
struct FaultScenarios: Sendable {
    let store: ImageStore

    /// Stalls for 200 ms in decodeImage, then crashes with SIGSEGV while still stalled.
    func crashDuringStall() {
        let data = (try? Data(contentsOf: store.url(row: 0))) ?? Data()
        _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: 200_000_000)
        announce("crashing")
        store.remove()
        // A real invalid access (raise() would be caught and survived by Swift's backtracer).
        let invalid = UnsafeMutablePointer<Int>(bitPattern: 16)
        invalid?.pointee = 1
    }

    /// Stalls in decodeImage until killed, announcing when the stall is 200 ms old. Gives up
    /// after two minutes so a forgotten demo does not spin forever. The images are removed
    /// before the announcement: a reader of it may count on the thread decoding (on the CPU),
    /// not unlinking files, from then on.
    func hangUntilKilled() {
        let data = (try? Data(contentsOf: store.url(row: 0))) ?? Data()
        _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: 200_000_000)
        store.remove()
        announce("stalled 200ms")
        _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: 120_000_000_000)
        exit(3)
    }
}

/// Set by the SIGINT handler of the interruptible scenario.
nonisolated(unsafe) private var interruptions: sig_atomic_t = 0

extension FaultScenarios {
    /// Stalls in decodeImage until the first SIGINT (caught by a handler), then idles in the
    /// run loop until the second, then exits 0: a program that survives ^C mid-stall.
    func stallUntilInterrupted(then done: @escaping @Sendable () -> Void) {
        signal(SIGINT) { _ in interruptions += 1 }
        let data = (try? Data(contentsOf: store.url(row: 0))) ?? Data()
        announce("stalling until interrupted")
        let start = monotonicNs()
        var announced = false
        while interruptions == 0 {
            _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: 5_000_000)
            if !announced && monotonicNs() - start > 200_000_000 {
                announce("stalled 200ms")
                announced = true
            }
        }
        announce("interrupted")
        store.remove()
        _ = Timer.scheduledTimer(withTimeInterval: 0.01, repeats: true) { timer in
            if interruptions > 1 {
                timer.invalidate()
                done()
            }
        }
    }
}

/// A loop that only sleeps, woken by a 50 ms timer that does nothing heavy.
struct IdleLoop: Sendable {
    func run(seconds: Double, then done: @escaping @Sendable () -> Void) {
        announce("idle for \(seconds)s")
        let deadline = Date().addingTimeInterval(seconds)
        _ = Timer.scheduledTimer(withTimeInterval: 0.05, repeats: true) { timer in
            if Date() >= deadline {
                timer.invalidate()
                done()
            }
        }
    }
}

/// A worker thread that burns CPU while the main loop stays idle.
struct CPUBurner: Sendable {
    func run(seconds: Double, then done: @escaping @Sendable () -> Void) {
        let worker = Thread {
            // Named from inside: Foundation on Linux names the kernel thread only this way.
            Thread.current.name = "cpu-burner"
            let until = monotonicNs() + UInt64(seconds * 1e9)
            var x: UInt64 = 1
            while monotonicNs() < until { x = spinHashRound(x) }
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

/// Threads that only sleep, for measuring per-thread readers against many threads.
enum SleepingThreads {
    static func start(count: Int) {
        for index in 0..<count {
            let thread = Thread {
                Thread.current.name = "sleeper-\(index)"
                while true { sleep(3600) }
            }
            thread.stackSize = 64 * 1024
            thread.start()
        }
        announce("\(count) sleeping threads")
    }
}
