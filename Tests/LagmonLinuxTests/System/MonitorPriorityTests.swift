import CLagmonLinux
import Glibc
import Testing

@testable import LagmonLinux

/// The observing threads are raised to nice -10 where lagmon may, never lowered: under
/// `nice -n -15 lagmon` the sampler at -10 fell behind a target at -15 on a loaded machine.
struct MonitorPriorityTests {
    /// On a thread of its own (niceness is per thread): sets nice -15, raises it, and returns
    /// whether -15 could be set and the niceness after.
    private func nicenessAfterRaisingFromMinusFifteen() -> (set: Bool, after: Int32) {
        final class Outcome: @unchecked Sendable {
            var set = false
            var after: Int32 = 0
        }
        let outcome = Outcome()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(outcome).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let outcome = Unmanaged<Outcome>.fromOpaque(context!).takeRetainedValue()
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                let tid = id_t(lagmon_gettid())
                outcome.set = setpriority(which, tid, -15) == 0
                MonitorPriority.raiseCurrentThread()
                errno = 0
                outcome.after = getpriority(which, tid)
                return nil
            }, context)
        pthread_join(thread, nil)
        return (outcome.set, outcome.after)
    }

    @Test func aThreadAlreadyAboveMinusTenKeepsItsNiceness() throws {
        let result = nicenessAfterRaisingFromMinusFifteen()
        if !result.set { try Test.cancel("needs CAP_SYS_NICE to start a thread at nice -15") }
        #expect(result.after == -15)
    }
}
