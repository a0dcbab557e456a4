import LagmonCore
import Testing

struct StallDiagnoserTests {
    static let ms = Fixture.ms
    static let interval = 10 * Fixture.ms
    static let culprit = Fixture.frame("ImageDecoder.decodeImage(_:row:budgetNs:)", offset: 0x2000)

    /// One sample per state, `interval` apart.
    static func samples(_ states: [ThreadStateSample?]) -> [StackSample] {
        states.enumerated().map { index, state in
            Fixture.sample(at: UInt64(index) * interval, [culprit], state: state).sample
        }
    }

    private func diagnose(_ states: [ThreadStateSample?], durationNs: UInt64 = 240 * ms, culprit: Frame? = culprit)
        -> StallDiagnosis
    {
        StallDiagnoser().diagnose(Self.samples(states), durationNs: durationNs, culprit: culprit)
    }

    @Test func runningWithoutRunQueueDelayIsCPUBoundInTheCulprit() {
        let running = Array(repeating: Fixture.state(), count: 4)
        #expect(
            diagnose(running)
                == StallDiagnosis(kind: .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:row:budgetNs:)"))
        #expect(diagnose(running, culprit: nil) == StallDiagnosis(kind: .cpu, text: "CPU-bound"))
        let anonymous = Fixture.frame(nil, offset: 0x4242)
        #expect(diagnose(running, culprit: anonymous).text == "CPU-bound in ImageViewer+0x4242")
    }

