/// Measures, from a stall's samples, how much of it the thread spent waiting for a CPU and how
/// many major page faults it took (the /proc readings before each sample; pure).
public enum ContentionAnalyzer {
    /// The contention over the stall: from the busy period's opening reading (when its first
    /// sample was asked for, before any stop) to its closing one (when it ended), both set on its
    /// first sample; where either is missing, the first and the last sample with a thread state
    /// stand in. Nil when no two readings span any time.
    public static func analyze(_ samples: [StackSample]) -> ContentionReport? {
        let read = samples.compactMap { sample in
            sample.state.map { TimedThreadState(timestampNs: sample.timestampNs, state: $0) }
        }
        .sorted { $0.timestampNs < $1.timestampNs }
        let opening = samples.lazy.compactMap(\.openingState).first
        let closing = samples.lazy.compactMap(\.closingState).first
        guard let first = opening ?? read.first, let last = closing ?? read.last,
            last.timestampNs > first.timestampNs
        else { return nil }
        let before = first.state
        let after = last.state
        var report = ContentionReport(
            spanNs: last.timestampNs - first.timestampNs,
            runQueueNs: saturatingSubtract(after.runDelayNs, before.runDelayNs),
            onCPUNs: saturatingSubtract(after.onCPUNs, before.onCPUNs))
        if let faultsBefore = before.majorFaults, let faultsAfter = after.majorFaults {
            report.majorFaults = saturatingSubtract(faultsAfter, faultsBefore)
        }
        let thieves = samples.compactMap(\.busiestOthers).last
        if let thieves, !thieves.isEmpty { report.busiestOthers = thieves }
        if let sites = samples.compactMap(\.majorFaultSites).first { report.addSites(sites) }
        return report
    }

    /// What the diagnosis line of a stall that waited (`runqueue`, `io`) adds: `; 62% of it in
    /// the run queue, busiest other: stress (pid 812) 290ms` for a thread kept off the CPU,
    /// `; 14 major page faults` for one that faulted, `; 312 major page faults, 96% in
    /// /var/lib/app/index.db` when one file took at least half of them. A `cpu` stall's line
    /// names only such a file (on a shared machine most have some run-queue time and a fault or
    /// two; the JSON has them).
    public static func suffix(_ report: ContentionReport, kind: StallDiagnosis.Kind) -> String {
        if kind == .cpu, let part = dominantFile(report) { return "; " + part }
        guard kind == .runqueue || kind == .io else { return "" }
        var parts: [String] = []
        if kind == .runqueue, report.runQueueShare >= 0.1 {
            var part = "\(Int((report.runQueueShare * 100).rounded()))% of it in the run queue"
            if let top = report.busiestOthers?.first {
                part += ", busiest other: \(top.name) (pid \(top.pid)) \(DurationText.format(nanoseconds: top.cpuNs))"
            }
            parts.append(part)
        }
        if let part = dominantFile(report) {
            parts.append(part)
        } else if let faults = report.majorFaults, faults > 0 {
            let unmeasured = report.majorFaultFilesUnavailable.map { " (files not measured: \($0))" } ?? ""
            parts.append(faultCount(faults) + unmeasured)
        }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }

    /// `312 major page faults, 96% in /var/lib/app/index.db` when one file took at least half of
    /// the recorded faults; nil otherwise.
    static func dominantFile(_ report: ContentionReport) -> String? {
        guard let recorded = report.majorFaultsRecorded, recorded > 0, let top = report.majorFaultFiles?.first,
            top.faults * 2 >= recorded
        else { return nil }
        let percent = Int((Double(top.faults) * 100 / Double(recorded)).rounded(.down))
        return faultCount(recorded) + ", \(percent)% in \(top.path)"
    }

    private static func faultCount(_ faults: UInt64) -> String {
        "\(faults) major page fault\(faults == 1 ? "" : "s")"
    }
}

extension ContentionReport {
    /// Takes in where the faults landed (or why that is unknown).
    mutating func addSites(_ sites: MajorFaultSites) {
        if let reason = sites.unavailable {
            majorFaultFilesUnavailable = reason
            return
        }
        majorFaultsRecorded = sites.recorded
        if !sites.files.isEmpty { majorFaultFiles = Array(sites.files.prefix(3)) }
    }
}
