import FoundationEssentials

/// The report as Trace Event Format JSON, for Perfetto (ui.perfetto.dev) and Chrome DevTools'
/// Performance panel: every stall is a complete (`X`) event on its thread's track, named after
/// its diagnosis, with its culprit and details as arguments, and the stalls' stack samples are
/// one CPU profile per thread (`P` events, TraceCPUProfile) on the same track, so the viewer
/// shows what ran at each moment of a stall; every long busy period of a loop (`longIterations`) is a complete
/// event too, category `iteration`; each thread's CPU use is a counter (`C`) track, CPU alerts
/// are instant (`i`) events. Times are microseconds since the program started. Events are
/// sorted, so the output is deterministic.
public struct ChromeTraceWriter: ReportWriter {
    public init() {}

    public func render(_ report: Report) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let trace = Trace(
            traceEvents: events(report), displayTimeUnit: "ms",
            otherData: [
                "tool": .string("lagmon \(report.tool.version)"),
                "command": .string(report.target.command.joined(separator: " ")),
                "startedAt": .string(report.target.startedAt),
                "thresholdNs": .int(Int64(clamping: report.config.thresholdNs)),
            ])
        return Array(try encoder.encode(trace)) + [UInt8(ascii: "\n")]
    }

    /// Every event of the trace: metadata first, then by time.
    public func events(_ report: Report) -> [TraceEvent] {
        let pid = report.target.pid
        var timed = report.stalls.map { stallEvent($0, pid: pid) }
        let byThread = Dictionary(grouping: report.stalls, by: \.thread.tid)
        for (tid, stalls) in byThread.sorted(by: { $0.key < $1.key }) {
            timed +=
                TraceCPUProfile(stalls: stalls.sorted { ($0.startNs, $0.id) < ($1.startNs, $1.id) }, pid: pid, tid: tid)
                .events
        }
        for loop in report.loops {
            timed += loop.longIterations.map { iterationEvent($0, thread: loop.thread, pid: pid) }
        }
        for thread in report.threads {
            timed += thread.cpuSeries.map { point in
                TraceEvent(
                    name: "CPU \(thread.name) [\(thread.tid)]", cat: "cpu", ph: "C", ts: Self.microseconds(point.atNs),
                    pid: pid, tid: thread.tid, args: ["pct": .double(point.pct)])
            }
            timed += thread.alerts.map { alert in
                TraceEvent(
                    name: "CPU alert", cat: "cpu", ph: "i", ts: Self.microseconds(alert.atNs), pid: pid,
                    tid: thread.tid,
                    s: "t",
                    args: ["cpuPct": .double(alert.cpuPct), "frame": .string(alert.frames.last?.displayName ?? "")])
            }
        }
        // A profile's `Profile` event sorts before its first `ProfileChunk`, as Perfetto needs.
        timed.sort { ($0.ts, $0.tid, $0.ph, $0.name, $0.id ?? "") < ($1.ts, $1.tid, $1.ph, $1.name, $1.id ?? "") }
        return metadata(report) + timed
    }

    /// Process and thread names, so tracks carry them.
    private func metadata(_ report: Report) -> [TraceEvent] {
        let pid = report.target.pid
        let command = report.target.command.first.map { PathText.lastComponent($0) } ?? "target"
        var names: [Int32: String] = [:]
        for thread in report.threads { names[thread.tid] = thread.name }
        for stall in report.stalls { names[stall.thread.tid] = stall.thread.name }
        for loop in report.loops { names[loop.thread.tid] = loop.thread.name }
        return [
            TraceEvent(
                name: "process_name", ph: "M", ts: 0, pid: pid, tid: pid, args: ["name": .string(command)])
        ]
            + names.sorted { $0.key < $1.key }.map { tid, name in
                TraceEvent(name: "thread_name", ph: "M", ts: 0, pid: pid, tid: tid, args: ["name": .string(name)])
            }
    }

    private func stallEvent(_ stall: StallReport, pid: Int32) -> TraceEvent {
        var args: [String: JSONValue] = [
            "id": .int(Int64(stall.id)), "activity": .string(stall.activity),
            "durationNs": .int(Int64(clamping: stall.durationNs)), "diagnosis": .string(stall.diagnosis.text),
            "kind": .string(stall.diagnosis.kind.rawValue), "samples": .int(Int64(stall.samples)),
            "ongoingAtExit": .bool(stall.ongoingAtExit),
        ]
        if let culprit = stall.culprit { args["culprit"] = .string("\(culprit.displayName) (\(culprit.module))") }
        if let fingerprint = stall.fingerprint { args["fingerprint"] = .string(fingerprint) }
        return TraceEvent(
            name: "stall #\(stall.id): \(stall.diagnosis.text)", cat: "stall", ph: "X",
            ts: Self.microseconds(stall.startNs), dur: Self.microseconds(stall.durationNs), pid: pid,
            tid: stall.thread.tid, args: args)
    }

    private func iterationEvent(_ iteration: LongIteration, thread: ThreadRef, pid: Int32) -> TraceEvent {
        TraceEvent(
            name: "long iteration", cat: "iteration", ph: "X", ts: Self.microseconds(iteration.startNs),
            dur: Self.microseconds(iteration.durationNs), pid: pid, tid: thread.tid,
            args: ["durationNs": .int(Int64(clamping: iteration.durationNs)), "endSeen": .bool(iteration.endSeen)])
    }

    /// Nanoseconds as the format's microseconds (fractional, exact to the nanosecond).
    static func microseconds(_ ns: UInt64) -> Double { Double(ns) / 1_000 }

    struct Trace: Encodable {
        var traceEvents: [TraceEvent]
        var displayTimeUnit: String
        var otherData: [String: JSONValue]
    }
}
