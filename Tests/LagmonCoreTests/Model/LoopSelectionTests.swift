import Testing

@testable import LagmonCore

/// `--loops`: parsing, what `config.loops` says, and which threads each selection watches.
struct LoopSelectionTests {
    @Test(arguments: [
        ([String](), "auto"), (["auto"], "auto"), (["main"], "main"), (["all"], "all"), (["io-worker"], "io-worker"),
        (["main,io-worker"], "main,io-worker"), (["main", "io-worker", "io-worker"], "main,io-worker"),
        (["worker-*"], "worker-*"),
    ])
    func parsesAndStatesWhatWasAsked(values: [String], stated: String) throws {
        #expect(try LoopSelection.parse(values).description == stated)
    }

    @Test(arguments: [
        (["all,main"], "--loops all already watches every loop; give it alone"),
        (["all", "worker"], "--loops all already watches every loop; give it alone"),
        (["auto,main"], "--loops auto chooses the loops itself; give it alone"),
        (["all", "auto"], "--loops all already watches every loop; give it alone"),
        (["main,"], "empty loop name in --loops; use main, all or thread names"),
        (
            ["a-thread-name-of-20b"],
            "thread name 'a-thread-name-of-20b' in --loops is longer than the 15 bytes the kernel keeps; use its first 15 bytes, or end it with *"
        ),
    ])
    func rejectsWithTheFix(values: [String], message: String) {
        #expect(throws: LoopSelection.Invalid(description: message)) { try LoopSelection.parse(values) }
    }

    @Test func mainWatchesEachProcesssMainThreadOnly() {
        let main = LoopSelection.mainThreads
        #expect(main.matches(tid: 100, pid: 100, name: "app"))
        #expect(main.matches(tid: 200, pid: 200, name: "child"))
        #expect(!main.matches(tid: 101, pid: 100, name: "app"))
        #expect(!main.needsEveryThread)
    }

    @Test func autoWatchesTheMainLoopOrElseEveryLoop() {
        let auto = LoopSelection.automatic
        #expect(auto.needsEveryThread, "the probes must offer every thread's loop")
        #expect(auto.matches(tid: 100, pid: 100, name: "app", mainThreadHasLoop: true))
        #expect(!auto.matches(tid: 101, pid: 100, name: "NIO-ELT-0-#0", mainThreadHasLoop: true))
        #expect(auto.matches(tid: 101, pid: 100, name: "NIO-ELT-0-#0", mainThreadHasLoop: false))
        #expect(auto.matches(tid: 102, pid: 100, name: "main-actor", mainThreadHasLoop: false))
    }

    @Test func autoWatchesEveryLoopOfARuntimeThatRunsOnePerThread() {
        let auto = LoopSelection.automatic
        #expect(auto.matches(tid: 100, pid: 100, name: "node", mainThreadHasLoop: true, loopPerThread: true))
        #expect(auto.matches(tid: 107, pid: 100, name: "node", mainThreadHasLoop: true, loopPerThread: true))
        #expect(!auto.matches(tid: 107, pid: 100, name: "node", mainThreadHasLoop: true, loopPerThread: false))
        #expect(!LoopSelection.mainThreads.matches(tid: 107, pid: 100, name: "node", loopPerThread: true))
    }

    @Test func allWatchesEveryLoopThread() {
        #expect(LoopSelection.allThreads.matches(tid: 101, pid: 100, name: "anything"))
        #expect(LoopSelection.allThreads.needsEveryThread)
    }

    @Test func namesMatchWholeOrWithStars() throws {
        let selection = try LoopSelection.parse(["io-worker,pool-*-loop"])
        #expect(selection.needsEveryThread)
        #expect(selection.matches(tid: 101, pid: 100, name: "io-worker"))
        #expect(!selection.matches(tid: 101, pid: 100, name: "io-worker-2"))
        #expect(!selection.matches(tid: 100, pid: 100, name: "app"), "main is not implied by names")
        #expect(selection.matches(tid: 102, pid: 100, name: "pool-7-loop"))
        #expect(selection.matches(tid: 102, pid: 100, name: "pool--loop"))
        #expect(!selection.matches(tid: 102, pid: 100, name: "pool-7-loo"))
        let withMain = try LoopSelection.parse(["main", "io-worker"])
        #expect(withMain.matches(tid: 100, pid: 100, name: "app"))
        #expect(withMain.matches(tid: 101, pid: 100, name: "io-worker"))
    }

    @Test(arguments: [
        ("*", "", true), ("*", "x", true), ("a*", "a", true), ("a*", "ba", false), ("*a", "ba", true),
        ("a*b*c", "abc", true), ("a*b*c", "aXbYc", true), ("a*b*c", "acb", false), ("a**", "a", true),
        ("ab*ba", "aba", false), ("x", "x", true), ("x", "xx", false),
    ])
    func starMatchesAnyRun(pattern: String, text: String, matches: Bool) {
        #expect(LoopSelection.glob(pattern, matches: text) == matches)
    }
}
