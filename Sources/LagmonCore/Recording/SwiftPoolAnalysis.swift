/// Computes a pool's width, its most threads blocked at once and the periods all of them were
/// blocked (starvation), from the pool threads' loops and their stalls: Swift's cooperative pool,
/// or the workers of tokio runtimes.
public enum SwiftPoolAnalysis {
    /// Whose pool: what the starvation diagnostic names and advises.
    public enum Pool: Sendable {
        case swift
        case tokio
    }

    /// One pool thread: when it was alive (its first job to its exit or the end), and its stalls
    /// (blocked periods), all on one clock.
    public struct PoolThread: Sendable, Equatable {
        public var aliveFromNs: UInt64
        public var aliveUntilNs: UInt64
        public var blocked: [(startNs: UInt64, endNs: UInt64)]

        public init(aliveFromNs: UInt64, aliveUntilNs: UInt64, blocked: [(startNs: UInt64, endNs: UInt64)]) {
            self.aliveFromNs = aliveFromNs
            self.aliveUntilNs = aliveUntilNs
            self.blocked = blocked
        }

        public static func == (a: PoolThread, b: PoolThread) -> Bool {
            a.aliveFromNs == b.aliveFromNs && a.aliveUntilNs == b.aliveUntilNs
                && a.blocked.elementsEqual(b.blocked) { $0.startNs == $1.startNs && $0.endNs == $1.endNs }
        }
    }

    /// All threads blocked for less than this is a hand-over between jobs, not starvation.
    public static let minimumStarvationNs: UInt64 = 1_000_000

    /// The pool's report, times made relative to `originNs`; nil when no pool thread ran a job.
    ///
    /// `startToleranceNs` is how early a stall's start may be (pool jobs start at lagmon's tick:
    /// `SwiftTick.startToleranceNs`). A start that early can make two threads' blocked periods overlap
    /// where one really followed the other, so the pool's all-blocked periods are read with that
    /// margin: two less than `startToleranceNs` apart are one (the gap may be only an early start),
    /// and one must last `minimumStarvationNs` more than it (a hand-over looks that much longer).
    /// Durations so err long, never short, as a stall's length does.
    public static func analyze(
        _ threads: [PoolThread], originNs: UInt64, startToleranceNs: UInt64 = 0
    ) -> SwiftPoolReport? {
        guard !threads.isEmpty else { return nil }
        // At least one: a thread ran a job (a hostile channel's pool threads can live no time at
        // all, and a width of 0 made every instant a starvation and the report invalid).
        let width = max(1, maxOverlap(threads.map { ($0.aliveFromNs, $0.aliveUntilNs) }))
        let blocked = threads.flatMap(\.blocked).map { ($0.startNs, $0.endNs) }
        let (allBlocked, maxBlocked) = allBlockedPeriods(blocked, width: width)
        let longEnough = saturatingAdd(minimumStarvationNs, startToleranceNs)
        let starvations = bridged(allBlocked, gapNs: startToleranceNs).filter { $0.1 - $0.0 >= longEnough }.map {
            PoolStarvation(startNs: saturatingSubtract($0.0, originNs), durationNs: $0.1 - $0.0)
        }
        return SwiftPoolReport(
            width: width, maxBlockedThreads: maxBlocked,
            starvedNs: starvations.map(\.durationNs).reduce(0, saturatingAdd), starvations: starvations)
    }

    /// The periods in which at least `width` of the `blocked` periods overlap, in order, and the
    /// most that ever overlapped.
    private static func allBlockedPeriods(_ blocked: [(UInt64, UInt64)], width: Int) -> ([(UInt64, UInt64)], Int) {
        var periods: [(UInt64, UInt64)] = []
        var maxBlocked = 0
        var count = 0
        var starvedSince: UInt64?
        // Ends sort before starts at the same instant: touching periods do not overlap.
        for (time, delta) in events(blocked) {
            count += delta
            maxBlocked = max(maxBlocked, count)
            if count >= width, starvedSince == nil {
                starvedSince = time
            } else if count < width, let since = starvedSince {
                periods.append((since, time))
                starvedSince = nil
            }
        }
        return (periods, maxBlocked)
    }

    /// `periods` (in order, apart) with those less than `gapNs` apart made one.
    private static func bridged(_ periods: [(UInt64, UInt64)], gapNs: UInt64) -> [(UInt64, UInt64)] {
        var joined: [(UInt64, UInt64)] = []
        for period in periods {
            if let last = joined.last, period.0 - last.1 < gapNs {
                joined[joined.count - 1].1 = period.1
            } else {
                joined.append(period)
            }
        }
        return joined
    }

    /// The diagnostic for a starved pool, if it was.
    public static func diagnostic(_ pool: SwiftPoolReport?, pool kind: Pool = .swift) -> Diagnostic? {
        guard let pool, let longest = pool.starvations.max(by: { $0.durationNs < $1.durationNs }) else { return nil }
        let member = kind == .swift ? "thread" : "worker"
        let threads = pool.width == 1 ? "its only \(member) was" : "all \(pool.width) of its \(member)s were"
        let times = pool.starvations.count == 1 ? "once" : "\(pool.starvations.count) times"
        let (name, advice) =
            kind == .swift
            ? ("Swift's cooperative pool", "a thread of its own, or a DispatchQueue")
            : ("tokio's worker pool", "spawn_blocking, or a thread of its own")
        return Diagnostic(
            code: "pool-starved", severity: .warning,
            message:
                "\(name) was starved \(times) (\(DurationText.format(nanoseconds: pool.starvedNs)) in all, the longest \(DurationText.format(nanoseconds: longest.durationNs)) from \(DurationText.format(nanoseconds: longest.startNs))): \(threads) blocked at once, so no other task could run; move blocking work off the pool (\(advice))"
        )
    }

    private static func maxOverlap(_ periods: [(UInt64, UInt64)]) -> Int {
        var count = 0
        var most = 0
        for (_, delta) in events(periods) {
            count += delta
            most = max(most, count)
        }
        return most
    }

    private static func events(_ periods: [(UInt64, UInt64)]) -> [(UInt64, Int)] {
        periods.flatMap { [($0.0, 1), ($0.1, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }
}
