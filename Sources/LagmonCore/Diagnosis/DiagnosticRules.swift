/// Explains, as report diagnostics, whatever the numbers alone would leave unclear.
public enum DiagnosticRules {
    /// Lateness beyond this fraction of the threshold (or 5 ms, whichever is larger) is reported.
    static let latenessReportFraction: UInt64 = 10

    /// The diagnostics for `recording`, whose stalls are `stalls`.
    public static func diagnose(_ recording: SessionRecording, stalls: [StallReport]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if let missing = missingObserver(recording) { diagnostics.append(missing) }
        if let proc = procObserver(recording) { diagnostics.append(proc) }
        if let neverWaited = procLoopNeverWaited(recording) { diagnostics.append(neverWaited) }
        if let late = lateWatchdog(recording, stalls: stalls) { diagnostics.append(late) }
        if !recording.loops.isEmpty, recording.unwatchedLoops > 0 {
            let threads =
                recording.unwatchedLoops == 1 ? "1 other thread runs" : "\(recording.unwatchedLoops) other threads run"
            diagnostics.append(
                Diagnostic(
                    code: "unwatched-loops", severity: .info,
                    message:
                        "\(threads) an event loop that --loops \(recording.loopSelection) does not watch; add --loops all to see their stalls"
                ))
        }
        if let left = leftRunning(recording) { diagnostics.append(left) }
        if let invalid = invalidChannel(recording) { diagnostics.append(invalid) }
        let lost = recording.loops.map(\.stallRecordsLost).reduce(0, saturatingAdd)
        if lost > 0 {
            diagnostics.append(
                Diagnostic(
                    code: "stall-records-lost", severity: .warning,
                    message:
                        "\(lost) stall records were overwritten before lagmon read them; stall counts are a lower bound"
                ))
        }
        if recording.probe.slotsExhausted {
            diagnostics.append(
                Diagnostic(
                    code: "slots-exhausted", severity: .warning,
                    message: slotsExhaustedMessage(recording.probe)))
        }
        if let cap = recording.threadCap { diagnostics.append(threadsCapped(cap)) }
        for refusal in recording.privilegeRefusals {
            // A report the target's user may read holds nothing that user could not trace.
            diagnostics.append(
                Diagnostic(
                    code: "privileged-process", severity: .warning,
                    message: "\(refusal): lagmon samples only what the target's own user could trace"))
        }
        if let reason = recording.samplingUnavailable {
            // Once per session: the reason is the same for every stall.
            diagnostics.append(Diagnostic(code: "stacks-unavailable", severity: .warning, message: reason))
        }
        if let unreadable = unreadableFiles(recording.targetFileProblems) { diagnostics.append(unreadable) }
        return diagnostics
    }

    /// The per-thread CPU table left threads out (`threads-capped`).
    static func threadsCapped(_ cap: ThreadCap) -> Diagnostic {
        Diagnostic(
            code: "threads-capped", severity: .warning,
            message:
                "the program had up to \(cap.threadsSeen) threads, more than the \(cap.limit) lagmon reads per pass: "
                + "the per-thread CPU table and its alerts cover the first \(cap.limit) by thread id only")
    }

    /// The files a target named that lagmon could not read: native names, Python or JIT frames
    /// from them are missing (`target-files-unreadable`).
    public static func unreadableFiles(_ problems: [TargetFileProblem]) -> Diagnostic? {
        guard !problems.isEmpty else { return nil }
        let shown = problems.prefix(5).map(\.text).joined(separator: "; ")
        let more = problems.count > 5 ? "; and \(problems.count - 5) more" : ""
        return Diagnostic(
            code: "target-files-unreadable", severity: .warning,
            message:
                "lagmon could not read files the target names, so frames in them have no names (and Python or JIT frames may be missing): \(shown)\(more) (docs/attach.md#containers)"
        )
    }

