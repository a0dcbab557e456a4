import LagmonCore
import Testing

struct StallProfilerTests {
    static let decode = Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x2000)
    static let load = Fixture.frame("ImageListController.loadThumbnail(_:)", offset: 0x1800)
    static let helper = Fixture.frame("ImageDecoder.decodeRow(_:)", offset: 0x2400)
    static let memcpy = Fixture.frame("__memmove_avx_unaligned_erms", "libc.so.6", offset: 0x19_e000)
    static let read = Fixture.frame("read", "libc.so.6", offset: 0x11_4000)

    /// `innermost` on top of the loading code and the run loop, innermost first.
    static func stack(_ innermost: Frame...) -> [Frame] {
        innermost + [load] + Fixture.runLoopFrames
    }

    private func profile(_ samples: [ResolvedSample], _ profiler: StallProfiler = StallProfiler()) -> StackProfile {
        profiler.profile(samples)
    }

    // MARK: Distinct stacks

    @Test func distinctStacksAreCountedMostCommonFirstRootFirst() {
        let moved = Fixture.frame("__memmove_avx_unaligned_erms", "libc.so.6", offset: 0x19_e010)
        // Out of time order on purpose: the earliest sample gives a stack its offsets.
        let samples = [
            Fixture.sample(at: 20, Self.stack(moved, Self.decode)),
            Fixture.sample(at: 30, Self.stack(Self.read)),
            Fixture.sample(at: 0, Self.stack(Self.memcpy, Self.decode)),
            Fixture.sample(at: 10, Self.stack(Self.decode)),
        ]
        let result = profile(samples)
        #expect(result.samples == 4)
        #expect(
            result.stacks == [
                StackCount(count: 2, frames: Self.stack(Self.memcpy, Self.decode).reversed()),
                // Equal counts: compared frame by frame from the root, `ImageViewer` < `libc.so.6`.
                StackCount(count: 1, frames: Self.stack(Self.decode).reversed()),
                StackCount(count: 1, frames: Self.stack(Self.read).reversed()),
            ])
        #expect(result.stacksOmitted == 0)
        #expect(result.stacks[0].frames.first?.symbol == "__libc_start_call_main")
    }

    /// The culprit's most sampled pc has no line (line 0 of the line table): its place is the
    /// line another sample of the same function had.
    @Test func aCulpritWithoutALineTakesOneItsFunctionHadInAnotherSample() {
        var sourced = Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x2010)
        sourced.file = "/src/ImageDecoder.swift"
        sourced.line = 30
        let samples = [
            Fixture.sample(at: 0, Self.stack(Self.decode)), Fixture.sample(at: 1, Self.stack(Self.decode)),
            Fixture.sample(at: 2, Self.stack(Self.memcpy, sourced)),
        ]
        let culprit = profile(samples).culprit
        #expect(culprit?.symbol == "ImageDecoder.decodeImage(_:)")
        #expect(culprit?.offset == 0x2000)
        #expect(culprit?.file == "/src/ImageDecoder.swift")
        #expect(culprit?.line == 30)
    }

    @Test func theSameSamplesInAnyOrderGiveTheSameProfile() {
        let samples = (0..<6).map { index in
            Fixture.sample(at: UInt64(index), index % 3 == 0 ? Self.stack(Self.read) : Self.stack(Self.decode))
        }
        #expect(profile(samples) == profile(samples.reversed()))
        #expect(profile(samples) == profile([samples[3], samples[1], samples[5], samples[0], samples[4], samples[2]]))
    }

    @Test func stacksBeyondTheCapAreCountedAsOmitted() {
        let samples = [
            Fixture.sample(at: 0, Self.stack(Self.decode)), Fixture.sample(at: 1, Self.stack(Self.decode)),
            Fixture.sample(at: 2, Self.stack(Self.read)), Fixture.sample(at: 3, Self.stack(Self.helper)),
        ]
        let result = profile(samples, StallProfiler(maxStacks: 2))
        #expect(result.stacks.map(\.count) == [2, 1])
        #expect(result.stacksOmitted == 1)
        // The omitted stack's sample still counts in the tree.
        #expect(result.callTree?.count == 4)
    }

    @Test func noSamplesGiveTheEmptyProfile() {
        #expect(profile([]) == .empty)
        #expect(StackProfile.empty.callTree == nil && StackProfile.empty.fingerprint == nil)
    }

    @Test func aSampleWithoutFramesIsAnEmptyStack() {
        let result = profile([Fixture.sample(at: 0, [], outcome: .failed)])
        #expect(result.samples == 1)
        #expect(result.stacks == [StackCount(count: 1, frames: [])])
        #expect(result.culprit == nil)
        #expect(result.fingerprint == nil)
        #expect(result.callTree == CallTreeNode(name: "(all)", module: "", count: 1, children: []))
    }

    // MARK: Call tree

    @Test func theCallTreeMergesStacksFromTheRoot() throws {
        let samples = [
            Fixture.sample(at: 0, Self.stack(Self.decode)), Fixture.sample(at: 1, Self.stack(Self.read)),
            Fixture.sample(at: 2, Self.stack(Self.decode)), Fixture.sample(at: 3, Self.stack(Self.decode)),
        ]
        let leaves = [
            CallTreeNode(name: "ImageDecoder.decodeImage(_:)", module: "ImageViewer", count: 3, children: []),
            CallTreeNode(name: "read", module: "libc.so.6", count: 1, children: []),
        ]
        let chain: [(String, String)] = [
            ("__libc_start_call_main", "libc.so.6"), ("main", "ImageViewer"),
            ("CFRunLoopRunSpecific", "libCoreFoundation.so"), ("__CFRunLoopRun", "libCoreFoundation.so"),
            ("__CFRunLoopDoTimer", "libCoreFoundation.so"), ("ImageListController.loadThumbnail(_:)", "ImageViewer"),
        ]
        var expected = leaves
        for (name, module) in chain.reversed() {
            expected = [CallTreeNode(name: name, module: module, count: 4, children: expected)]
        }
        #expect(profile(samples).callTree == CallTreeNode(name: "(all)", module: "", count: 4, children: expected))
    }

    @Test func calleesWithEqualCountsAreOrderedByName() {
        let b = Fixture.frame("b", offset: 1)
        let a = Fixture.frame("a", offset: 2)
        let tree = CallTreeBuilder().tree([StackCount(count: 1, frames: [b]), StackCount(count: 1, frames: [a])])
        #expect(tree.children.map(\.name) == ["a", "b"])
    }

    @Test func calleesBeyondTheCapAreFoldedIntoOneLastNode() {
        let stacks = [("d", 1), ("a", 4), ("c", 2), ("b", 3)].map { name, count in
            StackCount(count: count, frames: [Fixture.frame("root"), Fixture.frame(name)])
        }
        let tree = CallTreeBuilder(maxChildren: 2).tree(stacks)
        #expect(
            tree.children.first?.children == [
                CallTreeNode(name: "a", module: "ImageViewer", count: 4, children: []),
                CallTreeNode(name: "b", module: "ImageViewer", count: 3, children: []),
                CallTreeNode(name: "(2 more)", module: "", count: 3, children: []),
            ])
    }

    @Test func theTreeStopsAtTheDepthCapAndTheNodeBudget() {
        let frames = ["a", "b", "c", "d"].map { Fixture.frame($0) }
        let deep = CallTreeBuilder(maxDepth: 2).tree([StackCount(count: 5, frames: frames)])
        #expect(deep.children.map(\.name) == ["a"])
        #expect(deep.children.first?.children.map(\.name) == ["b"])
        #expect(deep.children.first?.children.first?.children == [])

        let small = CallTreeBuilder(maxNodes: 3).tree([StackCount(count: 5, frames: frames)])
        #expect(small.children.first?.children.first?.name == "b")
        #expect(
            small.children.first?.children.first?.children == [
                CallTreeNode(name: "(1 more)", module: "", count: 5, children: [])
            ])
    }

    // MARK: Samples in the tree

    @Test func eachStackIsPlacedAtItsNodeInDepthFirstOrder() {
        let frames = ["a", "b", "c"].map { Fixture.frame($0) }
        let x = Fixture.frame("x")
        let (tree, leaves) = CallTreeBuilder().placed([
            StackCount(count: 3, frames: frames), StackCount(count: 1, frames: [frames[0], x]),
            StackCount(count: 2, frames: [frames[0]]), StackCount(count: 1, frames: []),
        ])
        // Depth first: (all) 0, a 1, b 2, c 3, x 4.
        #expect(tree.children.first?.children.map(\.name) == ["b", "x"])
        #expect(leaves == [3, 4, 1, 0])
    }

    @Test func stacksPastTheCapsArePlacedWhereTheirSamplesAreCounted() {
        let stacks = [("d", 1), ("a", 4), ("c", 2), ("b", 3)].map { name, count in
            StackCount(count: count, frames: [Fixture.frame("root"), Fixture.frame(name), Fixture.frame(name + "1")])
        }
        // root 1, a 2, a1 3, b 4, b1 5, (2 more) 6: c and d and their callees are in the folded node.
        let (_, folded) = CallTreeBuilder(maxChildren: 2).placed(stacks)
        #expect(folded == [6, 3, 6, 5])
        let deep = ["a", "b", "c", "d"].map { Fixture.frame($0) }
        let (_, capped) = CallTreeBuilder(maxDepth: 2).placed([StackCount(count: 5, frames: deep)])
        #expect(capped == [2])
    }

    @Test func theTimelineHasEverySampleInTheOrderTakenAtItsNode() {
        let samples = [
            Fixture.sample(at: 30, Self.stack(Self.read)),
            Fixture.sample(at: 10, Self.stack(Self.memcpy, Self.decode)),
            Fixture.sample(at: 20, Self.stack(Self.decode)),
            Fixture.sample(at: 0, Self.stack(Self.memcpy, Self.decode)),
        ]
        let result = profile(samples)
        #expect(result.timeline.map(\.timestampNs) == [0, 10, 20, 30])
        // Each node is the sample's innermost frame.
        let names = Self.preorder(result.callTree).map(\.name)
        #expect(
            result.timeline.map { names[$0.node] } == [
                "__memmove_avx_unaligned_erms", "__memmove_avx_unaligned_erms", "ImageDecoder.decodeImage(_:)", "read",
            ])
    }

    /// The tree's nodes depth first.
    static func preorder(_ node: CallTreeNode?) -> [CallTreeNode] {
        guard let node else { return [] }
        return [node] + node.children.flatMap { preorder($0) }
    }

    // MARK: Culprit

    @Test func theCulpritIsTheDeepestApplicationFrameInHalfTheSamples() {
        let samples = [
            Fixture.sample(at: 0, Self.stack(Self.memcpy, Self.decode)),
            Fixture.sample(at: 1, Self.stack(Self.decode)),
            Fixture.sample(at: 2, Self.stack(Self.memcpy, Self.decode)),
            Fixture.sample(at: 3, Self.stack(Self.read)),
        ]
        // memcpy is deeper and in half of the samples, but it is libc's.
        #expect(profile(samples).culprit == Self.decode)
    }

    @Test func exactlyHalfOfTheSamplesIsEnough() {
        let half = [
            Fixture.sample(at: 0, Self.stack(Self.helper, Self.decode)),
            Fixture.sample(at: 1, Self.stack(Self.helper, Self.decode)),
            Fixture.sample(at: 2, Self.stack(Self.decode)), Fixture.sample(at: 3, Self.stack(Self.decode)),
        ]
        #expect(profile(half).culprit == Self.helper)
        // Two of five is less than half: the caller present in all five wins.
        #expect(profile(half + [Fixture.sample(at: 4, Self.stack(Self.decode))]).culprit == Self.decode)
    }

    @Test func withoutApplicationFramesInHalfTheSamplesTheDeepestSystemFrameWins() {
        let dispatch = Fixture.frame("_dispatch_main_queue_drain", "libdispatch.so", offset: 0x5000)
        let samples = ["a", "b", "c"].enumerated().map { index, name in
            Fixture.sample(
                at: UInt64(index),
                [Fixture.frame(name, offset: UInt64(index) * 0x10), dispatch] + Array(Fixture.runLoopFrames.prefix(3)))
        }
        let result = profile(samples)
        #expect(result.culprit == dispatch)
        // Its callers are all system frames too, so the fingerprint lists the top three.
        #expect(
            result.fingerprint?.frames == [
                "libdispatch.so`_dispatch_main_queue_drain", "libCoreFoundation.so`__CFRunLoopDoTimer",
                "libCoreFoundation.so`__CFRunLoopRun",
            ])
    }

    @Test func aSystemOnlyStackBlamesItsDeepestFrame() {
        let frames = [Self.memcpy, Fixture.runLoopFrames[1], Fixture.runLoopFrames[4]]
        let result = profile([Fixture.sample(at: 0, frames), Fixture.sample(at: 1, frames)])
        #expect(result.culprit == Self.memcpy)
        #expect(
            result.fingerprint?.frames == [
                "libc.so.6`__memmove_avx_unaligned_erms", "libCoreFoundation.so`__CFRunLoopRun",
                "libc.so.6`__libc_start_call_main",
            ])
    }

    @Test func noFrameInHalfTheSamplesMeansNoCulprit() {
        let samples = ["c", "a", "b"].enumerated().map { index, name in
            Fixture.sample(at: UInt64(index), [Fixture.frame(name, offset: UInt64(index))])
        }
        let result = profile(samples)
        #expect(result.culprit == nil)
        // The fingerprint then comes from the most common stack (ties: by frames).
        #expect(result.fingerprint?.frames == ["ImageViewer`a"])
    }

    @Test func framesWithoutSymbolsAreOneUnknownFunctionPerModule() {
        let anonymous = Fixture.frame(nil, offset: 0x4242)
        let slid = Fixture.frame(nil, offset: 0x4242, slide: 0x1000)
        let other = Fixture.frame(nil, offset: 0x4250)
        let result = profile([
            Fixture.sample(at: 0, Self.stack(anonymous)), Fixture.sample(at: 1, Self.stack(slid)),
            Fixture.sample(at: 2, Self.stack(other)),
        ])
        // perf and stackcollapse name such frames once per module: one stack, one node.
        #expect(result.stacks.map(\.count) == [3])
        #expect(result.culprit == anonymous)
        #expect(result.fingerprint?.frames.first == "ImageViewer`ImageViewer+?")
        let load = result.callTree?.children.first?.children.first?.children.first?.children.first?.children.first?
            .children.first
        #expect(load?.children.map(\.name) == ["ImageViewer+?"])
        #expect(load?.children.first?.count == 3)
    }

    // MARK: Fingerprint

    @Test func theFingerprintIsTheCulpritAndTheApplicationFramesBelowIt() {
        let samples = [
            Fixture.sample(at: 0, Self.stack(Self.helper, Self.decode)),
            Fixture.sample(at: 1, Self.stack(Self.memcpy, Self.decode)),
            Fixture.sample(at: 2, Self.stack(Self.read)),
        ]
        let fingerprint = profile(samples).fingerprint
        #expect(
            fingerprint?.frames == [
                "ImageViewer`ImageDecoder.decodeImage(_:)", "ImageViewer`ImageListController.loadThumbnail(_:)",
                "ImageViewer`main",
            ])
        // FNV-1a 64 of those three lines joined by "\n".
        #expect(fingerprint?.id == "e48cddcea6862f3a")
    }

    @Test func theFingerprintIgnoresAddressesOffsetsAndWhatRanAboveTheCulprit() {
        let first = profile([
            Fixture.sample(at: 0, Self.stack(Self.helper, Self.decode)),
            Fixture.sample(at: 1, Self.stack(Self.decode)), Fixture.sample(at: 2, Self.stack(Self.decode)),
        ])
        // Another run: the image loaded elsewhere, other instructions, other callees.
        let moved = [
            Fixture.frame("ImageDecoder.decodeImage(_:)", offset: 0x2044, slide: 0x7f00_0000),
            Fixture.frame("ImageListController.loadThumbnail(_:)", offset: 0x1810, slide: 0x7f00_0000),
        ]
        let second = profile([
            Fixture.sample(at: 0, [Self.memcpy] + moved + Fixture.runLoopFrames),
            Fixture.sample(at: 1, [Self.read] + moved + Fixture.runLoopFrames),
            Fixture.sample(at: 2, moved + Fixture.runLoopFrames),
        ])
        #expect(first.fingerprint != nil)
        #expect(first.fingerprint == second.fingerprint)
    }

    @Test func recursionCountsOnceInTheFingerprint() {
        let fib = Fixture.frame("fib(_:)", offset: 0x700)
        let frames = [fib, fib, fib, fib] + Fixture.runLoopFrames
        let fingerprint = profile([Fixture.sample(at: 0, frames)]).fingerprint
        #expect(fingerprint?.frames == ["ImageViewer`fib(_:)", "ImageViewer`main"])
    }

    @Test func fingerprintIdsAreFNV1a64InHex() {
        #expect(StackFingerprint(frames: []).id == "cbf29ce484222325")
        #expect(StackFingerprint(frames: ["a"]).id == "af63dc4c8601ec8c")
        #expect(StackFingerprint(frames: ["a", "b"]).id != StackFingerprint(frames: ["ab"]).id)
    }
}
