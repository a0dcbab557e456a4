import Foundation
import Glibc
import Testing

@testable import LagmonLinux

/// The live status line's drawing thread.
@Suite(.serialized)
struct LiveStatusDisplayTests {
    /// The signal mask (SigBlk) of this process's thread named `name`, once it exists.
    static func blockedSignals(ofThreadNamed name: String) -> UInt64? {
        let deadlineNs = MonotonicClock.nowNs() + 10_000_000_000
        while MonotonicClock.nowNs() < deadlineNs {
            for tid in ProcFS.taskIDs(pid: getpid()) {
                let base = "/proc/self/task/\(tid)/"
                guard let comm = try? String(contentsOfFile: base + "comm", encoding: .utf8), comm == name + "\n",
                    let status = try? String(contentsOfFile: base + "status", encoding: .utf8),
                    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:\t") })
                else { continue }
                return UInt64(line.dropFirst("SigBlk:\t".count), radix: 16)
            }
            usleep(1_000)
        }
        return nil
    }

    @Test func theDrawingThreadBlocksEverySignalSoNoneEndsLagmonThere() throws {
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        var before = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &before)
        let display = LiveStatusDisplay(fd: devNull) { _ in "status" }
        try display.start()
        defer { display.stop() }
        let mask = try #require(Self.blockedSignals(ofThreadNamed: "lagmon-live"))
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            #expect(mask & (1 << UInt64(signal - 1)) != 0, "signal \(signal) blocked")
        }
        // The caller's own mask is left as it was.
        var after = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &after)
        for signal in 1..<Int32(65) { #expect(sigismember(&before, signal) == sigismember(&after, signal)) }
    }
}
