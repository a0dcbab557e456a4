import LagmonCore
import Testing

/// How a stack sample's stop, and a /proc reading taken while the sampler may hold the thread
/// stopped, count as readings of the loop.
struct StopReadingTests {
    private let select = 23
    private let restart = 219

    @Test func aWaitTheThreadWasRunnableInOrThatReturnedIsBusy() {
        // Asleep in select when the stop came: an interrupted wait.
        #expect(
            ProcLoopReading.state(
                atStopIn: select, waitChannelBefore: "do_select", callFinished: false, schedulerStateBefore: .sleeping)
                == .waiting)
        // Runnable in it (its timeout fired, it waited for a CPU): the stop turned the timeout into
        // -ERESTARTNOHAND, yet the wait was over.
        #expect(
            ProcLoopReading.state(
                atStopIn: select, waitChannelBefore: nil, callFinished: false, schedulerStateBefore: .running) == .busy)
        // Returned before the stop.
        #expect(
            ProcLoopReading.state(
                atStopIn: select, waitChannelBefore: nil, callFinished: true, schedulerStateBefore: .sleeping) == .busy)
        // Not in a wait call: busy whatever the state before; in restart_syscall: as before.
        #expect(
            ProcLoopReading.state(atStopIn: nil, waitChannelBefore: nil, callFinished: true, schedulerStateBefore: nil)
                == .busy)
        #expect(
            ProcLoopReading.state(
                atStopIn: restart, waitChannelBefore: "hrtimer_nanosleep", callFinished: false,
                schedulerStateBefore: .sleeping) == .resuming)
        #expect(
            ProcLoopReading.state(
                atStopIn: restart, waitChannelBefore: "do_sys_poll", callFinished: false, schedulerStateBefore: nil)
                == .waiting)
    }

    /// Which threads `lagmon attach`'s sampler leaves unstopped: asleep in the loop's wait only.
    @Test func onlyAThreadAsleepInItsWaitIsSpared() {
        func thread(_ state: SchedulerState, in call: Int?, wchan: String? = nil) -> ThreadStateSample {
            let syscall = call.map { SyscallInfo(number: $0, name: SyscallTable.name($0), arguments: []) }
            return ThreadStateSample(state: state, syscall: syscall, wchan: wchan, runDelayNs: 0, onCPUNs: 0)
        }
        #expect(ProcLoopReading.isAsleepInWait(thread(.sleeping, in: select, wchan: "do_select")))
        #expect(ProcLoopReading.isAsleepInWait(thread(.sleeping, in: 232)))  // epoll_wait
        // Back in poll's wait after an earlier stop broke it.
        #expect(ProcLoopReading.isAsleepInWait(thread(.sleeping, in: restart, wchan: "do_sys_poll")))
        // Runnable in its wait (the timeout fired, it waits for a CPU): the loop is awake.
        #expect(!ProcLoopReading.isAsleepInWait(thread(.running, in: select)))
        // Asleep in another call, in a restarted sleep, or in user space: busy, sampled.
        #expect(!ProcLoopReading.isAsleepInWait(thread(.sleeping, in: 0)))  // read
        #expect(!ProcLoopReading.isAsleepInWait(thread(.sleeping, in: restart, wchan: "hrtimer_nanosleep")))
        #expect(!ProcLoopReading.isAsleepInWait(thread(.sleeping, in: nil)))
        #expect(!ProcLoopReading.isAsleepInWait(thread(.diskSleep, in: select)))
    }

    @Test func aWaitReadingTakenWhileAStopWindowWasOpenIsInDoubt() {
        let waiting = ProcLoopReading(state: .waiting, beganNs: 10, endedNs: 12)
        let busy = ProcLoopReading(state: .busy, beganNs: 10, endedNs: 12)
        // No window open, before or after.
        #expect(!waiting.mayShowAStop(stopWindowsBefore: 0, after: 0))
        #expect(!waiting.mayShowAStop(stopWindowsBefore: 4, after: 4))
        // Open before, opened during, or opened and closed during the read.
        #expect(waiting.mayShowAStop(stopWindowsBefore: 1, after: 1))
        #expect(waiting.mayShowAStop(stopWindowsBefore: 2, after: 3))
        #expect(waiting.mayShowAStop(stopWindowsBefore: 2, after: 4))
        // A busy reading is busy either way.
        #expect(!busy.mayShowAStop(stopWindowsBefore: 1, after: 2))
    }
}
