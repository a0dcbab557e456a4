/// Turns successive per-thread CPU readings into CPU percentages, summaries and alerts. Pure:
/// every reading comes with the time it was taken, so tests drive it with a manual clock.
public struct ThreadCPUTracker: Sendable {
    /// What counts as busy, and how CPU ticks convert to time.
    public struct Configuration: Sendable, Equatable {
        /// Clock ticks per second of the stat file's CPU fields (`sysconf(_SC_CLK_TCK)`, 100).
        public var ticksPerSecond: UInt64
        /// When the target started (channel clock): alert times are reported relative to it.
        public var targetStartNs: UInt64
        /// CPU percentage of one core at or above which an interval counts as busy; nil: no alerts.
        public var alertPct: Double?
        /// Consecutive busy intervals that raise an alert.
        public var sustainIntervals: Int
        /// Minimum time between two alerts of the same thread.
        public var alertCooldownNs: UInt64

        public init(
            ticksPerSecond: UInt64, targetStartNs: UInt64, alertPct: Double? = nil, sustainIntervals: Int = 2,
            alertCooldownNs: UInt64 = 5_000_000_000
        ) {
            self.ticksPerSecond = max(ticksPerSecond, 1)
            self.targetStartNs = targetStartNs
            self.alertPct = alertPct
            self.sustainIntervals = max(sustainIntervals, 1)
            self.alertCooldownNs = alertCooldownNs
        }
    }

    /// What is known about one thread.
    struct Track: Sendable {
        var name: String
        var state: SchedulerState
        var lastTicks: UInt64
        var lastNs: UInt64
        /// Ticks and wall time over the intervals the thread was seen in.
        var totalTicks: UInt64 = 0
        var observedNs: UInt64 = 0
        var maxPct: Double = 0
        /// The current run of busy intervals, newest last, at most `sustainIntervals` long.
        var streak: [Interval] = []
        var lastAlertNs: UInt64?
        var alerts: [CPUAlert] = []
        /// CPU use over time, bounded.
        var series = CPUSeries()
        /// CPU use over the latest interval.
        var latestPct: Double?
    }

    /// One interval of one thread.
    struct Interval: Sendable, Equatable {
        var ticks: UInt64
        var wallNs: UInt64
    }

    public let configuration: Configuration
    private var tracks: [Int32: Track] = [:]

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The CPU use of thread `tid` over its latest interval; nil before its second reading.
    public func latestPct(of tid: Int32) -> Double? { tracks[tid]?.latestPct }

    /// Takes the readings of one pass at `atNs` (channel clock); returns the alerts it raised,
    /// by thread id. A thread's first reading only sets its starting point.
    public mutating func record(_ readings: [ThreadCPUReading], atNs: UInt64) -> [CPUAlertEvent] {
        var events: [CPUAlertEvent] = []
        for reading in readings {
            if let event = record(reading, atNs: atNs) { events.append(event) }
        }
        return events.sorted { $0.tid < $1.tid }
    }

    private mutating func record(_ reading: ThreadCPUReading, atNs: UInt64) -> CPUAlertEvent? {
        guard let index = tracks.index(forKey: reading.tid) else {
            tracks[reading.tid] = Track(
                name: reading.name, state: reading.state, lastTicks: reading.cpuTicks, lastNs: atNs)
            return nil
        }
        // Updated in place: a copy taken out would share the track's arrays with the dictionary's,
        // and the series' append would copy its whole buffer (up to 1200 intervals) for every
        // thread on every pass.
        let configuration = configuration
        return Self.update(&tracks.values[index], with: reading, atNs: atNs, configuration: configuration)
    }

    private static func update(
        _ track: inout Track, with reading: ThreadCPUReading, atNs: UInt64, configuration: Configuration
    ) -> CPUAlertEvent? {
        track.name = reading.name
        track.state = reading.state
        // Out-of-order times are ignored; fewer ticks than before means the tid was reused by a
        // new thread, whose CPU starts from here.
        guard atNs > track.lastNs else { return nil }
        guard reading.cpuTicks >= track.lastTicks else {
            track = Track(name: reading.name, state: reading.state, lastTicks: reading.cpuTicks, lastNs: atNs)
            return nil
        }
        let interval = Interval(ticks: reading.cpuTicks - track.lastTicks, wallNs: atNs - track.lastNs)
        track.lastTicks = reading.cpuTicks
        track.lastNs = atNs
        add(interval, to: &track, configuration: configuration)
        track.series.append(endNs: atNs, ticks: interval.ticks, wallNs: interval.wallNs)
        return alert(for: &track, tid: reading.tid, atNs: atNs, configuration: configuration)
    }

