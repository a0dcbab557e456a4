import LagmonCore
import Testing

/// The summary lists stalls of one fingerprint once: their count, ids and durations, one
/// diagnosis and one stack; stalls of different code each get theirs, the most stall time first.
struct TerminalStallGroupTests {
    static let ms = Fixture.ms
    static let plain = TerminalSummaryWriter(style: TerminalStyle(colors: false))

    static func decodeStall(_ id: Int, _ durationMs: UInt64, text: String = "CPU-bound in ImageDecoder.decodeImage(_:)")
        -> StallReport
    {
        Fixture.stall(
            id: id, startNs: UInt64(id) * Fixture.second, durationNs: durationMs * ms,
            profile: TerminalSummaryWriterTests.profile(samples: 10, top: 8),
            diagnosis: StallDiagnosis(kind: .cpu, text: text))
    }

    @Test func sixStallsInOneFunctionAreOneEntry() {
        let stalls = [210, 250, 230, 405, 205, 276].enumerated().map {
            Self.decodeStall($0.offset + 1, UInt64($0.element))
        }
        let lines = Self.plain.lines(Fixture.report(stalls: stalls))
        #expect(
            Array(lines.dropFirst(3)) == [
                "6 stalls over 100ms (#1–#6) in afterWaiting, all in the same code: min 205ms · median 230ms · max 405ms, total 1.58s",
                "      CPU-bound in ImageDecoder.decodeImage(_:)",
                "      top stack (48 of 60 samples), innermost first:",
                "        ImageDecoder.decodeImage(_:) (ImageViewer, ImageDecoder.swift:42)",
                "        ImageListController.loadThumbnail(_:) (ImageViewer)",
                "        __CFRunLoopDoTimer (libCoreFoundation.so)",
                "        … 2 system frames",
                "        main (ImageViewer)",
                "        __libc_start_call_main (libc.so.6)",
            ])
    }

    @Test func distinctCodeLeadsByStallTimeAndDifferingDiagnosesShowTheLongest() {
        let read = Fixture.frame("read", "libc.so.6", offset: 0x11_4000)
        let other = Fixture.stall(
            id: 2, startNs: 2 * Fixture.second, durationNs: 150 * Self.ms,
            profile: StackProfile(
                samples: 3, stacks: [StackCount(count: 3, frames: [read].reversed())], stacksOmitted: 0, callTree: nil,
                culprit: read, fingerprint: StackFingerprint(frames: ["libc.so.6`read"])),
            diagnosis: StallDiagnosis(kind: .syscall, text: "blocked 150ms in read(fd 7 → pipe)"))
        let stalls = [
            Self.decodeStall(1, 120), other, Self.decodeStall(3, 140, text: "waiting for a CPU for 100ms"),
            Fixture.stall(id: 4, startNs: 4 * Fixture.second, durationNs: 300 * Self.ms),
        ]
        let lines = Self.plain.lines(Fixture.report(stalls: stalls)).filter { !$0.hasPrefix("        ") }
        #expect(
            Array(lines.dropFirst(3)) == [
                "4 stalls over 100ms: longest 300ms, total 710ms",
                "  2 stalls (#1, #3) in afterWaiting, all in the same code: 120ms, 140ms",
                "      longest (#3): waiting for a CPU for 100ms · culprit ImageDecoder.decodeImage(_:)",
                "      top stack (16 of 20 samples), innermost first:",
                "  #2 +2.000s 150ms in afterWaiting",
                "      blocked 150ms in read(fd 7 → pipe)",
                "      top stack (3 of 3 samples), innermost first:",
                "  #4 +4.000s 300ms in afterWaiting",
                "      no stack samples",
            ])
    }

    @Test func theCapCountsGroupsAndSaysHowManyStallsAreLeft() {
        let stalls = (1...4).map { id in
            Fixture.stall(
                id: id, startNs: UInt64(id) * Fixture.second, durationNs: 150 * Self.ms,
                profile: StackProfile(
                    samples: 1, stacks: [], stacksOmitted: 0, callTree: nil, culprit: nil,
                    fingerprint: StackFingerprint(frames: ["f\(id % 2)"])))
        }
        let lines = TerminalSummaryWriter(style: TerminalStyle(colors: false), stallLines: 1).lines(
            Fixture.report(stalls: stalls))
        #expect(lines.contains("  2 stalls (#1, #3) in afterWaiting, all in the same code: 150ms, 150ms"))
        #expect(lines.last == "  … and 2 more stalls (see --json)")
    }

    static func loop(tid: Int32, name: String, observer: String) -> LoopReport {
        LoopReport(
            thread: ThreadRef(tid: tid, name: name), pid: 4242, observer: observer, iterations: 10, transitions: 20,
            busyNs: 0, observedNs: Fixture.second,
            latency: LatencySummary(count: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0),
            stallCount: 1)
    }

    @Test func eachKindOfLoopIsDescribedInItsOwnWords() {
        let python = Fixture.frame("_PyEval_EvalFrameDefault", "libpython3.12.so.1.0", offset: 0x10)
        func stall(_ id: Int, tid: Int32, frames: [Frame] = []) -> StallReport {
            var stall = Fixture.stall(
                id: id, tid: tid, startNs: UInt64(id) * Fixture.second, durationNs: 200 * Self.ms,
                profile: frames.isEmpty
                    ? .empty
                    : StackProfile(
                        samples: 1, stacks: [StackCount(count: 1, frames: frames)], stacksOmitted: 0, callTree: nil,
                        culprit: nil, fingerprint: nil))
            stall.pid = 4242
            return stall
        }
        var actor = stall(4, tid: 7)
        actor.observer = LoopObserver.swiftMainActor
        let report = Fixture.report(
            loops: [
                Self.loop(tid: 4242, name: "app", observer: "cfrunloop"),
                Self.loop(tid: 5, name: "python3", observer: "waitcall"),
                Self.loop(tid: 6, name: "worker", observer: "waitcall"),
            ],
            stalls: [stall(1, tid: 4242), stall(2, tid: 5, frames: [python]), stall(3, tid: 6), actor])
        let stallLines = Self.plain.lines(report).filter { $0.hasPrefix("  #") }
        #expect(
            stallLines == [
                "  #1 +1.000s 200ms in afterWaiting on thread 4242 \"main\"",
                "  #2 +2.000s 200ms busy in a Python callback on thread 5 \"main\"",
                "  #3 +3.000s 200ms busy in a callback on thread 6 \"main\"",
                "  #4 +4.000s 200ms in a main-actor job on thread 7 \"main\"",
            ])
    }
}
