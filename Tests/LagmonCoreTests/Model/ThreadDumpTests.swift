import LagmonCore
import Testing

/// What `lagmon dump` says a thread is doing, from its /proc state.
struct ThreadDumpTests {
    static func state(_ scheduler: SchedulerState, call: Int?, wchan: String? = nil) -> ThreadStateSample {
        ThreadStateSample(
            state: scheduler, syscall: call.map { SyscallInfo(number: $0, name: SyscallTable.name($0), arguments: []) },
            wchan: wchan, runDelayNs: 0, onCPUNs: 0)
    }

    @Test func loopWaitsAreWaitingOtherCallsBlockedNoCallBusy() {
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: 232)) == .waiting)  // epoll_wait
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: 7)) == .waiting)  // poll
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: 202)) == .blocked)  // futex
        #expect(ThreadDump.activity(of: Self.state(.running, call: nil)) == .busy)
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: nil)) == .busy)
    }

    @Test func aRestartedPollIsWaitingByItsKernelFunction() {
        let restart = SyscallTable.restartNumber
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: restart, wchan: "do_sys_poll")) == .waiting)
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: restart, wchan: "futex_wait_queue")) == .blocked)
        #expect(ThreadDump.activity(of: Self.state(.sleeping, call: restart)) == .blocked)
    }

    @Test func stoppedAndGoneThreads() {
        #expect(ThreadDump.activity(of: Self.state(.tracingStop, call: 232)) == .stopped)
        #expect(ThreadDump.activity(of: Self.state(.stopped, call: nil)) == .stopped)
        #expect(ThreadDump.activity(of: Self.state(.zombie, call: nil)) == .gone)
        #expect(ThreadDump.activity(of: nil) == .gone)
    }
}
