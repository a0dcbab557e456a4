import Testing

@testable import LagmonCore

/// The stall detector driven as a state machine: every `nowNs` is supplied by hand, so each
/// look happens at exactly the instant the test names.
struct StallDetectorTests {
    static let threshold: UInt64 = 100_000_000
    static let poll: UInt64 = 10_000_000
    static let since: UInt64 = 5_000_000_000

    private func detector(
        armLeadNs: UInt64 = 0, parkAfterIdleNs: UInt64 = 250_000_000, parkTimeoutNs: UInt64 = 1_000_000_000
    ) -> StallDetector {
        StallDetector(
            configuration: .init(
                thresholdNs: Self.threshold, stalledPollNs: Self.poll, armLeadNs: armLeadNs,
                parkAfterIdleNs: parkAfterIdleNs, parkTimeoutNs: parkTimeoutNs))
    }

    private func busy(_ activity: LoopActivity = .beforeSources, since: UInt64 = since) -> LoopSnapshot {
        LoopSnapshot(activity: activity, sinceNs: since)
    }

    // MARK: Threshold boundaries

    @Test(arguments: [LoopActivity.beforeSources, .afterWaiting])
    func exactlyAtThresholdIsNotAStall(activity: LoopActivity) {
        var detector = detector()
        let look = detector.observe(busy(activity), nowNs: Self.since + Self.threshold)
        #expect(look.events == [])
        #expect(look.wake == .at(Self.since + Self.threshold + 1))
        #expect(detector.current == nil)
    }

    @Test(arguments: [LoopActivity.beforeSources, .afterWaiting])
    func oneNanosecondPastThresholdBegins(activity: LoopActivity) {
        var detector = detector()
        let now = Self.since + Self.threshold + 1
        let look = detector.observe(busy(activity), nowNs: now)
        let stall = StallDetector.LiveStall(startNs: Self.since, activity: activity, noticedNs: now)
        #expect(look.events == [.began(stall)])
        #expect(look.wake == .at(now + Self.poll))
        #expect(detector.current == stall)
    }

    /// Under a threshold shorter than the poll interval, a stall is looked at again within a
    /// threshold: the look after it ends then comes before the next stall could begin and end (a
    /// 2 ms threshold polled every 10 ms missed every other 4 ms stall of a loop idle 4 ms
    /// between them), and the next stall, shorter than the poll interval, is still seen.
    @Test func aStallIsLookedAtAgainWithinAThresholdShorterThanThePoll() {
        let threshold: UInt64 = 2_000_000
        let periodNs: UInt64 = 4_000_000
        var detector = StallDetector(configuration: .init(thresholdNs: threshold, stalledPollNs: Self.poll))
        // Busy 4 ms from `since`, idle 4 ms, busy 4 ms, idle: what the loop shows at `nowNs`.
        func loop(at nowNs: UInt64) -> LoopSnapshot {
            let phase = (nowNs - Self.since) / periodNs
            let sinceNs = Self.since + phase * periodNs
            return phase.isMultiple(of: 2) && phase < 4
                ? busy(.afterWaiting, since: sinceNs) : LoopSnapshot(activity: .beforeWaiting, sinceNs: sinceNs)
        }
        // The watchdog looks where the detector asks, starting just past the first threshold.
        var nowNs = Self.since + threshold + 100_000
        var began: [UInt64] = []
        while nowNs < Self.since + 4 * periodNs {
            let look = detector.observe(loop(at: nowNs), nowNs: nowNs)
            for case .began(let stall) in look.events { began.append(stall.startNs) }
            guard case .at(let next) = look.wake else { break }
            nowNs = next
        }
        #expect(began == [Self.since, Self.since + 2 * periodNs], "stalls seen: \(began)")
    }

    @Test func stallStartIsTheSnapshotTransitionNotTheMomentNoticed() {
        var detector = detector()
        // The watchdog looks for the first time three thresholds late.
        let now = Self.since + 3 * Self.threshold + 17
        let look = detector.observe(busy(.afterWaiting), nowNs: now)
        #expect(look.events == [.began(.init(startNs: Self.since, activity: .afterWaiting, noticedNs: now))])
    }