    private static func add(_ interval: Interval, to track: inout Track, configuration: Configuration) {
        track.totalTicks = track.totalTicks.addingSaturating(interval.ticks)
        track.observedNs = track.observedNs.addingSaturating(interval.wallNs)
        let pct = percent(
            ticks: Double(interval.ticks), wallNs: Double(interval.wallNs), ticksPerSecond: configuration.ticksPerSecond
        )
        track.maxPct = max(track.maxPct, pct)
        track.latestPct = pct
        if let alertPct = configuration.alertPct, pct >= alertPct {
            track.streak.append(interval)
            if track.streak.count > configuration.sustainIntervals { track.streak.removeFirst() }
        } else if !track.streak.isEmpty {
            track.streak.removeAll()
        }
    }

    /// An alert when the streak is long enough and the thread's cooldown has passed.
    private static func alert(
        for track: inout Track, tid: Int32, atNs: UInt64, configuration: Configuration
    ) -> CPUAlertEvent? {
        guard track.streak.count >= configuration.sustainIntervals else { return nil }
        if let last = track.lastAlertNs, atNs - last < configuration.alertCooldownNs { return nil }
        track.lastAlertNs = atNs
        let sinceStart = atNs > configuration.targetStartNs ? atNs - configuration.targetStartNs : 0
        let alert = CPUAlert(
            atNs: sinceStart, cpuPct: percent(track.streak, ticksPerSecond: configuration.ticksPerSecond), frames: [])
        track.alerts.append(alert)
        return CPUAlertEvent(tid: tid, name: track.name, atNs: atNs, alert: alert)
    }

    /// CPU time over wall time of `intervals`, in percent of one core.
    private static func percent(_ intervals: [Interval], ticksPerSecond: UInt64) -> Double {
        let wallNs = intervals.reduce(0.0) { $0 + Double($1.wallNs) }
        let ticks = intervals.reduce(0.0) { $0 + Double($1.ticks) }
        return percent(ticks: ticks, wallNs: wallNs, ticksPerSecond: ticksPerSecond)
    }

    /// `ticks` of CPU time over `wallNs`, in percent of one core.
    private static func percent(ticks: Double, wallNs: Double, ticksPerSecond: UInt64) -> Double {
        guard wallNs > 0 else { return 0 }
        // One division of two exact products: 7 ticks in 100 ms is exactly 70, not 70.000…01.
        return ticks * 1e11 / (Double(ticksPerSecond) * wallNs)
    }

    /// One report per thread seen, busiest (most CPU time) first, ties by tid. Alerts take
    /// their frames from `alertStacks`: an alert given there for the same thread and `atNs`
    /// replaces the tracker's frameless one.
    public func reports(alertStacks: [Int32: [CPUAlert]] = [:]) -> [ThreadReport] {
        tracks.map { tid, track in
            let stacked = alertStacks[tid] ?? []
            let alerts = track.alerts.map { alert in stacked.first { $0.atNs == alert.atNs } ?? alert }
            return ThreadReport(
                tid: tid, name: track.name, state: track.state.rawValue, cpu: cpu(track), alerts: alerts,
                cpuSeries: track.series.points(
                    originNs: configuration.targetStartNs, ticksPerSecond: configuration.ticksPerSecond))
        }
        .sorted { ($0.cpu.totalNs, $1.tid) > ($1.cpu.totalNs, $0.tid) }
    }

    /// The summary of one thread: the average is CPU time over observed wall time, so intervals
    /// stretched by a late sampler weigh by their length.
    private func cpu(_ track: Track) -> ThreadCPU {
        let perSecond = configuration.ticksPerSecond
        let wholeNs = (track.totalTicks / perSecond).multipliedSaturating(by: 1_000_000_000)
        let totalNs = wholeNs.addingSaturating(track.totalTicks % perSecond * 1_000_000_000 / perSecond)
        let avgPct = Self.percent(
            ticks: Double(track.totalTicks), wallNs: Double(track.observedNs), ticksPerSecond: perSecond)
        return ThreadCPU(avgPct: avgPct, maxPct: track.maxPct, totalNs: totalNs)
    }
}

extension UInt64 {
    fileprivate func addingSaturating(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    fileprivate func multipliedSaturating(by other: UInt64) -> UInt64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}
