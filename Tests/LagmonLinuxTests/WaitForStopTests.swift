import CLagmonLinux
import Glibc
import Testing

/// `lagmon_wait_for_stop_within` unblocks its timer signal only while it waits: the sampler
/// thread that calls it gets its own signal mask back.
struct WaitForStopTests {
    @Test func theCallersSignalMaskIsRestored() {
        let tick = __libc_current_sigrtmax() - 3
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, tick)
        var original = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &original)
        defer { pthread_sigmask(SIG_SETMASK, &original, nil) }

        // lagmon's own process is no child of lagmon: waitid fails at once (ECHILD), after the
        // signal was unblocked and the timer armed.
        var status: Int32 = 0
        #expect(lagmon_wait_for_stop_within(getpid(), &status, 50_000_000) == -1)
        #expect(errno == ECHILD)

        var after = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &after)
        #expect(sigismember(&after, tick) == 1)
    }
}