    private static func missingObserver(_ recording: SessionRecording) -> Diagnostic? {
        guard recording.loops.isEmpty else { return nil }
        let probe = recording.probe
        let reason: String
        if let unavailable = recording.procProbe?.unavailable {
            reason = "\(recording.procProbe?.reason ?? "LD_PRELOAD cannot enter the target"), and \(unavailable)"
        } else if probe.versionMismatches > 0 {
            reason =
                "the probe in the target belongs to another lagmon version; rebuild lagmon and libLagmonPreload.so together"
        } else if probe.installFailed {
            reason = "CoreFoundation refused to create a run loop observer"
        } else if let unwatched = unwatchedLoops(recording) {
            reason = unwatched
        } else if probe.foundCoreFoundation {
            reason = "the target loaded CoreFoundation but never ran its main run loop"
        } else if probe.lacksCoreFoundation {
            let waiter = recording.loopSelection == "all" ? "no thread of the target" : "the target's main thread never"
            reason =
                "no event loop found: \(waiter) waited repeatedly in epoll, poll or select, and it runs no CoreFoundation run loop"
        } else if probe.preloadLoaded || probe.agentCalled {
            reason = "the target never waited in its main run loop"
        } else {
            reason = "the probe did not load in the target (static or setuid binary, or LD_PRELOAD removed)"
        }
        return Diagnostic(
            code: "no-observer", severity: .warning,
            message: "no observer attached: \(reason); no stalls can be reported\(unfollowed(recording))")
    }

    /// A hint when the target started processes lagmon did not follow (they may run the loops).
    private static func unfollowed(_ recording: SessionRecording) -> String {
        recording.unfollowedProcesses == 0
            ? "" : " (the target started child processes, which were not watched: add --follow-children)"
    }

    /// The target exited leaving loop-bearing descendants lagmon did not watch (`left-running`).
    private static func leftRunning(_ recording: SessionRecording) -> Diagnostic? {
        guard !recording.leftRunning.isEmpty else { return nil }
        let named = recording.leftRunning.prefix(5).map { "\($0.pid) (\($0.name))" }.joined(separator: ", ")
        let more = recording.leftRunning.count > 5 ? " and \(recording.leftRunning.count - 5) more" : ""
        let processes = recording.leftRunning.count == 1 ? "process" : "processes"
        return Diagnostic(
            code: "left-running", severity: .warning,
            message:
                "the target exited leaving \(processes) \(named)\(more) running with an event loop, which lagmon did not watch; add --follow-children to watch descendants until the last one ends"
        )
    }

    /// The slots-exhausted warning: how many loops went unobserved, and the capacity, when known.
    private static func slotsExhaustedMessage(_ probe: ProbeStatus) -> String {
        let capacity = probe.slotCapacity > 0 ? " (\(probe.slotCapacity))" : ""
        let missed =
            switch probe.refusedLoops {
            case 0: "some loops were"
            case 1: "1 loop was"
            default: "\(probe.refusedLoops) loops were"
            }
        return "the target has more loops than the channel can hold\(capacity); \(missed) not observed"
    }

    /// Loops that ran but were left out by `--loops`.
    private static func unwatchedLoops(_ recording: SessionRecording) -> String? {
        if !recording.unselectedLoopNames.isEmpty {
            let names = recording.unselectedLoopNames.prefix(5).map { "'\($0)'" }.joined(separator: ", ")
            return "no loop thread matched --loops \(recording.loopSelection) (loop threads seen: \(names))"
        }
        guard recording.unwatchedLoops > 0 else { return nil }
        let threads =
            recording.unwatchedLoops == 1 ? "1 other thread does" : "\(recording.unwatchedLoops) other threads do"
        return "the main thread runs no event loop, but \(threads); watch them with --loops all"
    }

