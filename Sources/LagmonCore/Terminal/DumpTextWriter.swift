/// `lagmon dump`'s text for people: a line about the process, then per thread a line with what
/// it is doing (waiting in which call, busy, blocked) and its CPU, and its whole stack, innermost
/// first, application frames bold (with colour) and system frames dim.
public struct DumpTextWriter: Sendable {
    public var style: TerminalStyle

    public init(style: TerminalStyle) {
        self.style = style
    }

    /// Why not every thread is shown: `--all` not given, or the watch limit.
    static func shownNote(_ dump: ProcessDump) -> String {
        guard dump.threads.count < dump.threadCount else { return "" }
        let limit = dump.watchedThreadLimit.map { "at most \($0) threads are watched" }
        if dump.allThreads == true { return limit.map { " (\($0))" } ?? "" }
        return " (--all shows every thread" + (limit.map { "; \($0)" } ?? "") + ")"
    }

    public func render(_ dump: ProcessDump) -> String {
        var lines = [
            "Process \(dump.pid) (\(TerminalSummaryWriter.printable(dump.name))): \(TerminalSummaryWriter.printable(dump.command.joined(separator: " ")))",
            "Looked for \(DurationText.format(nanoseconds: dump.lookNs)): \(dump.threads.count) of \(dump.threadCount) threads shown"
                + Self.shownNote(dump),
        ]
        if let reason = dump.stacksUnavailable { lines.append(style.yellow("no stacks: \(reason)")) }
        for problem in dump.unreadableFiles ?? [] {
            lines.append(style.yellow("unreadable: \(TerminalSummaryWriter.printable(problem.text))"))
        }
        let detail = TerminalStallDetail(style: style)
        for thread in dump.threads {
            lines.append("")
            lines.append(style.bold(headline(thread, lookNs: dump.lookNs)))
            if thread.frames.isEmpty && dump.stacksUnavailable == nil {
                lines.append("    (no stack: the thread could not be stopped or read)")
            }
            lines += thread.frames.map { "    " + detail.frameLine($0) }
            if thread.unwind == .truncated { lines.append(style.dim("    … deeper frames not read")) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Thread 4242 "main" (main): waiting in epoll_wait · CPU 0% of the look, 1.20s in all`.
    func headline(_ thread: ThreadDump, lookNs: UInt64) -> String {
        let main = thread.isMain ? " (main)" : ""
        let cpu =
            "CPU \(DurationText.fixed(thread.cpuPct, digits: 0))% of the look, \(DurationText.format(nanoseconds: thread.cpuTotalNs)) in all"
        return
            "Thread \(thread.tid) \"\(TerminalSummaryWriter.printable(thread.name))\"\(main): \(state(thread, lookNs: lookNs)) · \(cpu)"
    }

    /// What the thread is doing, in words; a thread out of a loop wait at every reading of the
    /// look has been busy at least that long.
    func state(_ thread: ThreadDump, lookNs: UInt64) -> String {
        let call = thread.syscall ?? "?"
        let on = thread.descriptor.map { " on \(TerminalSummaryWriter.printable($0))" } ?? ""
        var look =
            thread.readings == 0
            ? "" : ", out of a loop wait in \(thread.busyReadings) of \(thread.readings) /proc readings during the look"
        if thread.readings > 0 && thread.busyReadings == thread.readings && thread.activity == .busy {
            look = ", busy for at least \(DurationText.format(nanoseconds: lookNs)) (every /proc reading of the look)"
        }
        switch thread.activity {
        case .waiting: return "waiting in \(call)\(on) (idle in its event loop)\(look)"
        case .busy: return "busy, running its own code (state \(thread.schedulerState))\(look)"
        case .blocked:
            let kernel = thread.wchan.map { " (kernel: \(TerminalSummaryWriter.printable($0)))" } ?? ""
            return "blocked in \(call)\(on)\(kernel)"
        case .stopped: return "stopped (state \(thread.schedulerState))"
        case .gone: return "gone before it could be read"
        }
    }
}