    @Test func runQueueDelayGrowingOverHalfTheIntervalIsWaitingForACPU() {
        // +8 ms of run-queue delay per 10 ms: the first sample has no predecessor and counts as CPU.
        let states = (0..<4).map { Fixture.state(runDelayNs: UInt64($0) * 8 * Self.ms) }
        #expect(
            diagnose(states, durationNs: 200 * Self.ms)
                == StallDiagnosis(kind: .runqueue, text: "waiting for a CPU for 150ms"))
    }

    @Test func runQueueDelayOfExactlyHalfTheIntervalIsStillCPU() {
        let states = (0..<4).map { Fixture.state(runDelayNs: UInt64($0) * 5 * Self.ms) }
        #expect(diagnose(states).kind == .cpu)
        let justOver = (0..<4).map { Fixture.state(runDelayNs: UInt64($0) * (5 * Self.ms + 1)) }
        #expect(diagnose(justOver).kind == .runqueue)
    }

    @Test func aRunnableThreadThatNeverReachedItsStopWaitedForACPU() {
        // schedstat's counters stand still while a thread waits; the state-only sample is the
        // sampler's word that it stayed runnable and never got a CPU to stop.
        var samples = Self.samples(Array(repeating: Fixture.state(), count: 3))
        samples[1].isStateOnly = true
        samples[2].isStateOnly = true
        #expect(
            StallDiagnoser().diagnose(samples, durationNs: 300 * Self.ms, culprit: nil)
                == StallDiagnosis(kind: .runqueue, text: "waiting for a CPU for 200ms"))
        // A state-only sample in another state is classified as before.
        samples[1].state = Fixture.state(.diskSleep)
        samples[2].state = Fixture.state(.diskSleep)
        #expect(StallDiagnoser().diagnose(samples, durationNs: 300 * Self.ms, culprit: nil).kind == .io)
    }

    @Test func aMeasuredRunQueueShareOfHalfOrMoreMakesACPUStallWaitingForACPU() {
        let running = Self.samples(Array(repeating: Fixture.state(), count: 2))
        let diagnoser = StallDiagnoser()
        #expect(
            diagnoser.diagnose(running, durationNs: 400 * Self.ms, culprit: Self.culprit, runQueueShare: 0.9)
                == StallDiagnosis(kind: .runqueue, text: "waiting for a CPU for 360ms"))
        #expect(
            diagnoser.diagnose(running, durationNs: 400 * Self.ms, culprit: Self.culprit, runQueueShare: 0.49).kind
                == .cpu)
        // Blocking kinds say more than the share: a lock wait stays a lock wait.
        let locked = Self.samples([Fixture.state(.sleeping, syscall: "futex")])
        #expect(diagnoser.diagnose(locked, durationNs: 400 * Self.ms, culprit: nil, runQueueShare: 0.9).kind == .lock)
    }

    @Test func samplesAreOrderedByTimeBeforeRunQueueDelaysAreCompared() {
        let states = (0..<4).map { Fixture.state(runDelayNs: UInt64($0) * 8 * Self.ms) }
        let shuffled = Self.samples(states).reversed()
        #expect(StallDiagnoser().diagnose(Array(shuffled), durationNs: 200 * Self.ms, culprit: nil).kind == .runqueue)
    }

    @Test(arguments: [
        ("pipe:[123]", "blocked 240ms in read(fd 7 → pipe)"),
        ("socket:[98765]", "blocked 240ms in read(fd 7 → socket)"),
        ("/var/lib/images/cat.png", "blocked 240ms in read(fd 7 → /var/lib/images/cat.png)"),
        ("anon_inode:[eventfd]", "blocked 240ms in read(fd 7 → eventfd)"),
        ("anon_inode:inotify", "blocked 240ms in read(fd 7 → inotify)"),
    ])
    func aSystemCallNamesItsDescriptor(target: String, text: String) {
        let states = Array(repeating: Fixture.state(.sleeping, syscall: "read", fd: 7, target: target), count: 3)
        #expect(diagnose(states) == StallDiagnosis(kind: .syscall, text: text))
    }

    @Test func aSystemCallWithoutDescriptorIsNamedAlone() {
        let states = Array(repeating: Fixture.state(.sleeping, syscall: "ppoll", fd: 0x7ffd_1234), count: 2)
        #expect(diagnose(states) == StallDiagnosis(kind: .syscall, text: "blocked 240ms in ppoll"))
    }

    @Test func theMostCommonCallNamesTheSyscallKind() {
        let states = [
            Fixture.state(.sleeping, syscall: "write", fd: 3, target: "socket:[1]"),
            Fixture.state(.sleeping, syscall: "read", fd: 7, target: "pipe:[2]"),
            Fixture.state(.sleeping, syscall: "read", fd: 7, target: "pipe:[2]"),
            Fixture.state(),
        ]
        // Three of four samples were in system calls: 180 of the 240 ms.
        #expect(diagnose(states) == StallDiagnosis(kind: .syscall, text: "blocked 180ms in read(fd 7 → pipe)"))
    }

    @Test func futexIsALock() {
        let states = Array(repeating: Fixture.state(.sleeping, syscall: "futex"), count: 3) + [Fixture.state()]
        #expect(
            diagnose(states, durationNs: 400 * Self.ms)
                == StallDiagnosis(kind: .lock, text: "waiting on a lock (futex) for 300ms"))
    }

    @Test(arguments: ["nanosleep", "clock_nanosleep", "pause"])
    func sleepingCallsAreSleep(call: String) {
        let states = Array(repeating: Fixture.state(.sleeping, syscall: call), count: 2)
        #expect(
            diagnose(states, durationNs: 300 * Self.ms)
                == StallDiagnosis(kind: .sleep, text: "sleeping for 300ms (\(call))"))
    }

    /// lagmon's own sample stops the thread in its call; the kernel resumes `nanosleep`, `poll`
    /// or `futex` as `restart_syscall`, which is still that call.
    @Test func aRestartedCallCountsAsTheCallItResumes() {
        let states =
            [Fixture.state(.sleeping, syscall: "nanosleep")]
            + Array(repeating: Fixture.state(.sleeping, syscall: "restart_syscall"), count: 3)
        #expect(
            diagnose(states, durationNs: 300 * Self.ms)
                == StallDiagnosis(kind: .sleep, text: "sleeping for 300ms (nanosleep)"))
    }

    @Test func aRestartWithNoEarlierCallIsNamedAsSuch() {
        let states = [Fixture.state(.sleeping, syscall: "restart_syscall")]
        #expect(
            diagnose(states, durationNs: 300 * Self.ms)
                == StallDiagnosis(kind: .syscall, text: "blocked 300ms in restart_syscall"))
    }

    @Test func diskSleepIsUninterruptibleIO() {
        let reading = Fixture.state(.diskSleep, syscall: "read", fd: 3, target: "/data/big.img")
        #expect(
            diagnose([reading, reading])
                == StallDiagnosis(kind: .io, text: "in uninterruptible I/O reading /data/big.img (fd 3) for 240ms"))
        let syncing = Fixture.state(.diskSleep, syscall: "fsync", fd: 9, target: "socket:[77]")
        #expect(diagnose([syncing]).text == "in uninterruptible I/O syncing socket (fd 9) for 240ms")
        let locking = Fixture.state(.diskSleep, syscall: "flock", fd: 4, target: "/var/lock/app")
        #expect(diagnose([locking]).text == "in uninterruptible I/O in flock on /var/lock/app (fd 4) for 240ms")
        let forking = Fixture.state(.diskSleep, syscall: "vfork", wchan: "kernel_clone")
        #expect(diagnose([forking]).text == "in uninterruptible I/O in vfork (kernel_clone) for 240ms")
        // Without the system call (unreadable), the wait channel says where; without it, the
        // culprit; without either, nothing.
        let unknown = Fixture.state(.diskSleep, wchan: "io_schedule")
        #expect(diagnose([unknown]).text == "in uninterruptible I/O in the kernel (io_schedule) for 240ms")
        let nowhere = Fixture.state(.diskSleep)
        #expect(
            diagnose([nowhere])
                == StallDiagnosis(
                    kind: .io,
                    text: "in uninterruptible I/O (D state) for 240ms in ImageDecoder.decodeImage(_:row:budgetNs:)"))
        #expect(diagnose([nowhere], culprit: nil).text == "in uninterruptible I/O (D state) for 240ms")
        // D state wins even in a futex.
        #expect(diagnose([Fixture.state(.diskSleep, syscall: "futex")]).kind == .io)
    }

    @Test func sleepingWithoutAKnownSystemCallIsBlockedInTheKernel() {
        #expect(
            diagnose([Fixture.state(.sleeping, wchan: "pipe_read")], durationNs: 100 * Self.ms)
                == StallDiagnosis(kind: .syscall, text: "blocked 100ms in the kernel (pipe_read)"))
        #expect(diagnose([Fixture.state(.sleeping, wchan: "0")]).text == "blocked 240ms in the kernel")
        #expect(diagnose([Fixture.state(.sleeping)]).text == "blocked 240ms in the kernel")
    }

    @Test func tiesGoToTheMoreSpecificKind() {
        let states = [
            Fixture.state(), Fixture.state(.sleeping, syscall: "futex"), Fixture.state(),
            Fixture.state(.sleeping, syscall: "futex"),
        ]
        #expect(diagnose(states) == StallDiagnosis(kind: .lock, text: "waiting on a lock (futex) for 120ms"))
        let ioOrSleep = [Fixture.state(.sleeping, syscall: "nanosleep"), Fixture.state(.diskSleep)]
        #expect(diagnose(ioOrSleep).kind == .io)
    }

    @Test func theShareIsRoundedToTheNearestNanosecond() {
        let states = [Fixture.state(.sleeping, syscall: "futex"), Fixture.state(), Fixture.state()]
        // 2/3 of 100 ms = 66.666… ms; the formatter shows three digits.
        #expect(
            diagnose(states, durationNs: 100 * Self.ms).text == "CPU-bound in ImageDecoder.decodeImage(_:row:budgetNs:)"
        )
        let locked = [
            Fixture.state(.sleeping, syscall: "futex"), Fixture.state(.sleeping, syscall: "futex"), Fixture.state(),
        ]
        #expect(diagnose(locked, durationNs: 100 * Self.ms).text == "waiting on a lock (futex) for 66.7ms")
        #expect(diagnose(locked, durationNs: 2).text == "waiting on a lock (futex) for 1ns")
    }

    @Test func samplesWithoutAStateDoNotVote() {
        let states: [ThreadStateSample?] = [nil, Fixture.state(.sleeping, syscall: "futex"), nil, nil]
        #expect(diagnose(states) == StallDiagnosis(kind: .lock, text: "waiting on a lock (futex) for 240ms"))
        #expect(diagnose([nil, nil]) == StallDiagnosis(kind: .unknown, text: "thread state unavailable"))
    }

    @Test(arguments: [SchedulerState.stopped, .tracingStop, .zombie, .dead, .parked, .unknown])
    func statesThatSayNothingAboutTheStallDoNotVote(state: SchedulerState) {
        #expect(
            diagnose([Fixture.state(state), Fixture.state(state), Fixture.state(.sleeping, syscall: "futex")]).kind
                == .lock)
        #expect(diagnose([Fixture.state(state)]) == StallDiagnosis(kind: .unknown, text: "thread state unavailable"))
    }

    @Test func samplesWhoseMemoryWasUnreadableSayItAfterTheDiagnosis() {
        var samples = Self.samples(Array(repeating: Fixture.state(), count: 4))
        samples[2].memoryUnreadable = true
        let diagnosis = StallDiagnoser().diagnose(samples, durationNs: 240 * Self.ms, culprit: nil)
        #expect(diagnosis == StallDiagnosis(kind: .cpu, text: "CPU-bound; target memory unreadable (read timed out)"))
        let report = SamplingReport(samples: samples)
        #expect(report.memoryUnreadableSamples == 1)
        #expect(SamplingReport(samples: Self.samples([Fixture.state()])).memoryUnreadableSamples == nil)
    }

    @Test func noSamplesMeansUnknown() {
        #expect(
            StallDiagnoser().diagnose([], durationNs: 240 * Self.ms, culprit: Self.culprit)
                == StallDiagnosis(kind: .unknown, text: "no stack samples"))
        #expect(StallDiagnoser.noSamples == StallDiagnosis(kind: .unknown, text: "no stack samples"))
    }
}
