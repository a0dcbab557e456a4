import LagmonCore
import Testing

struct TerminalSummaryWriterTests {
    static let ms = Fixture.ms
    static let plain = TerminalSummaryWriter(style: TerminalStyle(colors: false))
    static let colored = TerminalSummaryWriter(style: TerminalStyle(colors: true))

    static let threeStalls = [
        Fixture.stall(id: 1, startNs: 500 * ms, durationNs: 200 * ms, activity: .afterWaiting),
        Fixture.stall(id: 2, startNs: 1_234_567_890, durationNs: 150 * ms, activity: .beforeSources),
        Fixture.stall(
            id: 3, startNs: 4_700 * ms, durationNs: 300 * ms, activity: .beforeSources, ongoingAtExit: true),
    ]

    private func text(_ writer: TerminalSummaryWriter, _ report: Report) throws -> String {
        String(decoding: try writer.render(report), as: UTF8.self)
    }

    @Test func summaryLinesReadAsExpected() {
        let report = Fixture.report(
            stalls: Self.threeStalls,
            diagnostics: [
                Diagnostic(code: "watchdog-late", severity: .info, message: "late, but fine"),
                Diagnostic(code: "stall-records-lost", severity: .warning, message: "records lost"),
            ])
        #expect(
            Self.plain.lines(report) == [
                "ImageViewer (pid 4242) exited with status 0 after 5.00s",
                "cfrunloop loop on thread 4242 \"ImageViewer\": 1200 iterations, busy 25.0% of 5.00s",
                "  busy periods: 3 · p50 1ms · p90 2ms · p99 3ms · max 4ms",
                "3 stalls over 100ms: longest 300ms, total 650ms",
                "  #1 +0.500s 200ms in afterWaiting",
                "  #2 +1.235s 150ms in beforeSources",
                "  #3 +4.700s 300ms in beforeSources (still stalled at exit)",
                "note: late, but fine",
                "warning: records lost",
            ])
    }

    @Test func everyRenderedLineCarriesThePrefix() throws {
        let report = Fixture.report(
            stalls: Self.threeStalls,
            diagnostics: [Diagnostic(code: "slots-exhausted", severity: .warning, message: "too many loops")])
        for writer in [Self.plain, Self.colored] {
            let output = try text(writer, report)
            #expect(output.hasSuffix("\n"))
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 8)
            for line in lines { #expect(line.hasPrefix("lagmon: "), "\(line)") }
        }
    }

    @Test func noEscapeCharactersWithoutColours() throws {
        let report = Fixture.report(
            signal: 9, stalls: Self.threeStalls,
            diagnostics: [
                Diagnostic(code: "a", severity: .info, message: "note"),
                Diagnostic(code: "b", severity: .warning, message: "warn"),
            ])
        #expect(!(try text(Self.plain, report)).contains("\u{1B}"))
        #expect(!(try text(Self.plain, Fixture.report())).contains("\u{1B}"))
    }

    @Test func coloursWrapTheSameText() throws {
        let report = Fixture.report(stalls: Self.threeStalls)
        let colored = try text(Self.colored, report)
        #expect(colored.contains("\u{1B}[1m"))
        #expect(colored.contains("\u{1B}[31m3 stalls over 100ms\u{1B}[0m"))
        #expect(colored.contains("\u{1B}[33m (still stalled at exit)\u{1B}[0m"))
        #expect(stripEscapes(colored) == (try text(Self.plain, report)))
        #expect((try text(Self.colored, Fixture.report())).contains("\u{1B}[32mno stalls over 100ms\u{1B}[0m"))
    }

    @Test func stallLinesAreCappedWithACountOfTheRest() {
        let stalls = (1...7).map {
            Fixture.stall(id: $0, startNs: UInt64($0) * Fixture.second, durationNs: 150 * Self.ms)
        }
        let lines = TerminalSummaryWriter(style: TerminalStyle(colors: false), stallLines: 3).lines(
            Fixture.report(stalls: stalls))
        #expect(
            lines.filter { $0.hasPrefix("  #") } == [
                "  #1 +1.000s 150ms in afterWaiting", "  #2 +2.000s 150ms in afterWaiting",
                "  #3 +3.000s 150ms in afterWaiting",
            ])
        #expect(lines.last == "  … and 4 more stalls (see --json)")
    }

    @Test func exactlyAsManyStallsAsLinesNeedsNoMoreLine() {
        let stalls = (1...3).map {
            Fixture.stall(id: $0, startNs: UInt64($0) * Fixture.second, durationNs: 150 * Self.ms)
        }
        let lines = TerminalSummaryWriter(style: TerminalStyle(colors: false), stallLines: 3).lines(
            Fixture.report(stalls: stalls))
        #expect(lines.filter { $0.hasPrefix("  #") }.count == 3)
        #expect(!lines.contains { $0.contains("more (see --json)") })
    }

    @Test func defaultCapIsTen() {
        let stalls = (1...25).map {
            Fixture.stall(id: $0, startNs: UInt64($0) * Fixture.second, durationNs: 150 * Self.ms)
        }
        let lines = Self.plain.lines(Fixture.report(stalls: stalls))
        #expect(lines.filter { $0.hasPrefix("  #") }.count == 10)
        #expect(lines.last == "  … and 15 more stalls (see --json)")
    }

    @Test func oneStallIsSingular() {
        let lines = Self.plain.lines(Fixture.report(stalls: [Self.threeStalls[0]]))
        #expect(lines.contains("1 stall over 100ms: longest 200ms, total 200ms"))
    }

    @Test func noStallsSaysSoWhenLoopsWereObserved() {
        #expect(Self.plain.lines(Fixture.report(thresholdNs: 16 * Self.ms)).last == "no stalls over 16ms")
    }

    @Test func withoutLoopsOnlyTheDiagnosticsExplain() {
        let report = Fixture.report(
            loops: [],
            diagnostics: [Diagnostic(code: "no-observer", severity: .warning, message: "no observer attached")])
        #expect(
            Self.plain.lines(report) == [
                "ImageViewer (pid 4242) exited with status 0 after 5.00s", "warning: no observer attached",
            ])
    }

    @Test func killedBySignalHeadline() {
        let report = Fixture.report(exitStatus: 139, signal: 11)
        #expect(Self.plain.lines(report).first == "ImageViewer (pid 4242) was killed by SIGSEGV after 5.00s")
    }

    @Test(
        arguments: [
            (["/usr/bin/env", "x"], "env"), (["demo"], "demo"), ([], "target"), (["dir/"], "dir"), (["/"], "/"),
        ] as [([String], String)])
    func headlineNamesTheProgramByItsLastPathComponent(command: [String], name: String) {
        #expect(
            Self.plain.lines(Fixture.report(command: command)).first
                == "\(name) (pid 4242) exited with status 0 after 5.00s")
    }

    @Test func targetControlledNamesCannotBreakLinesOrInjectEscapes() throws {
        // Thread names come from the target (prctl), argv from the user: neither may start an
        // unprefixed line or smuggle escape sequences past --no-color.
        let hostile = LoopReport(
            thread: ThreadRef(tid: 7, name: "evil\n\u{1B}[2J"), pid: 4242, observer: "cfrunloop", iterations: 1,
            transitions: 4, busyNs: 0, observedNs: 0,
            latency: LatencySummary(count: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0), stallCount: 0)
        let report = Fixture.report(command: ["./run\r\nfake\u{1B}[31m"], loops: [hostile])
        let output = try text(Self.plain, report)
        #expect(!output.contains("\u{1B}"))
        #expect(!output.contains("\r"))
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 4)
        for line in lines { #expect(line.hasPrefix("lagmon: "), "\(line)") }
        #expect(lines.first == "lagmon: run\\r\\nfake\\u{1B}[31m (pid 4242) exited with status 0 after 5.00s")
        #expect(
            lines.dropFirst().first?.hasPrefix("lagmon: cfrunloop loop on thread 7 \"evil\\n\\u{1B}[2J\": ") == true)
    }

    // MARK: Stacks, diagnoses, threads

    static let decode = Fixture.frame(
        "ImageDecoder.decodeImage(_:)", offset: 0x2000, file: "/src/ImageViewer/ImageDecoder.swift", line: 42)
    static let load = Fixture.frame("ImageListController.loadThumbnail(_:)", offset: 0x1800)
    /// The top stack of the profiled stalls, innermost first.
    static let topStack = [decode, load] + Fixture.runLoopFrames
    static let fingerprint = StackFingerprint(frames: ["ImageViewer`ImageDecoder.decodeImage(_:)"])

    static func profile(samples: Int, top: Int, frames: [Frame] = topStack, culprit: Frame? = decode) -> StackProfile {
        StackProfile(
            samples: samples, stacks: [StackCount(count: top, frames: frames.reversed())], stacksOmitted: 0,
            callTree: nil, culprit: culprit, fingerprint: fingerprint)
    }

    static let profiledStalls = [
        Fixture.stall(
            id: 1, startNs: 500 * ms, durationNs: 200 * ms, profile: profile(samples: 20, top: 14),
            diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:)")),
        Fixture.stall(
            id: 2, startNs: 900 * ms, durationNs: 150 * ms, profile: profile(samples: 15, top: 15, culprit: load),
            diagnosis: StallDiagnosis(kind: .syscall, text: "blocked 120ms in read(fd 7 → pipe)")),
        Fixture.stall(id: 3, startNs: 4_700 * ms, durationNs: 300 * ms, seenLive: false),
    ]

    static let threads = [
        ThreadReport(
            tid: 4243, name: "decoder", state: "R",
            cpu: ThreadCPU(avgPct: 91.25, maxPct: 99.5, totalNs: 4 * Fixture.second),
            alerts: [CPUAlert(atNs: 1 * Fixture.second, cpuPct: 99.5, frames: [])]),
        ThreadReport(
            tid: 4242, name: "ImageViewer", state: "S",
            cpu: ThreadCPU(avgPct: 30, maxPct: 88, totalNs: 1 * Fixture.second),
            alerts: []),
        ThreadReport(
            tid: 4250, name: "idle", state: "S", cpu: ThreadCPU(avgPct: 0, maxPct: 0.4, totalNs: 1 * ms), alerts: []),
        ThreadReport(
            tid: 4244, name: "io", state: "D", cpu: ThreadCPU(avgPct: 30, maxPct: 35, totalNs: 1 * Fixture.second),
            alerts: [
                CPUAlert(atNs: 1 * Fixture.second, cpuPct: 75, frames: []),
                CPUAlert(atNs: 2 * Fixture.second, cpuPct: 72, frames: []),
            ]),
    ]

    static let sampling = SamplingReport(
        samples: 35, pauseNsP50: 38_000, pauseNsP99: 90_000, pauseNsMax: 120_000, sampleNsP50: 95_000,
        unwindErrors: 2, truncated: 0, completeness: 33.0 / 35.0)

    @Test func stallsShowTheirDiagnosisAndTopStackAndTheBusiestThreads() {
        let report = Fixture.report(stalls: Self.profiledStalls, threads: Self.threads, sampling: Self.sampling)
        #expect(
            Self.plain.lines(report) == [
                "ImageViewer (pid 4242) exited with status 0 after 5.00s",
                "cfrunloop loop on thread 4242 \"ImageViewer\": 1200 iterations, busy 25.0% of 5.00s",
                "  busy periods: 3 · p50 1ms · p90 2ms · p99 3ms · max 4ms",
                "3 stalls over 100ms: longest 300ms, total 650ms",
                "  2 stalls (#1, #2) in afterWaiting, all in the same code: 200ms, 150ms",
                "      longest (#1): CPU-bound in ImageDecoder.decodeImage(_:)",
                "      top stack (29 of 35 samples), innermost first:",
                "        ImageDecoder.decodeImage(_:) (ImageViewer, ImageDecoder.swift:42)",
                "        ImageListController.loadThumbnail(_:) (ImageViewer)",
                "        __CFRunLoopDoTimer (libCoreFoundation.so)",
                "        … 2 system frames",
                "        main (ImageViewer)",
                "        __libc_start_call_main (libc.so.6)",
                "  #3 +4.700s 300ms in afterWaiting",
                "      no stack samples",
                "stack samples: 35 · pause p50 38µs · p99 90µs · max 120µs · 94.3% complete · 2 unwind errors",
                "busiest threads (3 of 4):",
                "  thread 4243 \"decoder\": avg 91.3% · max 99.5% of a core · 1 alert",
                "  thread 4242 \"ImageViewer\": avg 30.0% · max 88.0% of a core · 0 alerts",
                "  thread 4244 \"io\": avg 30.0% · max 35.0% of a core · 2 alerts",
            ])
    }

    @Test func applicationFramesAreBoldAndSystemFramesDim() throws {
        let report = Fixture.report(stalls: [Self.profiledStalls[0]], threads: Self.threads)
        let colored = try text(Self.colored, report)
        #expect(colored.contains("\u{1B}[1mImageDecoder.decodeImage(_:)\u{1B}[0m (ImageViewer, ImageDecoder.swift:42)"))
        #expect(colored.contains("\u{1B}[2m__CFRunLoopDoTimer (libCoreFoundation.so)\u{1B}[0m"))
        #expect(colored.contains("\u{1B}[2m… 2 system frames\u{1B}[0m"))
        #expect(colored.contains("\u{1B}[33m1 alert\u{1B}[0m"))
        #expect(stripEscapes(colored) == (try text(Self.plain, report)))
        for line in colored.split(separator: "\n") { #expect(line.hasPrefix("lagmon: ")) }
    }

    @Test func aDeepStackShowsFiveFramesAndCountsTheRest() {
        let frames = (0..<20).map { Fixture.frame("level\($0)()", offset: UInt64($0) * 0x10) }
        let stall = Fixture.stall(
            id: 1, startNs: 0, durationNs: 200 * Self.ms,
            profile: Self.profile(samples: 3, top: 3, frames: frames, culprit: frames[0]),
            diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in level0()"))
        let lines = Self.plain.lines(Fixture.report(stalls: [stall]))
        let stackLines = lines.filter { $0.hasPrefix("        ") }
        #expect(stackLines.count == 6)
        #expect(stackLines.first == "        level0() (ImageViewer)")
        #expect(stackLines.dropLast().last == "        level4() (ImageViewer)")
        #expect(stackLines.last == "        … 15 more frames")
    }

    @Test func framesWithoutSymbolsShowModuleAndOffsetOnce() {
        let anonymous = Fixture.frame(nil, "libImageKit.so", offset: 0x4242)
        let stall = Fixture.stall(
            id: 1, startNs: 0, durationNs: 200 * Self.ms,
            profile: Self.profile(samples: 1, top: 1, frames: [anonymous], culprit: anonymous),
            diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in libImageKit.so+0x4242"))
        let lines = Self.plain.lines(Fixture.report(stalls: [stall]))
        #expect(lines.contains("        libImageKit.so+0x4242"))
    }

    @Test func targetControlledSymbolsAndPathsAreEscaped() throws {
        let hostile = Fixture.frame("evil\n\u{1B}[2J", offset: 0x10, file: "/src/x\ry.swift", line: 1)
        let stall = Fixture.stall(
            id: 1, startNs: 0, durationNs: 200 * Self.ms,
            profile: Self.profile(samples: 1, top: 1, frames: [hostile], culprit: hostile),
            diagnosis: StallDiagnosis(kind: .syscall, text: "blocked 200ms in read(fd 3 → /tmp/a\nb)"))
        let output = try text(Self.plain, Fixture.report(stalls: [stall]))
        #expect(!output.contains("\u{1B}") && !output.contains("\r"))
        for line in output.split(separator: "\n") { #expect(line.hasPrefix("lagmon: "), "\(line)") }
        #expect(output.contains("lagmon:       blocked 200ms in read(fd 3 → /tmp/a\\nb) · culprit evil\\n\\u{1B}[2J\n"))
    }

    /// Removes SGR sequences (`ESC [ digits m`).
    private func stripEscapes(_ text: String) -> String {
        var result = ""
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            if scalar == "\u{1B}" {
                while let next = iterator.next(), next != "m" {}
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
