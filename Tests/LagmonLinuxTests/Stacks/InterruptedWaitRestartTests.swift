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
    /// Only a wait the kernel does not restart, on its way out with EINTR, is restarted; a timed
    /// epoll wait with its time left.
    @Test func onlyAWaitThatAStopBrokeIsRestarted() {
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
            #expect(
                registers(call: call, result: eintr, timeout: endless).interruptedWait
                    == .epoll(timeoutMilliseconds: nil))
            // The timeout is a C int: only its low 32 bits count.
            #expect(
                registers(call: call, result: eintr, timeout: 0xFFFF_FFFF).interruptedWait
                    == .epoll(timeoutMilliseconds: nil))
            #expect(
                registers(call: call, result: eintr, timeout: 100).interruptedWait == .epoll(timeoutMilliseconds: 100))
            #expect(registers(call: call, result: eintr, timeout: 0).interruptedWait == .epoll(timeoutMilliseconds: 0))
            #expect(registers(call: call, result: 1, timeout: endless).interruptedWait == nil)
            #expect(registers(call: call, result: -514, timeout: endless).interruptedWait == nil)
        }
        // epoll_pwait2 takes a timespec pointer: NULL is no timeout.
        #expect(registers(call: 441, result: eintr, timeout: 0).interruptedWait == .epoll(timeoutMilliseconds: nil))
        #expect(
            registers(call: 441, result: eintr, timeout: 0x7ffd_0000_1000).interruptedWait
                == .epollTimespec(address: 0x7ffd_0000_1000))
        // Calls the kernel restarts itself, connect (left with its EINTR), and a thread stopped
        // in user space (orig_rax -1).
        for call: Int64 in [7, 23, 35, 42, 202, 230, 270, 271, -1] {
            #expect(registers(call: call, result: eintr, timeout: endless).interruptedWait == nil, "\(call)")
        }
        // Socket calls (EINTR only with SO_RCVTIMEO or SO_SNDTIMEO): the descriptor is the first
        // argument, only its low 32 bits count.
        var read = registers(call: 0, result: eintr, timeout: 0)
        read.rdi = 0xFFFF_FFFF_0000_0007
        #expect(read.interruptedWait == .socket(descriptor: 7, direction: .receive))
        for call: Int64 in [19, 43, 45, 47, 288, 299] {
            #expect(
                registers(call: call, result: eintr, timeout: 0).interruptedWait
                    == .socket(descriptor: 0, direction: .receive))
        }
        for call: Int64 in [1, 20, 44, 46, 307] {
            #expect(
                registers(call: call, result: eintr, timeout: 0).interruptedWait
                    == .socket(descriptor: 0, direction: .send))
        }
        #expect(registers(call: 45, result: -512, timeout: 0).interruptedWait == nil)
        // rt_sigtimedwait: its timeout is the third argument, a timespec pointer; NULL is none
        // (sigwaitinfo), which restarts as it is; a timed one restarts whole, as a socket call.
        var signalWait = registers(call: 128, result: eintr, timeout: 8)
        #expect(signalWait.interruptedWait == .signalWait(timeoutAddress: nil))
        #expect(signalWait.interruptedWait?.restartsWhole == false)
        signalWait.rdx = 0x7ffd_0000_2000
        #expect(signalWait.interruptedWait == .signalWait(timeoutAddress: 0x7ffd_0000_2000))
        #expect(signalWait.interruptedWait?.restartsWhole == true)
        #expect(registers(call: 128, result: -Int64(EAGAIN), timeout: 8).interruptedWait == nil)
        #expect(read.interruptedWait?.restartsWhole == true)
        #expect(registers(call: 232, result: eintr, timeout: 100).interruptedWait?.restartsWhole == false)
        #expect(Int64(bitPattern: read.timingOut(with: EAGAIN).rax) == -Int64(EAGAIN))
        // io_uring_enter (426): only a wait for completions (IORING_ENTER_GETEVENTS, 1, in the
        // flags, r10) is one; with IORING_ENTER_EXT_ARG (8) its argument (r8) may hold a relative
        // timeout, which restarts whole and times out with ETIME; an absolute one (ABS_TIMER,
        // 32) restarts as it is; a registered argument region (EXT_ARG_REG, 64) is left alone.
        var ringWait = registers(call: 426, result: eintr, timeout: 1)
        #expect(ringWait.interruptedWait == .ringWait(argumentAddress: nil))
        #expect(ringWait.interruptedWait?.restartsWhole == false)
        #expect(registers(call: 426, result: eintr, timeout: 0).interruptedWait == nil)
        ringWait.r8 = 0x7ffd_0000_3000
        #expect(ringWait.interruptedWait == .ringWait(argumentAddress: nil))
        ringWait.r10 = 1 | 8
        #expect(ringWait.interruptedWait == .ringWait(argumentAddress: 0x7ffd_0000_3000))
        #expect(ringWait.interruptedWait?.restartsWhole == true)
        #expect(ringWait.interruptedWait?.timeoutError == ETIME)
        #expect(signalWait.interruptedWait?.timeoutError == EAGAIN)
        ringWait.r10 = 1 | 8 | 32
        #expect(ringWait.interruptedWait == .ringWait(argumentAddress: nil))
        ringWait.r10 = 1 | 8 | 64
        #expect(ringWait.interruptedWait == nil)
        let restarting = registers(call: 232, result: eintr, timeout: endless).restarting(timeoutMilliseconds: nil)
        #expect(Int64(bitPattern: restarting.rax) == -514)
        #expect(restarting.orig_rax == 232 && restarting.r10 == endless)
        let timed = registers(call: 232, result: eintr, timeout: 200).restarting(timeoutMilliseconds: 150)
        #expect(timed.orig_rax == 232 && timed.r10 == 150)
        // epoll_pwait2's timespec pointer becomes epoll_pwait's int.
        let converted = registers(call: 441, result: eintr, timeout: 0x7ffd_0000_1000).restarting(
            timeoutMilliseconds: 7)
        #expect(converted.orig_rax == 281 && converted.r10 == 7)
    }

    /// The time left is counted from the last moment the thread was known awake, towards the
    /// same deadline at every restart of the same wait, and is spent when nothing is known.
    @Test func theTimeLeftCountsFromTheLastMomentTheThreadWasAwake() {
        let call = RestartedWait.Call(number: 232, descriptor: 5, timeoutMilliseconds: 200)
        var history = WaitHistory()
        #expect(history.deadlineNs(of: call, timeoutNs: 200_000_000, nowNs: 1_000_000_000) == nil)
        #expect(InterruptedWait.timeLeftMilliseconds(deadlineNs: nil, nowNs: 5) == 0)
        history.noteAwake(at: 1_000_000_000)
        history.noteAwake(at: 900_000_000)  // an older sighting changes nothing
        let deadline = history.deadlineNs(of: call, timeoutNs: 200_000_000, nowNs: 1_050_000_000)
        #expect(deadline == 1_200_000_000)
        #expect(InterruptedWait.timeLeftMilliseconds(deadlineNs: deadline, nowNs: 1_050_000_000) == 150)
        // Rounded up: never early by a fraction of a millisecond.
        #expect(InterruptedWait.timeLeftMilliseconds(deadlineNs: deadline, nowNs: 1_050_000_001) == 150)
        #expect(InterruptedWait.timeLeftMilliseconds(deadlineNs: deadline, nowNs: 1_300_000_000) == 0)
        // The restarted call, found again, keeps its deadline though the thread was let go since.
        let restartedCall = RestartedWait.Call(number: 232, descriptor: 5, timeoutMilliseconds: 150)
        history.restarted = RestartedWait(call: restartedCall, deadlineNs: 1_200_000_000)
        history.noteAwake(at: 1_050_000_000)
        #expect(history.deadlineNs(of: restartedCall, timeoutNs: 150_000_000, nowNs: 1_100_000_000) == 1_200_000_000)
        // Another call (or the same after its deadline) counts from the let-go.
        #expect(history.deadlineNs(of: call, timeoutNs: 200_000_000, nowNs: 1_100_000_000) == 1_250_000_000)
        #expect(history.deadlineNs(of: restartedCall, timeoutNs: 150_000_000, nowNs: 1_300_000_000) == 1_200_000_000)
        // A hostile timespec.
        #expect(InterruptedWait.timespecNanoseconds(seconds: -1, nanoseconds: 0) == nil)
        #expect(InterruptedWait.timespecNanoseconds(seconds: 0, nanoseconds: 1_000_000_000) == nil)
        #expect(InterruptedWait.timespecNanoseconds(seconds: 1, nanoseconds: 5) == 1_000_000_005)
        #expect(InterruptedWait.timespecNanoseconds(seconds: .max, nanoseconds: 0) == .max)
    }

    /// A socket call found the first time has no deadline (restarted whole: late, never early);
    /// restarted, it keeps its deadline while it is found again less than one timeout after the
    /// restart (it cannot have timed out by itself); later, the call found is a new one.
    @Test func aSocketCallKeepsItsDeadlineWithinATimeoutOfItsRestart() {
        let call = RestartedWait.Call(number: 45, descriptor: 3, timeoutMilliseconds: 50)
        let timeoutNs: UInt64 = 50_000_000
        var history = WaitHistory()
        #expect(history.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: 1) == nil)
        #expect(InterruptedWait.socketCallResumes(deadlineNs: nil, nowNs: 1))
        // Seen awake just before says only that the call started after: still no deadline.
        history.noteAwake(at: 1_000_000_000)
        #expect(history.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: 1_001_000_000) == nil)
        #expect(InterruptedWait.socketCallResumes(deadlineNs: 1_050_000_000, nowNs: 1_049_999_999))
        #expect(!InterruptedWait.socketCallResumes(deadlineNs: 1_050_000_000, nowNs: 1_050_000_000))
        // Restarted at 1.04 s and let go (runnable, it may be seen running too): later stops find
        // the same call and keep its deadline, even past it (restarted whole, counted from each
        // let-go it would never end).
        history.restarted = RestartedWait(call: call, deadlineNs: 1_050_000_000, restartedAtNs: 1_040_000_000)
        history.noteAwake(at: 1_041_000_000)
        #expect(history.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: 1_045_000_000) == 1_050_000_000)
        #expect(history.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: 1_089_999_999) == 1_050_000_000)
        // Another descriptor is another call.
        let other = RestartedWait.Call(number: 45, descriptor: 4, timeoutMilliseconds: 50)
        #expect(history.socketDeadlineNs(of: other, timeoutNs: timeoutNs, nowNs: 1_045_000_000) == nil)
        // A whole timeout after the restart, that call has ended by itself: the one found is new.
        #expect(history.socketDeadlineNs(of: call, timeoutNs: timeoutNs, nowNs: 1_090_000_000) == nil)
    }

    /// The socket timeout is read through a duplicate of the thread's own descriptor, and only
    /// from a socket: a pipe, a closed or a negative descriptor give nil.
    @Test func aSocketTimeoutIsReadOnlyFromASocket() throws {
        var pair: [Int32] = [-1, -1]
        var pipeEnds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0, pipe(&pipeEnds) == 0 else {
            throw SystemError("socketpair")
        }
        defer { (pair + pipeEnds).forEach { close($0) } }
        var timeout = timeval(tv_sec: 1, tv_usec: 250_000)
        setsockopt(pair[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The test process's own leader: its threads share one descriptor table.
        let tid = getpid()
        // The kernel keeps the timeout in jiffies and gives it back rounded up to a tick (1.252 s
        // at HZ=250; a tick is at most 10 ms).
        let read = try #require(SocketTimeout.nanoseconds(tid: tid, descriptor: pair[0], direction: .receive))
        #expect((1_250_000_000...1_260_000_000).contains(read), "\(read)")
        #expect(SocketTimeout.nanoseconds(tid: tid, descriptor: pair[0], direction: .send) == 0)
        #expect(SocketTimeout.nanoseconds(tid: tid, descriptor: pipeEnds[0], direction: .receive) == nil)
        #expect(SocketTimeout.nanoseconds(tid: tid, descriptor: -1, direction: .receive) == nil)
        #expect(SocketTimeout.nanoseconds(tid: tid, descriptor: 100_000, direction: .receive) == nil)
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
            stopped.interruptedWait == .epoll(timeoutMilliseconds: nil),
            "rax \(Int64(bitPattern: stopped.rax)), call \(stopped.orig_rax)")
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

extension InterruptedWaitRestartTests {
    /// The wait fixture asleep in `epoll_wait(…, 1500)` for a second already: a stop restarts it
    /// with the time left (a restart with the whole timeout would make it wait 2.5 s or more),
    /// and the program sees no EINTR.
    @Test(arguments: ["epoll_wait", "epoll_pwait2"])
    func aStoppedTimedEpollWaitGoesOnWithTheTimeLeft(call: String) throws {
        let startedNs = MonotonicClock.nowNs()
        let fixture = try LoopFixture(
            [call, "--rounds", "1", "--spin-ms", "0", "--wait-ms", "1500"], binary: "lagmon-wait-fixture",
            ready: "ready pid=")
        defer { fixture.stop() }
        // The fixture's 1 ms loop ticks are epoll waits too: the timed wait is the one still
        // asleep a second after the start (its own clock says how long it waited).
        try fixture.waitUntilAsleep(in: ["232", "441"])
        while MonotonicClock.nowNs() - startedNs < 1_000_000_000 { try fixture.waitUntilAsleep(in: ["232", "441"]) }
        let tracer = ThreadTracer(tid: fixture.pid)
        defer { tracer.detach() }
        var history = WaitHistory()
        history.noteAwake(at: startedNs)
        try tracer.seize()
        _ = try tracer.whileStopped(history: &history) { tracer.registers() }
        #expect(tracer.restartedWaits == 1)
        let left = try #require(tracer.lastRestartTimeoutMilliseconds)
        #expect(left <= 500, "restarted with \(left) ms")
        let lines = fixture.readToEnd()
        let summary = try #require(lines.first { $0.hasPrefix("\(call) waits=1 ") }, "\(lines)")
        let longest = try #require(summary.split(separator: " ").first { $0.hasPrefix("longest_ms=") })
        #expect((Int(longest.dropFirst("longest_ms=".count)) ?? .max) < 2500, "\(summary)")
        #expect(fixture.exitStatus() == 0)
    }

    /// A SIGUSR1 (handler without SA_RESTART) sent while lagmon holds the fixture stopped in a
    /// timed epoll wait still breaks the wait, as it would have without lagmon.
    @Test func aSignalDuringTheStopOfATimedWaitStillInterruptsIt() throws {
        let fixture = try LoopFixture(
            ["epoll_wait", "--rounds", "1", "--spin-ms", "0", "--wait-ms", "20000", "--handler"],
            binary: "lagmon-wait-fixture", ready: "ready pid=")
        defer { fixture.stop() }
        try fixture.waitUntilAsleep(in: ["232"], fourthArgument: 20000)
        let tracer = ThreadTracer(tid: fixture.pid)
        defer { tracer.detach() }
        var history = WaitHistory()
        history.noteAwake(at: MonotonicClock.nowNs())
        try tracer.seize()
        _ = try tracer.whileStopped(history: &history) {
            _ = tracer.registers()
            return kill(fixture.pid, SIGUSR1)
        }
        let lines = fixture.readToEnd()
        #expect(
            lines.contains { $0.hasPrefix("epoll_wait waits=1 ") && $0.hasSuffix("signal_eintrs=1 signals=1") },
            "\(lines)")
        #expect(fixture.exitStatus() == 0)
    }
}

extension InterruptedWaitRestartTests {
    /// The wait fixture asleep in `recv` on a socket with a SO_RCVTIMEO: a first stop restarts
    /// it with a deadline a whole timeout away (the program sees neither EINTR nor an early
    /// timeout: it waits at least its timeout); a second stop, once that deadline has passed
    /// (here: set in the past), makes it fail with EAGAIN at once, as its timeout would have.
    @Test(arguments: [true, false])
    func aStoppedSocketCallTimesOutOnlyOnceItsTimeIsUp(timeIsUp: Bool) throws {
        let waitMs = timeIsUp ? 20000 : 1500
        let fixture = try LoopFixture(
            ["recv", "--rounds", "1", "--spin-ms", "0", "--wait-ms", "\(waitMs)"], binary: "lagmon-wait-fixture",
            ready: "ready pid=")
        defer { fixture.stop() }
        // recv is recvfrom (45) with flags 0.
        try fixture.waitUntilAsleep(in: ["45"])
        let tracer = ThreadTracer(tid: fixture.pid)
        defer { tracer.detach() }
        var history = WaitHistory()
        history.noteAwake(at: MonotonicClock.nowNs() - 30_000_000_000)
        try stopAndExpectABrokenReceive(tracer, history: &history)
        #expect(tracer.restartedWaits == 1)
        let restarted = try #require(history.restarted, "restarted with no deadline kept")
        #expect(restarted.deadlineNs >= restarted.restartedAtNs + UInt64(waitMs) * 1_000_000)
        if timeIsUp {
            history.restarted?.deadlineNs = MonotonicClock.nowNs() - 1
            try fixture.waitUntilAsleep(in: ["45"])
            try stopAndExpectABrokenReceive(tracer, history: &history)
            #expect(history.restarted == nil)
        }
        let lines = fixture.readToEnd()
        let summary = try #require(lines.first { $0.hasPrefix("recv waits=1 ") }, "\(lines)")
        let longest = try #require(summary.split(separator: " ").first { $0.hasPrefix("longest_ms=") })
        let waited = Int(longest.dropFirst("longest_ms=".count)) ?? -1
        // A kernel timeout never ends early: under its 20 s, the EAGAIN was lagmon's; at or
        // over the 1.5 s, the restarted call ran its time.
        #expect(timeIsUp ? waited < waitMs : waited >= waitMs, "\(summary)")
        #expect(fixture.exitStatus() == 0)
    }

    /// One stop of `tracer`'s thread, which must find a socket receive broken by it.
    private func stopAndExpectABrokenReceive(_ tracer: ThreadTracer, history: inout WaitHistory) throws {
        try tracer.seize()
        let (registers, _) = try tracer.whileStopped(history: &history) { tracer.registers() }
        guard case .socket(_, .receive) = try #require(registers).interruptedWait else {
            Issue.record("not a broken socket receive: \(String(describing: registers?.interruptedWait))")
            return
        }
    }
}

