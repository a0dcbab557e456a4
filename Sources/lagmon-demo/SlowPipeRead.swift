import Foundation

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
            nameCurrentThread("slow-server")
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