    // MARK: Lifecycle

    @Test func beganThenContinuingThenEndedWhenTheSnapshotChanges() {
        var detector = detector()
        let began = Self.since + Self.threshold + 1
        let stall = StallDetector.LiveStall(startNs: Self.since, activity: .beforeSources, noticedNs: began)

        #expect(detector.observe(busy(), nowNs: began).events == [.began(stall)])

        let second = detector.observe(busy(), nowNs: began + Self.poll)
        #expect(second.events == [.continuing(stall)])
        #expect(second.wake == .at(began + 2 * Self.poll))

        let third = detector.observe(busy(), nowNs: began + 2 * Self.poll)
        #expect(third.events == [.continuing(stall)])

        // The loop went to sleep 130 ms after the stall began; the watchdog sees it later.
        let sleptAt = Self.since + 130_000_000
        let now = began + 3 * Self.poll
        let fourth = detector.observe(LoopSnapshot(activity: .beforeWaiting, sinceNs: sleptAt), nowNs: now)
        #expect(fourth.events == [.ended(stall, endedByNs: sleptAt)])
        #expect(fourth.wake == .at(now + Self.threshold))
        #expect(detector.current == nil)

        let fifth = detector.observe(LoopSnapshot(activity: .beforeWaiting, sinceNs: sleptAt), nowNs: now + 1)
        #expect(fifth.events == [])
    }

    @Test func sameActivityWithANewTransitionEndsTheStall() {
        var detector = detector()
        let began = Self.since + Self.threshold + 1
        _ = detector.observe(busy(.afterWaiting), nowNs: began)
        // Another after-waiting period started; its age is below the threshold.
        let next = busy(.afterWaiting, since: Self.since + 150_000_000)
        let look = detector.observe(next, nowNs: Self.since + 160_000_000)
        let stall = StallDetector.LiveStall(startNs: Self.since, activity: .afterWaiting, noticedNs: began)
        #expect(look.events == [.ended(stall, endedByNs: Self.since + 150_000_000)])
        #expect(look.wake == .at(Self.since + 150_000_000 + Self.threshold + 1))
    }

