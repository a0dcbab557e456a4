import LagmonCore
import Testing

/// The lock and its holder named from a stall's samples, the waiter's frames confirming the kind.
struct LockWaitAnalyzerTests {
    static let futex = SyscallInfo(number: 202, name: "futex", arguments: [0x7f00_0000_1000, 0x80, 2, 0, 0, 0])
    static let waiting = ThreadStateSample(
        state: .sleeping, syscall: futex, wchan: "futex_wait_queue", runDelayNs: 0, onCPUNs: 0)
    static let spin = Fixture.frame("hold_and_spin", "worker", offset: 0x300)
    static let holderRoot = Fixture.frame("start_thread", "libc.so.6", offset: 0x8000)

    /// A sample of thread 100 waiting in `api` (frames innermost first), with what it read of the lock.
    static func sample(_ api: String, _ lock: LockObservation, holderFrames: [Frame] = [spin, holderRoot])
        -> ResolvedSample
    {
        var sample = Fixture.sample(
            [Fixture.frame(api, "libc.so.6", offset: 0x9000)] + Fixture.runLoopFrames, state: waiting)
        sample.sample.lock = lock
        if lock.holder != nil { sample.holderFrames = holderFrames }
        return sample
    }

    static func owned(by tid: Int32, _ layout: LockLayout = .normalMutex, sampled: Bool = true) -> LockObservation {
        let holder = LockHolderSample(
            tid: tid, name: "worker", addresses: [spin.address, holderRoot.address], outcome: .complete, pauseNs: 1000,
            state: nil)
        return LockObservation(
            futexAddress: 0x7f00_0000_1000, layout: layout, ownerTid: tid, ownerIsThread: true,
            holder: sampled ? holder : nil)
    }

    @Test func aMutexNamesItsHolderAndWhereItWas() throws {
        let samples = (0..<4).map { _ in Self.sample("pthread_mutex_lock", Self.owned(by: 4093)) }
        let report = try #require(LockWaitAnalyzer().analyze(samples, tid: 100))
        #expect(report.kind == "mutex")
        #expect(report.samples == 4)
        let holder = try #require(report.holder)
        #expect(holder.tid == 4093 && holder.name == "worker" && holder.samples == 4)
        #expect(holder.culprit?.symbol == "hold_and_spin")
        #expect(holder.stacks.first?.frames.map(\.symbol) == ["start_thread", "hold_and_spin"])
        #expect(
            LockWaitAnalyzer.text(report, durationNs: 280 * Fixture.ms)
                == "waiting 280ms for a mutex held by thread 4093 \"worker\" in hold_and_spin")
    }

    @Test func theLayoutRefinesTheMutexKind() throws {
        let recursive = [Self.sample("pthread_mutex_lock", Self.owned(by: 7, .recursiveMutex))]
        #expect(LockWaitAnalyzer().analyze(recursive, tid: 100)?.kind == "recursive mutex")
        let errorCheck = [Self.sample("pthread_mutex_lock", Self.owned(by: 7, .errorCheckMutex))]
        let report = try #require(LockWaitAnalyzer().analyze(errorCheck, tid: 100))
        #expect(LockWaitAnalyzer.text(report, durationNs: Fixture.ms).contains("for an error-checking mutex held by"))
        let pi = [Self.sample("pthread_mutex_lock", Self.owned(by: 7, .priorityInheritance))]
        #expect(LockWaitAnalyzer().analyze(pi, tid: 100)?.kind == "PI mutex")
    }

    @Test func aConditionVariableOrSemaphoreNamesNoHolderEvenIfItsMemoryLookedOwned() throws {
        // A condition variable next to a mutex can read like one: its frames overrule the memory.
        let condvar = [Self.sample("pthread_cond_wait", Self.owned(by: 4093))]
        let report = try #require(LockWaitAnalyzer().analyze(condvar, tid: 100))
        #expect(report.kind == "condition variable" && report.holder == nil)
        #expect(
            LockWaitAnalyzer.text(report, durationNs: 90 * Fixture.ms)
                == "waiting 90ms for a condition variable (condition variables record no owner)")
        let semaphore = [Self.sample("sem_wait", LockObservation(futexAddress: 8, layout: .unrecognized))]
        #expect(LockWaitAnalyzer().analyze(semaphore, tid: 100)?.noHolderReason == "semaphores record no owner")
    }

    @Test func anOwnerThatIsNoThreadOfTheProcessIsNotNamedAsHolder() throws {
        let stranger = LockObservation(futexAddress: 8, layout: .normalMutex, ownerTid: 31337, ownerIsThread: false)
        let report = try #require(LockWaitAnalyzer().analyze([Self.sample("pthread_mutex_lock", stranger)], tid: 100))
        #expect(report.holder == nil)
        #expect(report.noHolderReason == "the lock names tid 31337, which is not a thread of this process")
    }

    @Test func aThreadWaitingOnItsOwnLockIsASelfDeadlock() throws {
        let own = Self.owned(by: 100, sampled: false)
        let report = try #require(LockWaitAnalyzer().analyze([Self.sample("pthread_mutex_lock", own)], tid: 100))
        #expect(report.holder?.isWaiter == true)
        #expect(LockWaitAnalyzer.text(report, durationNs: Fixture.ms).contains("it holds itself (thread 100"))
    }

    @Test func readersAreCounted() throws {
        let readers = LockObservation(futexAddress: 8, layout: .rwlockReaders, readers: 2)
        let report = try #require(LockWaitAnalyzer().analyze([Self.sample("pthread_rwlock_wrlock", readers)], tid: 100))
        #expect(report.kind == "rwlock" && report.readers == 2 && report.holder == nil)
        #expect(
            LockWaitAnalyzer.text(report, durationNs: Fixture.ms)
                == "waiting 1ms for a rwlock held by 2 readers (no owner recorded)")
    }

    @Test func samplesWithoutALockGiveNoReport() {
        #expect(LockWaitAnalyzer().analyze([Fixture.sample([Self.spin])], tid: 100) == nil)
    }
}
