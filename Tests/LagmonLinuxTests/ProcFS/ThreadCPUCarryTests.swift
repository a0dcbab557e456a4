import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

@testable import LagmonLinux

/// The per-thread CPU reader reads only the threads that ran at the pass before and carries
/// the others over when the process's CPU clock proves them unchanged; a carried thread that
/// wakes and burns CPU is still counted to the nanosecond's worth of its own clock.
@Suite(.serialized)
struct ThreadCPUCarryTests {
    /// 50 Python threads block on an event; one more waits for a line on stdin, then burns 30 ms of
    /// its own CPU time (its thread clock), prints it and blocks again.
    static let script = """
        import sys, threading, time
        go, done = threading.Event(), threading.Event()
        def burn():
            go.wait()
            before = time.thread_time_ns()
            while time.thread_time_ns() - before < 30_000_000:
                pass
            after = time.thread_time_ns()
            print(f"burned tid={threading.get_native_id()} ns={after - before}", flush=True)
            done.set()
            threading.Event().wait()
        for _ in range(50):
            threading.Thread(target=threading.Event().wait, daemon=True).start()
        threading.Thread(target=burn, daemon=True).start()
        print("ready", flush=True)
        sys.stdin.readline()
        go.set()
        done.wait()
        sys.stdin.readline()
        """

    @Test func idleThreadsAreCarriedAndOneThatWakesIsCountedExactly() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            // SIGKILL: the test process may have SIGTERM blocked, and the child inherits that.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let pid = process.processIdentifier
        #expect(Self.line(output) == "ready")
        let threads = ProcFS.taskIDs(pid: pid).count
        #expect(threads >= 52)
        let tracker = ThreadCPUTracker(
            configuration: .init(ticksPerSecond: ThreadCPUSampler.cpuTicksPerSecond(pid: pid), targetStartNs: 0))
        let sampler = ThreadCPUSampler(pid: pid, tracker: tracker, intervalNs: 1_000_000)
        try sampler.start()
        // Every thread is asleep: passes after the first carry (nearly) every thread over.
        let carrying = poll(seconds: 30) { sampler.cost.threadsCarried >= UInt64(threads) * 5 }
        #expect(carrying, "\(sampler.cost)")
        input.fileHandleForWriting.write(Data("go\n".utf8))
        let burned = Self.line(output)
        let fields = Dictionary(
            uniqueKeysWithValues: burned.split(separator: " ").dropFirst().compactMap { field -> (String, Int64)? in
                let parts = field.split(separator: "=")
                guard parts.count == 2, let value = Int64(parts[1]) else { return nil }
                return (String(parts[0]), value)
            })
        let tid = try #require(fields["tid"].map { Int32($0) }, "\(burned)")
        let burnedNs = try #require(fields["ns"], "\(burned)")
        // Passes after the burn, and carrying again once the thread is asleep.
        let after = sampler.cost
        #expect(poll(seconds: 30) { sampler.cost.passes >= after.passes + 5 })
        #expect(poll(seconds: 30) { sampler.cost.threadsCarried >= after.threadsCarried + UInt64(threads) * 3 })
        let reports = sampler.stop().reports()
        let burner = try #require(reports.first { $0.tid == tid })
        // Between its first reading (asleep) and its last (asleep again) the thread used the 30 ms
        // its own clock measured, plus the little it ran around that (waking, printing).
        #expect(Int64(burner.cpu.totalNs) >= burnedNs)
        #expect(Int64(burner.cpu.totalNs) <= burnedNs + 5_000_000, "\(burner.cpu.totalNs) vs \(burnedNs)")
        // Every pass accounts for every thread, read or carried.
        // (How many passes read every thread depends on the load: while the thread burns, and until
        // a full pass finds the clock still, each does; `carrying` above is what shows the carry.)
        #expect(sampler.cost.threadsRead + sampler.cost.threadsCarried == sampler.cost.passes * UInt64(threads))
    }

    /// One line of the child's output, without its newline (at most 256 bytes, read byte by byte so
    /// nothing after it is consumed).
    static func line(_ pipe: Pipe) -> String {
        var bytes: [UInt8] = []
        while bytes.count < 256 {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first, first != UInt8(ascii: "\n") else { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