    private static func lateWatchdog(_ recording: SessionRecording, stalls: [StallReport]) -> Diagnostic? {
        let lateness = recording.lateness
        let bound = max(5_000_000, recording.thresholdNs / latenessReportFraction)
        guard lateness.maxNs > bound else { return nil }
        let unseen =
            stalls.filter { !$0.seenLive }.count + recording.loops.reduce(0) { $0 + $1.foldedStalls.unseenCount }
        let worst = DurationText.format(nanoseconds: lateness.maxNs)
        if recording.procProbe != nil {
            return Diagnostic(
                code: "watchdog-late", severity: .info,
                message:
                    "lagmon's /proc readings were up to \(worst) late (\(lateness.lateWakeups) of \(lateness.wakeups)); the machine or lagmon was busy, not the target. Stall times watched from /proc are only as exact as the readings around them (loops[].timingErrorNs)"
            )
        }
        var message =
            "lagmon's watchdog woke up to \(worst) late (\(lateness.lateWakeups) of \(lateness.wakeups) wake-ups); the machine or lagmon was busy, not the target. Stall timings come from the target's own clock and are unaffected"
        if recording.loops.contains(where: { $0.observer == LoopObserver.swiftPool }) {
            // Pool jobs are timed by lagmon's tick (SwiftJobTicker), whose wake-ups are counted here.
            message +=
                "; stalls on Swift's cooperative pool start at lagmon's tick, so their starts may be early by as much"
        }
        if unseen > 0 { message += "; \(unseen) stalls were only known after they ended" }
        return Diagnostic(code: "watchdog-late", severity: .info, message: message)
    }

    /// Loops watched from /proc: say so, how often, and how exact their times are.
    private static func procObserver(_ recording: SessionRecording) -> Diagnostic? {
        guard let settings = recording.procProbe,
            let loop = recording.loops.first(where: { $0.observer == ProcLoopProbe.observerName })
        else { return nil }
        let interval = DurationText.format(nanoseconds: settings.intervalNs)
        let error = DurationText.format(nanoseconds: loop.timingErrorNs ?? settings.intervalNs / 2)
        return Diagnostic(
            code: "proc-observer", severity: .info,
            message:
                "\(settings.reason), so the loop on thread \(loop.thread.tid) was watched from /proc every \(interval): stall starts and ends are within \(error); a loop that never sleeps in a wait call counts as busy (docs/attach.md)"
        )
    }

    /// A /proc-watched thread never seen in a wait call may run no event loop at all: its one
    /// long "stall" may be how it normally waits (a futex, a read).
    private static func procLoopNeverWaited(_ recording: SessionRecording) -> Diagnostic? {
        guard
            let loop = recording.loops.first(where: {
                $0.observer == ProcLoopProbe.observerName && $0.transitions == 0
                    && $0.lastSnapshot.activity == .afterWaiting
            })
        else { return nil }
        return Diagnostic(
            code: "no-wait-call", severity: .warning,
            message:
                "thread \(loop.thread.tid) was never seen in an event-loop wait call (epoll_wait, poll, select and their variants): if it runs no event loop, or waits in another call, its stall is how it normally waits; watch the loop's thread (lagmon attach --thread)"
        )
    }

    /// The target wrote what no probe would: a loop or process naming a process outside the
    /// session, or impossible numbers.
    private static func invalidChannel(_ recording: SessionRecording) -> Diagnostic? {
        let entries = recording.channelRejectedEntries
        let values = recording.channelRejectedValues
        guard entries > 0 || values > 0 else { return nil }
        var parts: [String] = []
        if entries > 0 {
            parts.append("\(entries) \(entries == 1 ? "entry" : "entries") naming a process outside the session")
        }
        if values > 0 { parts.append("\(values) impossible \(values == 1 ? "value" : "values")") }
        return Diagnostic(
            code: "channel-invalid", severity: .warning,
            message:
                "the target wrote into lagmon's channel what no probe would (\(parts.joined(separator: ", "))); lagmon ignored them, but the target's own numbers may be wrong"
        )
    }
}
