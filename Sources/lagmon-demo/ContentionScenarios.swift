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
            Thread.current.name = "cache-writer"
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

/// The main thread blocks reading a pipe that a worker writes to after 250 ms.
final class SlowPipeRead: @unchecked Sendable {
    static let delayNs: UInt64 = 250_000_000
    private let log: TruthLog

    init(log: TruthLog) {
        self.log = log
    }

    func run(then done: @escaping @Sendable () -> Void) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { fatalError("pipe failed") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = Thread {
            Thread.current.name = "slow-server"
            let until = monotonicNs() + Self.delayNs
            while monotonicNs() < until { usleep(1_000) }
            var byte: UInt8 = 42
            _ = write(writeEnd, &byte, 1)
            close(writeEnd)
        }
        writer.start()
        performOnMainLoop { [self] in
            let byte = log.stall("readThumbnail") { readThumbnail(from: readEnd) }
            close(readEnd)
            announce("read \(byte) from the pipe")
            performOnMainLoop(done)
        }
    }

    @inline(never)
    func readThumbnail(from fd: Int32) -> UInt8 {
        var byte: UInt8 = 0
        while read(fd, &byte, 1) < 0 && errno == EINTR {}
        return byte
    }
}
