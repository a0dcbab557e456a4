/// Where a loop was stuck, in the words of its kind of loop: CoreFoundation's activity names for
/// a run loop (`in afterWaiting`, `in beforeSources`), plain words for the others. A loop watched
/// at its wait calls (asyncio, libuv, GLib, epoll) or from /proc runs callbacks between two
/// waits: `busy in a callback`, `busy in a Python callback` when its stacks show Python (a node
/// loop's, JavaScript). Swift's main actor and pool run jobs.
enum StallActivityText {
    /// The words for `stall`, read off its loop in `report` and its stacks.
    static func text(_ stall: StallReport, in report: Report) -> String {
        switch observer(of: stall, in: report) {
        case "waitcall", ProcLoopProbe.observerName:
            runtime(of: stall, in: report).map { "busy in a \($0) callback" } ?? "busy in a callback"
        case LoopObserver.swiftMainActor: "in a main-actor job"
        case LoopObserver.swiftPool: "in a job on the cooperative pool"
        case LoopObserver.tokioWorker: "in a task on a tokio worker"
        // A run loop, or a loop the report does not describe: the activity's own name.
        default: "in \(TerminalSummaryWriter.printable(stall.activity))"
        }
    }

    /// The observer of the stall's loop: the stall's own (Swift jobs), else its thread's loop's.
    private static func observer(of stall: StallReport, in report: Report) -> String? {
        if let observer = stall.observer { return observer }
        return report.loops.first { loop in
            loop.thread.tid == stall.thread.tid && stall.pid.map { $0 == loop.pid } != false
        }?.observer
    }

    /// `Python` or `JavaScript` when a stall of the same thread sampled that runtime's frames or
    /// its library (`libpython3.12.so`, `node`); nil when none did.
    private static func runtime(of stall: StallReport, in report: Report) -> String? {
        let thread = report.stalls.filter { $0.thread.tid == stall.thread.tid && $0.pid == stall.pid }
        for frame in thread.lazy.flatMap({ $0.stacks.lazy.flatMap(\.frames) }) {
            if frame.runtime == .python || frame.module.hasPrefix("libpython") { return "Python" }
            if frame.runtime == .javascript || frame.module == "node" || frame.module.hasPrefix("libnode.") {
                return "JavaScript"
            }
        }
        return nil
    }
}
