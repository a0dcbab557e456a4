import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

@testable import LagmonLinux

/// A thread whose process is SIGKILLed while the tracer holds it stopped (the process called
/// exit_group while lagmon sampled one of its threads) leaves that stop without the tracer: it
/// is still the tracer's tracee, and once it exits a zombie only the tracer can reap, which holds
/// its whole process back from exiting. Before, the tracer counted it as detached and forgot it:
/// the Swift concurrency fixture's pool thread stayed a traced zombie and `lagmon run` waited for
/// its target for ever.
struct ThreadTracerTests {
    static let python = "/usr/bin/python3"
    static let script = """
        import threading, time
        def worker():
            print("tid", threading.get_native_id(), flush=True)
            while True:
                time.sleep(1)
        threading.Thread(target=worker).start()
        """

    @Test func aThreadKilledWhileStoppedIsReapedSoItsProcessCanFinishExiting() throws {
        let (pid, tid) = try Self.spawnTwoThreads()
        var reaped = false
        defer {
            // Never a blocking wait: without the fix the process is never reapable.
            if !reaped {
                kill(pid, SIGKILL)
                _ = poll(seconds: 5) {
                    var status: Int32 = 0
                    return waitpid(pid, &status, WNOHANG) != 0
                }
            }
        }
        let tracer = ThreadTracer(tid: tid)
        try tracer.seize()
        _ = try tracer.whileStopped {
            // The kill wakes the stopped thread; it exits (a zombie) while still traced.
            kill(pid, SIGKILL)
            _ = poll(seconds: 30) { ProcFS.taskStat(pid: pid, tid: tid)?.state == .zombie }
        }
        // What the sampler does while a tracer is attached: service it (every 2 ms).
        _ = poll(seconds: 30) {
            try? tracer.serviceStops()
            return !tracer.attached
        }
        // The process can now be reaped by its parent (this test).
        _ = poll(seconds: 30) {
            var status: Int32 = 0
            reaped = waitpid(pid, &status, WNOHANG) == pid
            return reaped
        }
        #expect(reaped, "the killed process stayed unreapable: its traced zombie thread was never reaped")
    }

    /// python3 with a second thread asleep; its pid and that thread's tid.
    static func spawnTwoThreads() throws -> (pid_t, pid_t) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        var pid = pid_t()
        var argv: [UnsafeMutablePointer<CChar>?] = [Self.python, "-c", Self.script].map {
            (text: String) -> UnsafeMutablePointer<CChar>? in strdup(text)
        }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        let result = posix_spawn(&pid, python, &actions, nil, argv, environ)
        close(ends[1])
        defer { close(ends[0]) }
        guard result == 0 else { throw SystemError("posix_spawn", code: result) }
        var text = ""
        var byte: UInt8 = 0
        while !text.hasSuffix("\n") && read(ends[0], &byte, 1) == 1 { text.append(Character(UnicodeScalar(byte))) }
        guard let tid = Int32(text.dropFirst(4).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SystemError("python3 said \(text)")
        }
        return (pid, tid)
    }
}
