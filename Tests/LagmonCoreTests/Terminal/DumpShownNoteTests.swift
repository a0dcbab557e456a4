import Testing

@testable import LagmonCore

/// `lagmon dump`'s line of shown threads says why threads are missing: `--all` not given, or the
/// limit of watched threads (and never suggests `--all` when it was given).
struct DumpShownNoteTests {
    static func dump(shown: Int, of total: Int, limit: Int?, all: Bool) -> ProcessDump {
        let thread = ThreadDump(
            tid: 1, name: "t", isMain: true, activity: .busy, schedulerState: "R", syscall: nil, descriptor: nil,
            wchan: nil, busyReadings: 0, readings: 0, cpuPct: 0, cpuTotalNs: 0, frames: [], unwind: nil, pauseNs: nil)
        var dump = ProcessDump(
            pid: 1, name: "p", command: ["p"], host: "h", takenAtUnixNs: 0, lookNs: 1,
            threads: Array(repeating: thread, count: shown),
            threadCount: total, stacksUnavailable: nil)
        dump.watchedThreadLimit = limit
        dump.allThreads = all
        return dump
    }

    @Test func theNoteSaysWhyThreadsAreMissing() {
        #expect(DumpTextWriter.shownNote(Self.dump(shown: 3, of: 3, limit: nil, all: false)) == "")
        #expect(
            DumpTextWriter.shownNote(Self.dump(shown: 2, of: 3, limit: nil, all: false))
                == " (--all shows every thread)")
        #expect(
            DumpTextWriter.shownNote(Self.dump(shown: 256, of: 5001, limit: 256, all: true))
                == " (at most 256 threads are watched)")
        #expect(
            DumpTextWriter.shownNote(Self.dump(shown: 4, of: 5001, limit: 256, all: false))
                == " (--all shows every thread; at most 256 threads are watched)")
    }
}
