/// Measures, from a stall's samples, how much of it the thread spent waiting for a CPU and how
/// many major page faults it took (the /proc readings before each sample; pure).
public enum ContentionAnalyzer {
    /// The contention between the first and the last sample with a thread state; nil with
    /// fewer than two, or when they span no time.
    public static func analyze(_ samples: [StackSample]) -> ContentionReport? {
        let read = samples.filter { $0.state != nil }.sorted { $0.timestampNs < $1.timestampNs }
        guard let first = read.first, let last = read.last, let before = first.state, let after = last.state,
            last.timestampNs > first.timestampNs
        else { return nil }
        var report = ContentionReport(
            spanNs: last.timestampNs - first.timestampNs,
            runQueueNs: saturatingSubtract(after.runDelayNs, before.runDelayNs),
            onCPUNs: saturatingSubtract(after.onCPUNs, before.onCPUNs))
        if let faultsBefore = before.majorFaults, let faultsAfter = after.majorFaults {
            report.majorFaults = saturatingSubtract(faultsAfter, faultsBefore)
        }
        let thieves = samples.compactMap(\.busiestOthers).last
        if let thieves, !thieves.isEmpty { report.busiestOthers = thieves }
        return report
    }

    /// What the diagnosis line of a stall that waited (`runqueue`, `io`) adds: `; 62% of it in
    /// the run queue, busiest other: stress (pid 812) 290ms` for a thread kept off the CPU,
    /// `; 14 major page faults` for one that faulted. A `cpu` stall's line stays as it is (on a
    /// shared machine most have some run-queue time; the JSON has it).
    public static func suffix(_ report: ContentionReport, kind: StallDiagnosis.Kind) -> String {
        guard kind == .runqueue || kind == .io else { return "" }
        var parts: [String] = []
        if kind == .runqueue, report.runQueueShare >= 0.1 {
            var part = "\(Int((report.runQueueShare * 100).rounded()))% of it in the run queue"
            if let top = report.busiestOthers?.first {
                part += ", busiest other: \(top.name) (pid \(top.pid)) \(DurationText.format(nanoseconds: top.cpuNs))"
            }
            parts.append(part)
        }
        if let faults = report.majorFaults, faults > 0 {
            parts.append("\(faults) major page fault\(faults == 1 ? "" : "s")")
        }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }
}
