import ArgumentParser
import Glibc
import LagmonCore
import LagmonLinux

/// `lagmon dump [options] PID`
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show what a running process's loop threads are doing now: state, CPU and stack.",
        discussion: """
            One look, as py-spy dump does for Python: lagmon reads each thread's /proc state every \
            millisecond for --look (waiting in an event-loop wait call, busy in its own code, or \
            blocked in another call), measures its CPU over that time, then stops each shown \
            thread once, briefly, to take its stack (with Python frames where lagmon reads them), \
            and detaches: the process keeps running, untraced. Shown: the main thread, threads \
            seen waiting in an event-loop wait call, and threads busy in their own code; --all \
            shows every thread. --json prints the look as JSON (docs/dump.md). Needs ptrace \
            access, as attach does (docs/attach.md). Exit status: 0; 64 bad usage (including a \
            pid that is a thread); 125 lagmon failed; 126 the process may not be read \
            (permission denied); 127 no such process.
            """)

    @Argument(help: ArgumentHelp("The process to look at.", valueName: "pid"))
    var pid: Int32

    @Flag(name: .customLong("all"), help: "Show every thread, not only the loop threads.")
    var all = false

    @Flag(name: .customLong("json"), help: "Print the look as JSON (lagmon-dump/1, docs/dump.md) instead of text.")
    var json = false

    @Option(
        name: .customLong("look"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long to watch the threads' /proc state before taking their stacks (default: 100ms; 10ms to 10s).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var look = DurationArgument(nanoseconds: 100_000_000)

    @OptionGroup var color: ColorOptions

    func validate() throws {
        guard pid > 0 else { throw ValidationError("invalid pid \(pid): give the id of a running process") }
        guard (10_000_000...10_000_000_000).contains(look.nanoseconds) else {
            throw ValidationError("--look must be between 10ms and 10s")
        }
    }

    func run() throws {
        let target = try AttachTarget.resolve(pid: pid, thread: .main)
        let dump = try ProcessDumper(target: target, lookNs: look.nanoseconds, allThreads: all).take()
        let bytes =
            json
            ? try DumpJSONWriter.render(dump)
            : Array(DumpTextWriter(style: TerminalStyle(colors: color.colors(for: STDOUT_FILENO))).render(dump).utf8)
        try AtomicFile.writeAll(bytes, to: STDOUT_FILENO)
    }
}
