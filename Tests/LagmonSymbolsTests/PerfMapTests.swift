import LagmonCore
import Testing

@testable import LagmonSymbols

/// Parsing perf maps (untrusted text from the target) and naming JIT frames from them.
struct PerfMapTests {
    /// Lines as node 20 wrote them (`--perf-basic-prof-only-functions`).
    static let node20 = """
        3306c2eca61e 5 Eval:~ /tmp/h12/app.js:1:1
        3306c2eca75e 2a JS:~ /tmp/h12/app.js:1:1
        41776c8e35e 23 JS:~deriveKey /tmp/h12/app.js:3:19
        3ec3e478b3c6 2d JS:~prepareMainThreadExecution node:internal/process/pre_execution:52:36

        """

    @Test func node20LinesAreParsedAndLookedUp() {
        var map = PerfMap()
        map.append(Array(Self.node20.utf8))
        #expect(map.entries.count == 4)
        #expect(map.skippedLines == 0)
        let index = map.index()
        #expect(index.name(at: 0x41776c8e35e) == "JS:~deriveKey /tmp/h12/app.js:3:19")
        #expect(index.name(at: 0x41776c8e35e + 0x22) == "JS:~deriveKey /tmp/h12/app.js:3:19")
        #expect(index.name(at: 0x41776c8e35e + 0x23) == nil)
        #expect(index.name(at: 0x41776c8e35d) == nil)
    }

    @Test func anUnfinishedLineWaitsForItsEnd() {
        var map = PerfMap()
        let text = Array("1000 10 JS:*first /a.js:1:1\n2000 10 JS:*sec".utf8)
        map.append(text)
        #expect(map.entries.map(\.name) == ["JS:*first /a.js:1:1"])
        map.append(Array("ond /a.js:2:1\n".utf8))
        #expect(map.entries.map(\.name) == ["JS:*first /a.js:1:1", "JS:*second /a.js:2:1"])
        #expect(map.bytesConsumed == text.count + 14)
    }

    @Test func hostileLinesAreSkipped() {
        var map = PerfMap()
        let long = String(repeating: "x", count: PerfMap.maxLineBytes + 10)
        let lines = [
            "zz 10 bad-start", "1000 0 empty-size", "1000 10", "1000 10 ", "ffffffffffffffff 10 wraps",
            "10000000000000000 10 seventeen-digits", "1000 10 \(long)", "\u{0}\u{ff} 1 binary",
            "0x3000 0x10 with-prefix",
            "4000 10 fine\r",
        ]
        map.append(Array((lines.joined(separator: "\n") + "\n").utf8))
        #expect(map.entries.map(\.name) == ["with-prefix", "fine"])
        #expect(map.skippedLines == lines.count - 2)
    }

    @Test func theLaterOfOverlappingEntriesWins() {
        var map = PerfMap()
        map.append(Array("1000 100 JS:*old /a.js:1:1\n1040 10 JS:*new /a.js:9:1\n".utf8))
        let index = map.index()
        #expect(index.name(at: 0x1044) == "JS:*new /a.js:9:1")
        #expect(index.name(at: 0x1060) == "JS:*old /a.js:1:1")
    }

    @Test func v8NamesBecomeJavaScriptFrames() {
        let frame = JITFrameName.frame("JS:~deriveKey /tmp/h12/app.js:3:19", address: 0x41)
        #expect(frame.runtime == .javascript)
        #expect(frame.symbol == "deriveKey")
        #expect(frame.file == "/tmp/h12/app.js")
        #expect(frame.line == 3)
        #expect(frame.address == 0x41)
        #expect(frame.displayName == "deriveKey (app.js:3)")
        #expect(FrameIdentity(frame).isApplicationSource)
        // Older V8 and ES modules.
        let older = JITFrameName.frame("LazyCompile:*deriveKey file:///srv/app.mjs:6:19", address: 1)
        #expect(older.symbol == "deriveKey" && older.file == "/srv/app.mjs" && older.line == 6)
        let anonymous = JITFrameName.frame("JS:~ /tmp/h12/app.js:1:1", address: 1)
        #expect(anonymous.symbol == "(anonymous)")
        let getter = JITFrameName.frame("JS:^get size node:internal/fs:4:2", address: 1)
        #expect(getter.symbol == "get size" && getter.file == "node:internal/fs")
        #expect(!FrameIdentity(getter).isApplicationSource)
    }

    @Test func v8InternalsAndOtherJITsAreNamedWithoutASource() {
        let builtin = JITFrameName.frame("Builtin:ArgumentsAdaptorTrampoline", address: 1)
        #expect(builtin.runtime == nil && builtin.module == JITFrameName.module)
        #expect(!FrameIdentity(builtin).isApplication)
        let java = JITFrameName.frame("Lcom/example/Feed;::parse", address: 1)
        #expect(java.runtime == .jit && java.symbol == "Lcom/example/Feed;::parse")
        #expect(FrameIdentity(java).isApplicationSource)
    }

    @Test func pythonTrampolinesNameTheFunctionAndFile() {
        let frame = JITFrameName.frame("py::parse_feed:/srv/app.py", address: 1)
        #expect(frame.runtime == .python && frame.symbol == "parse_feed" && frame.file == "/srv/app.py")
        #expect(frame.line == nil)
    }

    @Test func onlyFramesInNoMappedFileAreRenamed() {
        var map = PerfMap()
        map.append(Array("1000 100 JS:*deriveKey /a.js:3:1\n2000 100 py::f:/b.py\n".utf8))
        let native = Frame(symbol: "main", module: "app", offset: 0x1010, address: 0x1010)
        let unknown = Frame(symbol: nil, module: Frame.unknownModule, offset: 0x1020, address: 0x1020)
        let trampoline = Frame(symbol: nil, module: Frame.unknownModule, offset: 0x2020, address: 0x2020)
        let resolved = JITSymbolizer.resolve(
            [unknown, native, trampoline], index: map.index(), interpreterFrames: false)
        #expect(resolved.map(\.displayName) == ["deriveKey (a.js:3)", "main", "f (b.py)"])
        // CPython's own frames (read from memory) replace the trampolines.
        let merged = JITSymbolizer.resolve([unknown, trampoline], index: map.index(), interpreterFrames: true)
        #expect(merged.map(\.displayName) == ["deriveKey (a.js:3)"])
    }
}
