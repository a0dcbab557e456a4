import CoreFoundation
import Foundation

/// Scenarios for lagmon's fault handling: a crash and a hang in the middle of a stall.
struct FaultScenarios: Sendable {
    let store: ImageStore

    /// Stalls for 200 ms in decodeImage, then crashes with SIGSEGV while still stalled, saying
    /// how long after it began (`crashing N ns in`: on a loaded machine the file work around the
    /// decode takes longer).
    func crashDuringStall() {
        let start = monotonicNs()
        let data = (try? Data(contentsOf: store.url(row: 0))) ?? Data()
        _ = ImageDecoder.decodeImage(data, row: 0, budgetNs: 200_000_000)
        store.remove()
        announce("crashing \(monotonicNs() - start) ns in")
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
