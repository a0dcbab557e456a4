import Foundation
import Glibc
import LagmonTestSupport
import Testing

@testable import LagmonLinux

/// A stop of lagmon's that lands while a thread sleeps in `epoll_wait` makes the call return
/// EINTR to the program (the kernel restarts `poll` and `select` itself, not epoll). The tracer
/// restarts an interrupted epoll wait that has no timeout, as the kernel restarts `select`: the
/// program never sees the stop, and a real signal that arrives meanwhile still interrupts it.
struct InterruptedWaitRestartTests {
    /// Only an epoll wait without a timeout, on its way out with EINTR, is restarted.
    @Test func onlyAnEndlessEpollWaitThatAStopBrokeIsRestarted() {
        func registers(call: Int64, result: Int64, timeout: UInt64) -> user_regs_struct {
            var registers = user_regs_struct()
            registers.orig_rax = UInt64(bitPattern: call)
            registers.rax = UInt64(bitPattern: result)
            registers.r10 = timeout
            return registers
        }
        let endless = UInt64(bitPattern: -1)
        let eintr = -Int64(EINTR)
        for call: Int64 in [232, 281] {
            #expect(registers(call: call, result: eintr, timeout: endless).isInterruptedEndlessEpollWait)
            // The timeout is a C int: only its low 32 bits count.
            #expect(registers(call: call, result: eintr, timeout: 0xFFFF_FFFF).isInterruptedEndlessEpollWait)
            #expect(!registers(call: call, result: eintr, timeout: 100).isInterruptedEndlessEpollWait)
            #expect(!registers(call: call, result: eintr, timeout: 0).isInterruptedEndlessEpollWait)
            #expect(!registers(call: call, result: 1, timeout: endless).isInterruptedEndlessEpollWait)
            #expect(!registers(call: call, result: -514, timeout: endless).isInterruptedEndlessEpollWait)
        }
        // epoll_pwait2 takes a timespec pointer: NULL is no timeout.
        #expect(registers(call: 441, result: eintr, timeout: 0).isInterruptedEndlessEpollWait)
        #expect(!registers(call: 441, result: eintr, timeout: 0x7ffd_0000_1000).isInterruptedEndlessEpollWait)
        // Other calls, and a thread stopped in user space (orig_rax -1).
        for call: Int64 in [7, 23, 202, 270, -1] {
            #expect(!registers(call: call, result: eintr, timeout: endless).isInterruptedEndlessEpollWait, "\(call)")
        }
        let restarting = registers(call: 232, result: eintr, timeout: endless).restartingInterruptedWait
        #expect(Int64(bitPattern: restarting.rax) == -514)
        #expect(restarting.orig_rax == 232 && restarting.r10 == endless)
    }

    /// The loop fixture asleep in `epoll_wait(…, -1)` on stdin: a stop leaves it asleep, with no
    /// EINTR; a SIGUSR1 sent while it is stopped still breaks the wait once, as it would without
    /// lagmon. (Restarting the call by rewinding its instruction pointer would hide that EINTR:
    /// the handler would run and the wait go on.)
    @Test func aStoppedEpollWaitGoesOnAsleepAndARealSignalStillBreaksIt() throws {
        let fixture = try LoopFixture(["idle-until-input", "--wait", "epoll", "--count-signals"])
        defer { fixture.stop() }
        let tracer = ThreadTracer(tid: fixture.pid)
        defer { tracer.detach() }

        try fixture.waitUntilAsleepInEpoll()
        try tracer.seize()
        let (registers, _) = try tracer.whileStopped { tracer.registers() }
        let stopped = try #require(registers)
        #expect(
            stopped.isInterruptedEndlessEpollWait, "rax \(Int64(bitPattern: stopped.rax)), call \(stopped.orig_rax)")
        #expect(tracer.restartedWaits == 1)

        // Each stop detaches (the sampler seizes anew for every sample).
        #expect(!tracer.attached)
        try fixture.waitUntilAsleepInEpoll()
        try tracer.seize()
        _ = try tracer.whileStopped {
            _ = tracer.registers()
            // The fixture has one thread: the signal is its.
            return kill(fixture.pid, SIGUSR1)
        }
        #expect(tracer.restartedWaits == 2)

        fixture.send("go\n")
        let lines = fixture.readToEnd()
        #expect(lines.contains("interrupted waits=1 signals=1"), "\(lines)")
        #expect(fixture.exitStatus() == 0)
    }
}

/// `lagmon-loop-fixture` with stdin and stdout on pipes; killed and reaped by `stop()`.
private final class LoopFixture {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var reaped = false
    private var status: Int32 = 0

    init(_ arguments: [String]) throws {
        var inputEnds: [Int32] = [-1, -1]
        var outputEnds: [Int32] = [-1, -1]
        guard pipe(&inputEnds) == 0, pipe(&outputEnds) == 0 else { throw SystemError("pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 1)
        for end in inputEnds + outputEnds { posix_spawn_file_actions_addclose(&actions, end) }
        let path = Binaries.directory + "/lagmon-loop-fixture"
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(inputEnds[0])
        close(outputEnds[1])
        (input, output) = (inputEnds[1], outputEnds[0])
        guard result == 0 else { throw SystemError("posix_spawn \(path)", code: result) }
        self.pid = pid
        guard readLine()?.hasPrefix("idle pid=") == true else { throw SystemError("the fixture did not start") }
    }

    /// Waits (bounded, 30 s) until the main thread sleeps in epoll_wait: /proc's syscall file
    /// names the call (232, or 281 for epoll_pwait) and its state is S.
    func waitUntilAsleepInEpoll() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let call = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8))?.split(separator: " ")
                .first
            if (call == "232" || call == "281") && ProcFS.taskStat(pid: pid, tid: pid)?.state == .sleeping { return }
            usleep(1000)
        }
        throw SystemError("the fixture never slept in epoll_wait")
    }

    func send(_ text: String) {
        _ = text.withCString { write(input, $0, strlen($0)) }
    }

    func readLine() -> String? {
        var line = ""
        var byte: UInt8 = 0
        while read(output, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return line }
            line.append(Character(UnicodeScalar(byte)))
        }
        return line.isEmpty ? nil : line
    }

    func readToEnd() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    func exitStatus() -> Int32 {
        if !reaped {
            waitpid(pid, &status, 0)
            reaped = true
        }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    func stop() {
        if !reaped {
            kill(pid, SIGKILL)
            _ = exitStatus()
        }
        close(input)
        close(output)
    }
}
