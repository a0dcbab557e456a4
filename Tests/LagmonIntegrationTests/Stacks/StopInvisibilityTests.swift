import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// lagmon's stops never reach the program: a wait call the sampler's stop lands in goes on as if
/// nothing happened (restarted, with the time left), whatever the call, under thousands of stops;
/// a real signal still interrupts it; Python 2.7's epoll poller, which raises on EINTR, lives.
@Suite(.serialized)
struct StopInvisibilityTests {
    /// Every wait call the fixture has but those that time out with EAGAIN (`socketCalls`);
    /// sigwaitinfo has no timeout (a helper thread sends its signal 50 ms into the call).
    static let calls = [
        "epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect", "nanosleep",
        "clock_nanosleep", "futex", "sigwaitinfo",
    ]
    /// Sampling every millisecond of every iteration (each one a busy period: a 5 ms spin, then
    /// the call with a 50 ms timeout and nothing ready).
    static let heavySampling = ["run", "--threshold", "1ms", "--sample-interval", "1ms", "--"]

    /// The fixture exits 3 on an EINTR no signal explains, 4 when a wait lasted over 2 s (one
    /// restarted with its whole 50 ms at every stop, one a millisecond, would never end).
    @Test(arguments: calls)
    func thousandsOfStopsNeverBreakAWaitCall(call: String) throws {
        let result = try LagmonProcess.run(
            Self.heavySampling + [
                Binaries.waitFixture, call, "--rounds", "100", "--spin-ms", "5", "--wait-ms", "50", "--max-wait-ms",
                "2000",
            ])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("\(call) waits=100 "), "\(result.stdout)")
        let report = try #require(result.report)
        // Not vacuous: the waits were stopped in, again and again.
        #expect(report.sampling.samples >= 1000, "\(report.sampling.samples) samples")
    }

    /// The socket calls on a socket with a 50 ms timeout (SO_RCVTIMEO for the reads and the
    /// accept, SO_SNDTIMEO for the writes to a full socket), and sigtimedwait with one, nothing
    /// arriving: each restarts while
    /// its time is not up and fails with EAGAIN, as its timeout makes it, once it is. The fixture
    /// exits 3 on an EINTR, 5 on anything but EAGAIN, 4 on a call over 2 s: a restart with the
    /// whole timeout at every stop (a 50 ms recv waited 69 s so) fails it. (Each call ends at
    /// most one timeout after its deadline, docs/stops.md: 100 ms; the rest of the 2 s is the
    /// margin a loaded machine needs.) It exits 6 on a call that timed out before 40 ms: the
    /// kernel's own timeout, in jiffies, may end a tick (at most 10 ms) early, lagmon's not.
    @Test(arguments: socketCalls)
    func socketCallsWithATimeoutTimeOutOnTime(call: String) throws {
        let result = try LagmonProcess.run(
            Self.heavySampling + [
                Binaries.waitFixture, call, "--rounds", "100", "--spin-ms", "5", "--wait-ms", "50", "--max-wait-ms",
                "2000", "--min-wait-ms", "40",
            ])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("\(call) waits=100 "), "\(result.stdout)")
        #expect(try #require(result.report).sampling.samples >= 1000)
    }

    static let socketCalls = [
        "read", "readv", "recv", "recvfrom", "recvmsg", "accept", "write", "send", "sendmsg", "sigtimedwait",
    ]

    /// io_uring waits for completions, which a stop breaks with EINTR: one without a timeout of
    /// its own (the fixture's is woken by a 50 ms timeout request it submitted before) restarts
    /// as it is; one with a relative timeout (`IORING_ENTER_EXT_ARG`) restarts whole while its
    /// time is not up and then fails with ETIME, as its timeout makes it. The fixture exits 3 on
    /// an EINTR, 5 on any other end, 6 on a wait that ended before 40 ms, 4 on one over 2 s; 7
    /// when the kernel refuses io_uring (disabled by `kernel.io_uring_disabled` or seccomp).
    @Test(arguments: ["io_uring_enter", "io_uring_enter_timeout"])
    func ioUringWaitsGoOnAsIfNotStopped(call: String) throws {
        let result = try LagmonProcess.run(
            Self.heavySampling + [
                Binaries.waitFixture, call, "--rounds", "100", "--spin-ms", "5", "--wait-ms", "50", "--max-wait-ms",
                "2000", "--min-wait-ms", "40",
            ])
        if result.status == 7 { try Test.cancel("the kernel refuses io_uring here: \(result.stdout)") }
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("\(call) waits=100 "), "\(result.stdout)")
        #expect(try #require(result.report).sampling.samples >= 1000)
    }

    /// A SIGUSR1 sent to the loop while it sleeps in its call (every third round, under the same
    /// sampling: many land during a stop) still interrupts it; nothing else does.
    @Test(arguments: ["epoll_wait", "epoll_pwait2", "nanosleep"])
    func aRealSignalStillInterruptsTheWait(call: String) throws {
        let result = try LagmonProcess.run(
            Self.heavySampling + [
                Binaries.waitFixture, call, "--rounds", "60", "--spin-ms", "5", "--wait-ms", "50", "--max-wait-ms",
                "2000", "--signals",
            ])
        #expect(result.status == 0, "\(result.stdout)")
        let summary = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("\(call) waits=") })
        let eintrs = summary.split(separator: " ").first { $0.hasPrefix("signal_eintrs=") }
        #expect((eintrs.flatMap { Int($0.dropFirst("signal_eintrs=".count)) } ?? 0) >= 5, "\(summary)")
        #expect(try #require(result.report).sampling.samples >= 500)
    }

    /// Python 2.7's `select.epoll.poll(timeout)` raises `IOError: [Errno 4]` on EINTR: a loop of
    /// 5 ms spins and 50 ms polls under sampling every millisecond, three runs.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python27)), arguments: 1...3)
    func pythonTwoSevensEpollPollerLives(run: Int) throws {
        let result = try LagmonProcess.run(Self.heavySampling + [Self.python27, "-c", Self.poller, "100"])
        #expect(result.status == 0, "run \(run): \(result.stdout) \(result.stderr.suffix(600))")
        #expect(result.stdout.contains("python2 waits=100"), "\(result.stdout)")
        #expect(try #require(result.report).sampling.samples >= 1000)
    }

    static let python27 = "/root/.pyenv/versions/2.7.18/bin/python2.7"
    static let poller = """
        import select, socket, sys, time
        a, b = socket.socketpair()
        waits = select.epoll()
        waits.register(a.fileno(), select.EPOLLIN)
        loop = select.epoll()
        for _ in range(3):
            loop.poll(0.001)
        rounds = int(sys.argv[1])
        for _ in range(rounds):
            loop.poll(0.001)
            end = time.time() + 0.005
            while time.time() < end:
                pass
            started = time.time()
            waits.poll(0.05)
            if time.time() - started > 2:
                sys.exit(4)
        print("python2 waits=%d" % rounds)
        """
}