/// `lagmon-loop-fixture` with stdin and stdout on pipes; killed and reaped by `stop()`.
private final class LoopFixture {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var reaped = false
    private var status: Int32 = 0

    init(_ arguments: [String], binary: String = "lagmon-loop-fixture", ready: String = "idle pid=") throws {
        var inputEnds: [Int32] = [-1, -1]
        var outputEnds: [Int32] = [-1, -1]
        guard pipe(&inputEnds) == 0, pipe(&outputEnds) == 0 else { throw SystemError("pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputEnds[1], 1)
        for end in inputEnds + outputEnds { posix_spawn_file_actions_addclose(&actions, end) }
        let path = Binaries.directory + "/" + binary
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
        guard readLine()?.hasPrefix(ready) == true else { throw SystemError("the fixture did not start") }
    }

    /// Waits (bounded, 30 s) until the main thread sleeps in epoll_wait: /proc's syscall file
    /// names the call (232, or 281 for epoll_pwait) and its state is S.
    func waitUntilAsleepInEpoll() throws {
        try waitUntilAsleep(in: ["232", "281"])
    }

    /// Waits (bounded, 30 s) until the main thread sleeps in one of `calls` (numbers as /proc's
    /// syscall file gives them).
    /// With `fourthArgument`, only a call with that fourth argument counts (the wait fixture's
    /// loop ticks are epoll waits too, on another set, with a 1 ms timeout).
    func waitUntilAsleep(in calls: Set<Substring>, fourthArgument: Int? = nil) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let fields = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8))?.split(separator: " ")
            let argumentMatches =
                fourthArgument.map { fields?.count ?? 0 > 4 && fields?[4] == "0x" + String($0, radix: 16) } ?? true
            if let call = fields?.first, calls.contains(call), argumentMatches,
                ProcFS.taskStat(pid: pid, tid: pid)?.state == .sleeping
            {
                return
            }
            usleep(1000)
        }
        throw SystemError("the fixture never slept in \(calls.sorted())")
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