    @Test func aStallEndingIntoAnotherStallReportsBothInOrder() {
        var detector = detector()
        let began = Self.since + Self.threshold + 1
        _ = detector.observe(busy(.beforeSources), nowNs: began)
        // The watchdog missed everything between: the loop is stuck again, long enough.
        let nextSince = Self.since + 200_000_000
        let now = nextSince + Self.threshold + 5
        let look = detector.observe(busy(.afterWaiting, since: nextSince), nowNs: now)
        #expect(
            look.events == [
                .ended(.init(startNs: Self.since, activity: .beforeSources, noticedNs: began), endedByNs: nextSince),
                .began(.init(startNs: nextSince, activity: .afterWaiting, noticedNs: now)),
            ])
    }

    @Test func aLoopIteratingConstantlyNeverStalls() {
        var detector = detector()
        var now: UInt64 = Self.since
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        for look in 0..<10_000 {
            // Each look finds a transition made at most one threshold ago.
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let age = (seed >> 33) % (Self.threshold + 1)
            let activity: LoopActivity = look.isMultiple(of: 2) ? .beforeSources : .afterWaiting
            let result = detector.observe(LoopSnapshot(activity: activity, sinceNs: now - age), nowNs: now)
            #expect(result.events == [])
            #expect(result.wake == .at(now - age + Self.threshold + 1))
            guard case .at(let next) = result.wake else { return }
            now = next
        }
        #expect(detector.current == nil)
    }

    // MARK: Wake deadlines

    @Test func busyWakeIsTheFirstInstantAStallCouldExist() {
        var detector = detector()
        #expect(detector.observe(busy(), nowNs: Self.since).wake == .at(Self.since + Self.threshold + 1))
        #expect(detector.observe(busy(), nowNs: Self.since + 42).wake == .at(Self.since + Self.threshold + 1))
        // A snapshot stamped after the watchdog's clock reading (age counts as zero).
        #expect(detector.observe(busy(), nowNs: Self.since - 3).wake == .at(Self.since + Self.threshold + 1))
    }

    @Test(arguments: [LoopActivity.entry, .beforeTimers])
    func transientActivitiesNeverStallAndWakeOneThresholdLater(activity: LoopActivity) {
        var detector = detector()
        let now = Self.since + 10 * Self.threshold
        let look = detector.observe(busy(activity), nowNs: now)
        #expect(look.events == [])
        #expect(look.wake == .at(now + Self.threshold))
    }

    // MARK: Idle and parking

    @Test(arguments: [LoopActivity.beforeWaiting, .exit, .none])
    func idleLoopWakesAfterAThresholdThenParks(activity: LoopActivity) {
        var detector = detector()
        let idle = LoopSnapshot(activity: activity, sinceNs: Self.since)
        let first = Self.since + 1_000

        #expect(detector.observe(idle, nowNs: first) == ([], .at(first + Self.threshold)))
        #expect(detector.observe(idle, nowNs: first + Self.threshold).wake == .at(first + 2 * Self.threshold))
        let justBefore = first + 250_000_000 - 1
        #expect(detector.observe(idle, nowNs: justBefore).wake == .at(justBefore + Self.threshold))
        let parkAt = first + 250_000_000
        #expect(detector.observe(idle, nowNs: parkAt) == ([], .parked(until: parkAt + 1_000_000_000)))
        // A housekeeping wake-up that finds nothing new parks again.
        let later = parkAt + 1_000_000_000
        #expect(detector.observe(idle, nowNs: later).wake == .parked(until: later + 1_000_000_000))
    }

    /// A Swift job slot's watchdog (nothing wakes it): idle for ever, it never parks, and it looks
    /// by the arming point (as every watchdog with a lead does while its loop idles), so a job
    /// that starts just after a look is armed on time.
    @Test func aWatchdogThatNeverParksLooksByTheArmingPoint() {
        var detector = detector(armLeadNs: Self.threshold / 2, parkAfterIdleNs: .max)
        let idle = LoopSnapshot(activity: .beforeWaiting, sinceNs: Self.since)
        let first = Self.since + 1_000
        #expect(detector.observe(idle, nowNs: first).wake == .at(first + Self.threshold / 2))
        let muchLater = first + 3_600_000_000_000
        #expect(detector.observe(idle, nowNs: muchLater).wake == .at(muchLater + Self.threshold / 2))
        // A job started 1 ns after the last look: the next look is its arming point exactly.
        let job = busy(.afterWaiting, since: muchLater + 1)
        let look = detector.observe(job, nowNs: muchLater + Self.threshold / 2 + 1)
        #expect(look.events == [.armed(startNs: muchLater + 1, activity: .afterWaiting)])
        // Without a lead, one threshold later, as for any idle loop.
        var plain = self.detector(parkAfterIdleNs: .max)
        #expect(plain.observe(idle, nowNs: muchLater).wake == .at(muchLater + Self.threshold))
    }

    /// A watchdog that parks also looks by the arming point while its loop idles too briefly to
    /// park (a timer-driven loop between stalls): a loop woken just after a look is armed at its
    /// arming point, not a whole threshold later, when half its samples' time was gone.
    @Test func anIdleLoopNotYetParkedIsLookedAtByTheArmingPoint() {
        var detector = detector(armLeadNs: Self.threshold / 2)
        let idle = LoopSnapshot(activity: .beforeWaiting, sinceNs: Self.since)
        let look = Self.since + 1_000
        #expect(detector.observe(idle, nowNs: look).wake == .at(look + Self.threshold / 2))
        let woken = busy(.afterWaiting, since: look + 1)
        let next = detector.observe(woken, nowNs: look + Self.threshold / 2)
        #expect(next.events.isEmpty)
        #expect(next.wake == .at(look + 1 + Self.threshold / 2))
        #expect(
            detector.observe(woken, nowNs: look + 1 + Self.threshold / 2).events == [
                .armed(startNs: look + 1, activity: .afterWaiting)
            ])
    }

    /// A Swift pool thread's exit is its slot's last word: its watchdog parks at once, with only
    /// the housekeeping wake-ups, instead of looking by the threshold for the rest of the session.
    @Test func aWatchdogThatNeverParksParksOnceItsLoopExited() {
        var detector = detector(armLeadNs: Self.threshold / 2, parkAfterIdleNs: .max)
        let exited = LoopSnapshot(activity: .exit, sinceNs: Self.since)
        #expect(detector.observe(exited, nowNs: Self.since + 1).wake == .parked(until: Self.since + 1 + 1_000_000_000))
        // Any other loop's exit (a CFRunLoop can be run again) parks only after the idle time.
        var other = self.detector()
        #expect(other.observe(exited, nowNs: Self.since + 1).wake == .at(Self.since + 1 + Self.threshold))
    }

    @Test func parkingCountsFromWhenTheIdleSnapshotWasFirstSeenNotFromItsTimestamp() {
        var detector = detector()
        // Asleep for a long time already, but this watchdog has only just looked.
        let idle = LoopSnapshot(activity: .beforeWaiting, sinceNs: 1_000)
        let now = Self.since
        #expect(detector.observe(idle, nowNs: now).wake == .at(now + Self.threshold))
    }

    @Test func aNewIdleSnapshotRestartsTheParkingClock() {
        var detector = detector()
        let first = LoopSnapshot(activity: .beforeWaiting, sinceNs: Self.since)
        _ = detector.observe(first, nowNs: Self.since)
        _ = detector.observe(first, nowNs: Self.since + 200_000_000)
        // The loop woke and went back to sleep between two looks.
        let second = LoopSnapshot(activity: .beforeWaiting, sinceNs: Self.since + 210_000_000)
        let now = Self.since + 300_000_000
        #expect(detector.observe(second, nowNs: now).wake == .at(now + Self.threshold))
        #expect(detector.observe(second, nowNs: now + 249_999_999).wake == .at(now + 249_999_999 + Self.threshold))
        #expect(detector.observe(second, nowNs: now + 250_000_000).wake == .parked(until: now + 1_250_000_000))
    }

    @Test(arguments: [LoopActivity.beforeSources, .entry])
    func aBusyLookBetweenIdleLooksRestartsTheParkingClock(busyActivity: LoopActivity) {
        var detector = detector()
        let idle = LoopSnapshot(activity: .beforeWaiting, sinceNs: Self.since)
        _ = detector.observe(idle, nowNs: Self.since)
        _ = detector.observe(busy(busyActivity, since: Self.since + 1), nowNs: Self.since + 2)
        // Even the very same idle snapshot seen again counts as new.
        let now = Self.since + 300_000_000
        #expect(detector.observe(idle, nowNs: now).wake == .at(now + Self.threshold))
    }

    // MARK: Arming ahead of the threshold

    @Test func armLeadIsClampedToTheThreshold() {
        let configuration = StallDetector.Configuration(thresholdNs: 50, armLeadNs: 80)
        #expect(configuration.armLeadNs == 50)
        #expect(StallDetector.Configuration(thresholdNs: 50, armLeadNs: 20).armLeadNs == 20)
    }

    @Test func armsAheadOfTheThresholdOnEveryLookThenBegins() {
        let lead: UInt64 = 20_000_000
        var detector = detector(armLeadNs: lead)
        let armAt = Self.since + Self.threshold - lead

        #expect(detector.observe(busy(), nowNs: Self.since + 1) == ([], .at(armAt)))
        #expect(detector.observe(busy(), nowNs: armAt - 1) == ([], .at(armAt)))

        let armed = detector.observe(busy(), nowNs: armAt)
        #expect(armed.events == [.armed(startNs: Self.since, activity: .beforeSources)])
        #expect(armed.wake == .at(armAt + Self.poll))

        // Every look while armed says so (each is a chance to sample the start of the stall).
        let stillArmed: [StallDetector.Event] = [.armed(startNs: Self.since, activity: .beforeSources)]
        #expect(detector.observe(busy(), nowNs: armAt + Self.poll) == (stillArmed, .at(Self.since + Self.threshold)))
        #expect(
            detector.observe(busy(), nowNs: Self.since + Self.threshold)
                == (stillArmed, .at(Self.since + Self.threshold + 1)))

        let now = Self.since + Self.threshold + 1
        let began = detector.observe(busy(), nowNs: now)
        #expect(began.events == [.began(.init(startNs: Self.since, activity: .beforeSources, noticedNs: now))])
        #expect(began.wake == .at(now + Self.poll))
    }

    @Test func anArmedLoopIsStillLookedAtTheInstantItsThresholdPasses() {
        // The lead is shorter than the poll: the look after arming must not skip the threshold,
        // or a stall just over it ends unseen.
        let lead: UInt64 = 2_000_000
        var detector = detector(armLeadNs: lead)
        let armAt = Self.since + Self.threshold - lead
        let armed = detector.observe(busy(), nowNs: armAt)
        #expect(armed.events == [.armed(startNs: Self.since, activity: .beforeSources)])
        #expect(armed.wake == .at(Self.since + Self.threshold + 1))
    }

    @Test func aLookLateEnoughSkipsArmingAndBegins() {
        var detector = detector(armLeadNs: 20_000_000)
        let now = Self.since + Self.threshold + 1
        #expect(
            detector.observe(busy(), nowNs: now).events == [
                .began(.init(startNs: Self.since, activity: .beforeSources, noticedNs: now))
            ])
    }

    @Test func eachNewStallingSnapshotArmsAgain() {
        let lead: UInt64 = 20_000_000
        var detector = detector(armLeadNs: lead)
        let armAge = Self.threshold - lead
        #expect(detector.observe(busy(), nowNs: Self.since + armAge).events.count == 1)
        // The loop moved on before the threshold and got stuck again.
        let nextSince = Self.since + 95_000_000
        let again = detector.observe(busy(.afterWaiting, since: nextSince), nowNs: nextSince + armAge)
        #expect(
            again.events == [
                .disarmed(startNs: Self.since), .armed(startNs: nextSince, activity: .afterWaiting),
            ])
        // An idle look in between disarms too: the same snapshot would arm again.
        let idle = detector.observe(
            LoopSnapshot(activity: .beforeWaiting, sinceNs: nextSince + 1), nowNs: nextSince + armAge + 1)
        #expect(idle.events == [.disarmed(startNs: nextSince)])
        let rearmed = detector.observe(busy(.afterWaiting, since: nextSince), nowNs: nextSince + armAge + 2)
        #expect(rearmed.events == [.armed(startNs: nextSince, activity: .afterWaiting)])
    }

    @Test func withoutALeadNothingIsEverArmed() {
        var detector = detector(armLeadNs: 0)
        for age: UInt64 in [0, 1, Self.threshold - 1, Self.threshold] {
            #expect(detector.observe(busy(), nowNs: Self.since + age).events == [])
        }
    }

    // MARK: Stalls open at exit

    @Test func stallOpenAtExitUsesTheSameStrictThreshold() throws {
        let detector = detector()
        let last = busy(.afterWaiting)
        #expect(detector.stallOpen(at: Self.since + Self.threshold, last: last) == nil)
        let open = try #require(detector.stallOpen(at: Self.since + Self.threshold + 1, last: last))
        #expect(open.startNs == Self.since)
        #expect(open.activity == .afterWaiting)
        let beforeSources = try #require(detector.stallOpen(at: Self.since + 10 * Self.threshold, last: busy()))
        #expect(beforeSources.startNs == Self.since)
        #expect(beforeSources.activity == .beforeSources)
    }

    @Test(arguments: [LoopActivity.none, .entry, .beforeTimers, .beforeWaiting, .exit])
    func onlyStallingActivitiesCanBeOpenAtExit(activity: LoopActivity) {
        let detector = detector()
        #expect(detector.stallOpen(at: Self.since + 100 * Self.threshold, last: busy(activity)) == nil)
    }

    @Test func stallOpenToleratesAnEndBeforeTheLastTransition() {
        let detector = detector()
        #expect(detector.stallOpen(at: Self.since - 1, last: busy()) == nil)
        #expect(detector.stallOpen(at: Self.since, last: busy()) == nil)
    }
}
