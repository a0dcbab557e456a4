import LagmonCore
import Testing

struct DiagnosticRulesTests {
    static let ms = Fixture.ms
    static let anyLoop = Fixture.loop(tid: 100)

    private func diagnose(_ recording: SessionRecording, stalls: [StallReport] = []) -> [Diagnostic] {
        DiagnosticRules.diagnose(recording, stalls: stalls)
    }

    // MARK: Missing observer

    @Test(
        arguments: [
            (
                ProbeStatus(
                    preloadLoaded: true, agentCalled: true, foundCoreFoundation: true, lacksCoreFoundation: true,
                    installFailed: true, versionMismatches: 1),
                "the probe in the target belongs to another lagmon version;"
                    + " rebuild lagmon and libLagmonPreload.so together"
            ),
            (
                ProbeStatus(preloadLoaded: true, foundCoreFoundation: true, installFailed: true),
                "CoreFoundation refused to create a run loop observer"
            ),
            (
                ProbeStatus(preloadLoaded: true, foundCoreFoundation: true, lacksCoreFoundation: true),
                "the target loaded CoreFoundation but never ran its main run loop"
            ),
            (
                ProbeStatus(preloadLoaded: true, lacksCoreFoundation: true),
                "no event loop found: the target's main thread never waited repeatedly in epoll, poll or select, and it runs no CoreFoundation run loop"
            ),
            (ProbeStatus(preloadLoaded: true), "the target never waited in its main run loop"),
            (ProbeStatus(agentCalled: true), "the target never waited in its main run loop"),
            (
                ProbeStatus(),
                "the probe did not load in the target (static or setuid binary, or LD_PRELOAD removed)"
            ),
        ] as [(ProbeStatus, String)])
    func noObserverExplainsTheFirstReasonThatApplies(probe: ProbeStatus, reason: String) {
        let diagnostics = diagnose(Fixture.recording(loops: [], probe: probe))
        #expect(
            diagnostics == [
                Diagnostic(
                    code: "no-observer", severity: .warning,
                    message: "no observer attached: \(reason); no stalls can be reported")
            ])
    }

    @Test func loopsLeftOutByLoopsMainOrByNameAreNamedWithTheFix() {
        var recording = Fixture.recording(loops: [], probe: ProbeStatus(preloadLoaded: true, lacksCoreFoundation: true))
        recording.unwatchedLoops = 2
        #expect(
            diagnose(recording).map(\.message) == [
                "no observer attached: the main thread runs no event loop, but 2 other threads do; watch them with --loops all; no stalls can be reported"
            ])
        recording.unwatchedLoops = 0
        recording.loopSelection = "io-*"
        recording.unselectedLoopNames = ["node", "worker"]
        #expect(
            diagnose(recording).map(\.message) == [
                "no observer attached: no loop thread matched --loops io-* (loop threads seen: 'node', 'worker'); no stalls can be reported"
            ])
    }

    @Test func loopsLeftOutBesideAWatchedOneAreMentioned() {
        var recording = Fixture.recording(loops: [Fixture.loop(tid: 100)])
        recording.unwatchedLoops = 1
        #expect(
            diagnose(recording) == [
                Diagnostic(
                    code: "unwatched-loops", severity: .info,
                    message:
                        "1 other thread runs an event loop that --loops main does not watch; add --loops all to see their stalls"
                )
            ])
    }

    @Test func childrenThatWereNotFollowedAreMentioned() {
        var recording = Fixture.recording(loops: [], probe: ProbeStatus(preloadLoaded: true, lacksCoreFoundation: true))
        recording.unfollowedProcesses = 1
        recording.loopSelection = "all"
        #expect(
            diagnose(recording).map(\.message) == [
                "no observer attached: no event loop found: no thread of the target waited repeatedly in epoll, poll or select, and it runs no CoreFoundation run loop; no stalls can be reported (the target started child processes, which were not watched: add --follow-children)"
            ])
    }

    @Test func anObservedLoopMeansNoMissingObserverWhateverTheProbeSaid() {
        let recording = Fixture.recording(loops: [Self.anyLoop], probe: ProbeStatus(versionMismatches: 2))
        #expect(diagnose(recording) == [])
    }

    // MARK: Late watchdog

    @Test(
        arguments: [
            // threshold, worst lateness, reported
            (100 * ms, 10 * ms, false),
            (100 * ms, 10 * ms + 1, true),
            (20 * ms, 5 * ms, false),
            (20 * ms, 5 * ms + 1, true),
            (1 * ms, 5 * ms, false),
            (1 * ms, 5 * ms + 1, true),
            (200 * ms, 15 * ms, false),
            (200 * ms, 20 * ms, false),
            (200 * ms, 20 * ms + 1, true),
        ] as [(UInt64, UInt64, Bool)])
    func watchdogLateOnlyAboveTheLargerOfFiveMsAndATenthOfTheThreshold(
        thresholdNs: UInt64, lateNs: UInt64, reported: Bool
    ) {
        let recording = Fixture.recording(
            loops: [Self.anyLoop], thresholdNs: thresholdNs, lateness: Fixture.lateness(maxNs: lateNs))
        #expect(diagnose(recording).map(\.code) == (reported ? ["watchdog-late"] : []))
    }

    @Test func watchdogLateSaysHowLateAndHowOften() {
        var lateness = LatenessTally(toleranceNs: 1 * Self.ms)
        lateness.record(deadlineNs: 0, wokeNs: 0)
        lateness.record(deadlineNs: 0, wokeNs: 2 * Self.ms)
        lateness.record(deadlineNs: 0, wokeNs: 12_500_000)
        let recording = Fixture.recording(loops: [Self.anyLoop], lateness: lateness)
        let seen = [Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Self.ms, seenLive: true)]
        #expect(
            diagnose(recording, stalls: seen) == [
                Diagnostic(
                    code: "watchdog-late", severity: .info,
                    message: "lagmon's watchdog woke up to 12.5ms late (2 of 3 wake-ups); the machine or lagmon"
                        + " was busy, not the target. Stall timings come from the target's own clock and are unaffected"
                )
            ])
    }

    @Test func watchdogLateCountsStallsOnlyKnownAfterTheyEnded() throws {
        let recording = Fixture.recording(loops: [Self.anyLoop], lateness: Fixture.lateness(maxNs: 50 * Self.ms))
        let stalls = [
            Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Self.ms, seenLive: false),
            Fixture.stall(id: 2, startNs: Fixture.second, durationNs: 200 * Self.ms, seenLive: true),
            Fixture.stall(id: 3, startNs: 2 * Fixture.second, durationNs: 200 * Self.ms, seenLive: false),
        ]
        let late = try #require(diagnose(recording, stalls: stalls).first)
        #expect(late.code == "watchdog-late")
        #expect(late.message.hasPrefix("lagmon's watchdog woke up to 50ms late (1 of 1 wake-ups); "))
        #expect(late.message.hasSuffix("are unaffected; 2 stalls were only known after they ended"))
    }

    // MARK: Lost records and exhausted slots

    @Test func stallRecordsLostAreSummedOverLoops() {
        let recording = Fixture.recording(loops: [
            Fixture.loop(tid: 1, stallRecordsLost: 2), Fixture.loop(tid: 2), Fixture.loop(tid: 3, stallRecordsLost: 3),
        ])
        #expect(
            diagnose(recording) == [
                Diagnostic(
                    code: "stall-records-lost", severity: .warning,
                    message: "5 stall records were overwritten before lagmon read them; stall counts are a lower bound")
            ])
    }

    @Test func slotsExhausted() {
        let recording = Fixture.recording(
            loops: [Self.anyLoop],
            probe: ProbeStatus(preloadLoaded: true, observerInstalled: true, slotsExhausted: true))
        #expect(
            diagnose(recording) == [
                Diagnostic(
                    code: "slots-exhausted", severity: .warning,
                    message: "the target has more loops than the channel can hold; some loops were not observed")
            ])
    }

    @Test(arguments: [
        (1, "the target has more loops than the channel can hold (256); 1 loop was not observed"),
        (44, "the target has more loops than the channel can hold (256); 44 loops were not observed"),
    ])
    func slotsExhaustedCountsTheLoopsLeftOut(refused: Int, message: String) {
        let recording = Fixture.recording(
            loops: [Self.anyLoop],
            probe: ProbeStatus(
                preloadLoaded: true, observerInstalled: true, slotsExhausted: true, refusedLoops: refused,
                slotCapacity: 256))
        #expect(diagnose(recording) == [Diagnostic(code: "slots-exhausted", severity: .warning, message: message)])
    }

    // MARK: Stacks unavailable

    @Test func stacksUnavailableIsOneWarningWithTheReason() {
        var recording = Fixture.recording(loops: [Self.anyLoop])
        recording.samplingUnavailable = "ptrace refused (EPERM): run lagmon as root or allow ptrace"
        let stalls = (1...3).map {
            Fixture.stall(id: $0, startNs: UInt64($0) * Fixture.second, durationNs: 200 * Self.ms)
        }
        #expect(
            diagnose(recording, stalls: stalls) == [
                Diagnostic(
                    code: "stacks-unavailable", severity: .warning,
                    message: "ptrace refused (EPERM): run lagmon as root or allow ptrace")
            ])
    }

    @Test func diagnosticsComeInAFixedOrder() {
        var recording = Fixture.recording(
            loops: [Fixture.loop(tid: 1, stallRecordsLost: 1)],
            probe: ProbeStatus(preloadLoaded: true, observerInstalled: true, slotsExhausted: true),
            lateness: Fixture.lateness(maxNs: 30 * Self.ms))
        recording.samplingUnavailable = "no ptrace"
        recording.threadCap = ThreadCap(limit: 4096, threadsSeen: 5001)
        #expect(
            diagnose(recording).map(\.code) == [
                "watchdog-late", "stall-records-lost", "slots-exhausted", "threads-capped", "stacks-unavailable",
            ])

        let unobserved = Fixture.recording(
            loops: [], probe: ProbeStatus(slotsExhausted: true), lateness: Fixture.lateness(maxNs: 30 * Self.ms))
        #expect(diagnose(unobserved).map(\.code) == ["no-observer", "watchdog-late", "slots-exhausted"])
    }

    /// More threads than the CPU sampler reads: one warning with the program's count and the cap.
    @Test func aCappedThreadTableWarns() {
        var recording = Fixture.recording(loops: [Self.anyLoop], lateness: Fixture.lateness(maxNs: 4 * Self.ms))
        recording.threadCap = ThreadCap(limit: 4096, threadsSeen: 5001)
        #expect(
            diagnose(recording) == [
                Diagnostic(
                    code: "threads-capped", severity: .warning,
                    message:
                        "the program had up to 5001 threads, more than the 4096 lagmon reads per pass: the per-thread CPU table and its alerts cover the first 4096 by thread id only"
                )
            ])
    }

    @Test func aHealthyRecordingHasNoDiagnostics() {
        let recording = Fixture.recording(loops: [Self.anyLoop], lateness: Fixture.lateness(maxNs: 4 * Self.ms))
        #expect(diagnose(recording) == [])
    }
}
