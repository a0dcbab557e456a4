import CoreFoundation
import Foundation

/// The main thread waits for a lock that a worker holds for 300 ms.
final class LockContention: @unchecked Sendable {
    static let holdNs: UInt64 = 300_000_000
    private let log: TruthLog
    private let lock = NSLock()

    init(log: TruthLog) {
        self.log = log
    }

    func run(then done: @escaping @Sendable () -> Void) {
        let holding = DispatchSemaphore(value: 0)
        let worker = Thread { [self] in
            nameCurrentThread("cache-writer")
            lock.lock()
            holding.signal()
            let until = monotonicNs() + Self.holdNs
            while monotonicNs() < until { usleep(1_000) }
            lock.unlock()
        }
        worker.start()
        holding.wait()
        performOnMainLoop { [self] in
            log.stall("waitForThumbnailLock") { waitForThumbnailLock() }
            announce("lock acquired")
            performOnMainLoop(done)
        }
    }

    @inline(never)
    func waitForThumbnailLock() {
        lock.lock()
        lock.unlock()
    }
}
