import LagmonCore
import Testing

/// A thread in `restart_syscall` is waiting when its `wchan` is poll's or select's sleep, and
/// otherwise keeps the previous state (`resuming`); hostile or truncated text is never `waiting`.
struct RestartedWaitChannelTests {
    @Test(arguments: [
        ("poll_schedule_timeout.constprop.0", ProcLoopReading.State.waiting),
        ("poll_schedule_timeout", .waiting),
        ("do_select\n", .waiting),
        ("do_sys_poll", .waiting),
        ("hrtimer_nanosleep", .resuming),
        ("futex_wait_queue", .resuming),
        ("0", .resuming),
        ("", .resuming),
        ("poll_schedule_timeoutX", .resuming),
    ])
    func wchanDecidesWhetherARestartedCallWaits(text: String, expected: ProcLoopReading.State) {
        #expect(ProcLoopReading.state(ofRestartedWaitChannel: ArraySlice(Array(text.utf8))) == expected)
    }
}
