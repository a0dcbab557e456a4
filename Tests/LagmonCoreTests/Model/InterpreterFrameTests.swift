import Testing

@testable import LagmonCore

/// Pure parts of interpreter frames: merging into native stacks, the culprit rule for
/// interpreted code, source classification and line tables fed hostile bytes.
struct InterpreterFrameTests {
    static func native(_ symbol: String, _ module: String = "libpython3.12.so.1.0") -> Frame {
        Frame(symbol: symbol, module: module, offset: 1, address: 1)
    }

    static func python(_ function: String, _ file: String = "/srv/app.py", line: Int = 12, ends: Bool = false)
        -> InterpreterFrame
    {
        InterpreterFrame(function: function, file: file, line: line, endsEntry: ends)
    }

    @Test func pythonFramesReplaceEachInterpreterEntryInOrder() {
        let native = [
            Self.native("scan_once_unicode", "_json.so"), Self.native("_PyEval_EvalFrameDefault"),
            Self.native("task_step", "_asyncio.so"), Self.native("_PyEval_EvalFrameDefault"),
            Self.native("main", "python3"),
        ]
        let python = [
            Self.python("raw_decode", "/usr/lib/python3.12/json/decoder.py"), Self.python("parse_feed", ends: true),
            Self.python("main"), Self.python("<module>", ends: true),
        ]
        let merged = InterpreterStackMerger.merge(native: native, interpreted: python)
        #expect(
            merged.map(\.displayName) == [
                "scan_once_unicode", "raw_decode (decoder.py:12)", "parse_feed (app.py:12)", "task_step",
                "main (app.py:12)",
                "<module> (app.py:12)", "main",
            ])
        #expect(merged[1].runtime == .python && merged[0].runtime == nil)
    }

    @Test func leftoverPythonFramesGoOutsideAndLeftoverEntriesStayNative() {
        let shortNative = [Self.native("leaf", "_json.so"), Self.native("_PyEval_EvalFrameDefault")]
        let merged = InterpreterStackMerger.merge(
            native: shortNative, interpreted: [Self.python("a", ends: true), Self.python("b", ends: true)])
        #expect(merged.map { $0.symbol ?? "" } == ["leaf", "a", "b"])
        let extraEntries = InterpreterStackMerger.merge(
            native: shortNative + [Self.native("_PyEval_EvalFrameDefault")], interpreted: [Self.python("a", ends: true)]
        )
        #expect(extraEntries.map { $0.symbol ?? "" } == ["leaf", "a", "_PyEval_EvalFrameDefault"])
        #expect(InterpreterStackMerger.merge(native: shortNative, interpreted: []) == shortNative)
    }

    @Test func theCulpritIsTheDeepestPythonFrameOfTheUsersCode() {
        let frames = InterpreterStackMerger.merge(
            native: [Self.native("scan_once_unicode", "_json.so"), Self.native("_PyEval_EvalFrameDefault")],
            interpreted: [
                Self.python("loads", "/usr/lib/python3.12/json/__init__.py"),
                Self.python("helper", "/venv/lib/python3.12/site-packages/lib/x.py"), Self.python("parse_feed"),
                Self.python("handle"), Self.python("<module>", ends: true),
            ])
        let sample = StackSample(
            timestampNs: 1, tid: 1, addresses: [1], outcome: .complete, pauseNs: 1, unwindNs: 1, state: nil)
        let profile = StallProfiler().profile([ResolvedSample(sample: sample, frames: frames)])
        #expect(profile.culprit?.symbol == "parse_feed")
        #expect(
            StallDiagnoser.text(.cpu, durationNs: 1, detail: nil, culprit: profile.culprit)
                == "CPU-bound in parse_feed (app.py:12)")
    }

    @Test(arguments: [
        ("/srv/app.py", true), ("/usr/lib/python3.11/json/decoder.py", false),
        ("/root/.pyenv/versions/3.12.1/lib/python3.12/asyncio/events.py", false),
        ("/venv/lib/python3.12/site-packages/requests/api.py", false), ("/usr/lib/python3/dist-packages/x.py", false),
        ("<frozen importlib._bootstrap>", false), ("/home/me/lib/python-tools/app.py", true),
    ])
    func pythonSourcesOfTheStandardLibraryAndPackagesAreNotTheUsers(file: String, isUsers: Bool) {
        #expect(ModuleClassifier.isApplicationSource(file, runtime: .python) == isUsers)
    }

    @Test func lineTablesOfHostileBytesNeverTrap() {
        let hostile: [[UInt8]] = [
            [], [0xff], [0x80], [0xf8, 0xff, 0xff, 0xff], Array(repeating: 0xff, count: 64), [0x7f, 0x80],
        ]
        for table in hostile {
            for format in [CPythonLayout.LineTableFormat.lnotabUnsignedLines, .lnotab, .lineTable310, .locationTable] {
                for offset in [-2, 0, 2, 1000, Int.max / 4] {
                    _ = CPythonLineTable.line(format, table: table, firstLine: 10, byteOffset: offset)
                }
            }
        }
        // 3.9 lnotab: +6 bytes → +1 line, +4 → +2.
        #expect(CPythonLineTable.line(.lnotab, table: [6, 1, 4, 2], firstLine: 10, byteOffset: 8) == 11)
        #expect(CPythonLineTable.line(.lnotab, table: [6, 1, 4, 2], firstLine: 10, byteOffset: 10) == 13)
        // 2.7 lnotab: line deltas are unsigned, 200 lines on (3.x would read -56).
        #expect(CPythonLineTable.line(.lnotabUnsignedLines, table: [6, 200], firstLine: 10, byteOffset: 8) == 210)
        #expect(CPythonLineTable.line(.lnotab, table: [6, 200], firstLine: 10, byteOffset: 8) == -46)
        // 3.10: 4 bytes no line, then 6 bytes at +3.
        #expect(CPythonLineTable.line(.lineTable310, table: [4, 0x80, 6, 3], firstLine: 10, byteOffset: 2) == nil)
        #expect(CPythonLineTable.line(.lineTable310, table: [4, 0x80, 6, 3], firstLine: 10, byteOffset: 6) == 13)
    }

    @Test func aDebugOffsetsBlockWithoutTheCookieOrOfAnotherVersionIsRefused() {
        var block = [UInt8](repeating: 0, count: CPythonLayout.debugOffsetsSize)
        #expect(CPythonLayout(debugOffsets: block) == nil)
        block.replaceSubrange(0..<8, with: CPythonLayout.debugCookie)
        block[8 + 2] = 14  // 3.14
        block[8 + 3] = 3
        #expect(CPythonLayout(debugOffsets: block) == nil)
        #expect(CPythonLayout(debugOffsets: Array(block.prefix(100))) == nil)
    }
}
