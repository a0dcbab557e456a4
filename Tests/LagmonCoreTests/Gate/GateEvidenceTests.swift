import LagmonCore
import Testing

/// What a failed check points at: the worst stall of each fingerprint for stall metrics, the
/// busiest thread for CPU, the heaviest call sites for StrictMode; the same for `lagmon diff`.
struct GateEvidenceTests {
    static let ms = Fixture.ms
    static let decode = Fixture.frame(
        "ImageDecoder.decodeImage(_:)", offset: 0x2000, file: "/work/app/Sources/ImageDecoder.swift", line: 42)
    static let decodeNoLine = Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x2010)
    static let load = Fixture.frame(
        "ImageListController.loadThumbnail(_:)", offset: 0x1800, file: "/work/app/Sources/List.swift", line: 7)
    static let read = Fixture.frame("read", "libc.so.6", offset: 0x11_4000)
    static let cache = Fixture.frame(
        "ThumbnailCache.value(for:)", offset: 0x3000, file: "/work/app/Sources/Cache.swift", line: 19)

    static func profile(_ innermost: [Frame], samples: Int = 10, culprit: Frame) -> StackProfile {
        let frames = innermost + [load] + Fixture.runLoopFrames
        return StackProfile(
            samples: samples, stacks: [StackCount(count: samples, frames: frames.reversed())], stacksOmitted: 0,
            callTree: nil, culprit: culprit, fingerprint: StackFingerprint(anchor: frames))
    }

    static func stall(_ id: Int, _ durationMs: UInt64, _ innermost: [Frame], culprit: Frame, text: String)
        -> StallReport
    {
        Fixture.stall(
            id: id, startNs: UInt64(id) * Fixture.second, durationNs: durationMs * ms,
            profile: profile(innermost, culprit: culprit), diagnosis: StallDiagnosis(kind: .cpu, text: text))
    }

    /// Three stalls in the decoder (one without a line at its culprit), one on the cache's lock.
    static let stalls = [
        stall(1, 200, [decode], culprit: decode, text: "CPU-bound in ImageDecoder.decodeImage(_:)"),
        stall(2, 260, [read, cache], culprit: cache, text: "waiting on a lock (futex) for 260ms"),
        stall(3, 310, [decodeNoLine], culprit: decodeNoLine, text: "CPU-bound in ImageDecoder.decodeImage(_:)"),
        stall(4, 150, [decode], culprit: decode, text: "CPU-bound in ImageDecoder.decodeImage(_:)"),
    ]

    static let report = Fixture.report(stalls: stalls)

    @Test func stallMetricsShowTheLongestStallOfEachCodePathLongestFirst() throws {
        let evidence = try #require(GateEvidence(for: .stallMax, in: Self.report))
        #expect(evidence.summary == "4 stalls in 2 code paths, the longest of each below")
        #expect(
            evidence.culprits.map(\.subject) == ["stall #3 (310ms, the longest of 3 in this code)", "stall #2 (260ms)"])
        let worst = evidence.culprits[0]
        #expect(worst.diagnosis == "CPU-bound in ImageDecoder.decodeImage(_:)")
        #expect(worst.function == "ImageDecoder.decodeImage(_:)")
        // Its own sample had no line there: another sample of the same function in the same code has.
        #expect(worst.file == "/work/app/Sources/ImageDecoder.swift" && worst.line == 42)
        #expect(
            worst.frames == [
                "ImageDecoder.decodeImage(_:) (ImageViewer)", "ImageListController.loadThumbnail(_:) (List.swift:7)",
                "__CFRunLoopDoTimer (libCoreFoundation.so)", "__CFRunLoopRun (libCoreFoundation.so)",
                "CFRunLoopRunSpecific (libCoreFoundation.so)",
            ])
        #expect(evidence.culprits[1].place == "ThumbnailCache.value(for:) at /work/app/Sources/Cache.swift:19")
        for metric in [BudgetMetric.stallCount, .stallTotal, .stallPercentile(99), .blockingRatio, .latencyMax] {
            #expect(GateEvidence(for: metric, in: Self.report)?.culprits == evidence.culprits, "\(metric)")
        }
    }

    @Test func locatingPlacesFilesInTheRepositoryAndLeavesOthersAlone() throws {
        var outside = Self.stalls[1]
        outside.culprit?.file = "/usr/src/glibc/nptl/lock.c"
        outside.stacks = []
        let report = Fixture.report(stalls: [Self.stalls[0], outside])
        let result = try BudgetResult(
            Budget(parsing: "stall.max < 100ms", level: .error), metrics: ReportMetrics(report))
        let verdict = GateVerdict(budgets: [result], report: report).locating(in: SourceRoot(["/work/app"]))
        let evidence = try #require(verdict.checks.first?.evidence)
        #expect(evidence.culprits.map(\.sourcePath) == [nil, "Sources/ImageDecoder.swift"])
        #expect(evidence.primary?.sourcePath == "Sources/ImageDecoder.swift", "the one in the repository")
        #expect(
            verdict.checks[0].messageWithCulprit
                == "stall.max=260ms (limit <100ms) — culprit: ImageDecoder.decodeImage(_:) at Sources/ImageDecoder.swift:42"
        )
    }

    @Test func passingBudgetsCarryNoEvidence() throws {
        let result = try BudgetResult(
            Budget(parsing: "stall.max < 1s", level: .error), metrics: ReportMetrics(Self.report))
        #expect(GateVerdict(budgets: [result], report: Self.report).checks[0].evidence == nil)
    }

    @Test func latencyWithoutStallsNamesTheLongestBusyPeriod() throws {
        let evidence = try #require(GateEvidence(for: .latencyPercentile(99), in: Fixture.report()))
        #expect(
            evidence.summary
                == "longest busy period 4ms on thread 4242 \"ImageViewer\" (no stall over 100ms, so no stack)")
        #expect(evidence.culprits.isEmpty)
        #expect(GateEvidence(for: .stallCount, in: Fixture.report()) == nil, "no stall, nothing to show")
    }

    @Test func cpuBudgetsShowTheBusiestThreadAndItsHottestAlert() throws {
        let alertStack = ([Self.decode, Self.load] + Fixture.runLoopFrames).reversed()
        let threads = [
            ThreadReport(
                tid: 4243, name: "decoder", state: "R", cpu: ThreadCPU(avgPct: 91.25, maxPct: 99.5, totalNs: 0),
                alerts: [
                    CPUAlert(atNs: 1 * Fixture.second, cpuPct: 95, frames: []),
                    CPUAlert(atNs: 2 * Fixture.second, cpuPct: 97, frames: Array(alertStack)),
                ]),
            ThreadReport(
                tid: 4244, name: "decoder", state: "S", cpu: ThreadCPU(avgPct: 10, maxPct: 20, totalNs: 0), alerts: []),
        ]
        let report = Fixture.report(threads: threads)
        let evidence = try #require(GateEvidence(for: .cpuAverage(.name("decoder")), in: report))
        #expect(
            evidence.summary == "thread 4243 \"decoder\": avg 91.3%, max 99.5% of a core (the busiest of 2 threads)")
        #expect(evidence.culprits.count == 1)
        #expect(evidence.culprits[0].subject == "CPU alert at +2.000s")
        #expect(evidence.culprits[0].place == "ImageDecoder.decodeImage(_:) at /work/app/Sources/ImageDecoder.swift:42")
        #expect(GateEvidence(for: .cpuMax(.name("nobody")), in: report) == nil)
    }

    @Test func strictBudgetsShowTheHeaviestCallSites() throws {
        var report = Fixture.report(stalls: [])
        let site = Fixture.frame("Config.load()", offset: 0x40, file: "/work/app/Sources/Config.swift", line: 12)
        report.blockingCalls = [
            BlockingCallReport(
                pid: 4242, thread: ThreadRef(tid: 4242, name: "main"), call: "read", category: "file", count: 3,
                totalNs: 9 * Self.ms, maxNs: 5 * Self.ms, site: site),
            BlockingCallReport(
                pid: 4242, thread: ThreadRef(tid: 4242, name: "main"), call: "getaddrinfo", category: "dns",
                count: 1, totalNs: 40 * Self.ms, maxNs: 40 * Self.ms, site: Self.load),
        ]
        let byCount = try #require(GateEvidence(for: .strictCount, in: report))
        #expect(byCount.summary == "4 blocking calls on loop threads from 2 call sites, the heaviest below")
        #expect(
            byCount.culprits.map(\.subject) == [
                "3 read calls (file) on thread 4242 \"main\"", "1 getaddrinfo call (dns) on thread 4242 \"main\"",
            ])
        #expect(byCount.culprits[0].place == "Config.load() at /work/app/Sources/Config.swift:12")
        #expect(byCount.culprits[0].diagnosis == "9ms in all, the longest 5ms")
        #expect(
            GateEvidence(for: .strictTotal, in: report)?.culprits.first?.function
                == "ImageListController.loadThumbnail(_:)")
    }

    /// A report of `stalls` with their fingerprints, as ReportBuilder groups them.
    static func grouped(_ stalls: [StallReport]) -> Report {
        let ids = stalls.compactMap(\.fingerprint).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let fingerprints = ids.map { id in
            let members = stalls.filter { $0.fingerprint == id }
            return FingerprintReport(
                id: id, frames: [id], count: members.count, totalNs: members.reduce(0) { $0 + $1.durationNs },
                worstNs: members.map(\.durationNs).max() ?? 0, stallIds: members.map(\.id))
        }
        return Fixture.report(stalls: stalls, fingerprints: fingerprints)
    }

    @Test func diffReportsNewAndGrownFingerprintsWithTheirCulprits() throws {
        let baseline = Self.grouped([Self.stalls[0]])
        let current = Self.grouped(Self.stalls)
        let verdict = ReportDiff(baseline: baseline, current: current, options: ReportDiff.Options())
            .verdict(subject: "a → b")
        let new = try #require(verdict.checks.first { $0.name.hasPrefix("new stall") })
        #expect(!new.passed)
        #expect(new.evidence?.primary?.place == "ThumbnailCache.value(for:) at /work/app/Sources/Cache.swift:19")
        let grown = try #require(verdict.checks.first { $0.name.hasPrefix("grown stall") })
        #expect(grown.evidence?.culprits.first?.subject == "stall #3 (310ms, the longest of 3 in this code)")
        let count = try #require(verdict.checks.first { $0.name == "stall.count" })
        #expect(!count.passed && count.evidence?.culprits.count == 2, "a regressed metric carries the current culprits")
    }
}
