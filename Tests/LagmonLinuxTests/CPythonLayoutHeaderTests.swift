import Foundation
import Testing

@testable import LagmonCore

/// Proves lagmon's CPython knowledge against each installed interpreter (PythonInterpreters):
/// the layout table equals what scripts/cpython-layout.c prints when compiled against that
/// version's own headers, and line-table decoding gives the line the interpreter itself reports
/// for every instruction offset of a function with loops, branches and a multi-line expression.
struct CPythonLayoutHeaderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(arguments: PythonInterpreters.labels)
    func theLayoutTableIsWhatTheInterpretersHeadersSay(_ label: String) throws {
        guard let python = PythonInterpreters.executable(label) else {
            try Test.cancel("Python \(label) is not installed on this machine")
        }
        let include = try run(python, ["-c", "import sysconfig; print(sysconfig.get_path('include'))"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // 3.7+ keep _PyRuntime in internal headers; 2.7 and 3.6 have none (interp_head is pystate.c's).
        let internalHeaders = ["/internal/pycore_runtime.h", "/internal/pycore_pystate.h", "/internal/pystate.h"]
        let minor = Int(include.split(separator: ".").last?.prefix { $0.isNumber } ?? "") ?? 0
        guard
            minor <= 6 || include.hasSuffix("python2.7")
                || internalHeaders.contains(where: { FileManager.default.fileExists(atPath: include + $0) })
        else {
            try Test.cancel("Python \(label) has no internal headers at \(include)")
        }
        let binary = NSTemporaryDirectory() + "lagmon-cpython-layout-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: binary) }
        _ = try run(
            "/usr/bin/cc",
            [
                "-DPy_BUILD_CORE", "-I", include, "-I", include + "/internal", "-o", binary,
                Self.root.appendingPathComponent("scripts/cpython-layout.c").path,
            ])
        var fields: [String: Int] = [:]
        for line in try run(binary, []).split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2 { fields[String(parts[0])] = Int(parts[1]) }
        }
        let version = try #require(fields["version"])
        let layout: CPythonLayout
        if version >= 313 {
            layout = try #require(Self.layoutFromDebugPositions(fields))
        } else {
            layout = try #require(CPythonLayout.table(version: version))
        }
        let mirror = Mirror(reflecting: layout)
        for child in mirror.children {
            guard let name = child.label, let expected = fields[name] else { continue }
            let actual = (child.value as? Int) ?? (child.value as? Int?).flatMap { $0 } ?? -1
            #expect(actual == expected, "\(name) of \(label): table \(actual), headers \(expected)")
        }
        // 2.7 prints no unicode offsets (its names are byte strings).
        #expect(fields.keys.filter { !$0.hasPrefix("debug.") && $0 != "typeName" }.count >= (version < 300 ? 22 : 25))
    }

    /// 3.13: the positions lagmon reads `_Py_DebugOffsets` at must be the header's, and the
    /// layout they give (from a synthetic block holding the header's own offsets) the header's.
    static func layoutFromDebugPositions(_ fields: [String: Int]) -> CPythonLayout? {
        let positions: [(String, Int)] = [
            ("version", CPythonLayout.DebugPosition.version),
            ("freeThreaded", CPythonLayout.DebugPosition.freeThreaded),
            ("runtimeInterpretersHead", CPythonLayout.DebugPosition.runtimeInterpretersHead),
            ("interpreterNext", CPythonLayout.DebugPosition.interpreterNext),
            ("interpreterThreadsHead", CPythonLayout.DebugPosition.interpreterThreadsHead),
            ("threadNext", CPythonLayout.DebugPosition.threadNext),
            ("threadCurrentFrame", CPythonLayout.DebugPosition.threadCurrentFrame),
            ("threadThreadID", CPythonLayout.DebugPosition.threadThreadID),
            ("threadNativeThreadID", CPythonLayout.DebugPosition.threadNativeThreadID),
            ("framePrevious", CPythonLayout.DebugPosition.framePrevious),
            ("frameExecutable", CPythonLayout.DebugPosition.frameExecutable),
            ("frameInstructionPointer", CPythonLayout.DebugPosition.frameInstructionPointer),
            ("frameOwner", CPythonLayout.DebugPosition.frameOwner),
            ("codeFilename", CPythonLayout.DebugPosition.codeFilename),
            ("codeName", CPythonLayout.DebugPosition.codeName),
            ("codeQualname", CPythonLayout.DebugPosition.codeQualname),
            ("codeLineTable", CPythonLayout.DebugPosition.codeLineTable),
            ("codeFirstLineNumber", CPythonLayout.DebugPosition.codeFirstLineNumber),
            ("codeInstructions", CPythonLayout.DebugPosition.codeInstructions),
            ("bytesSize", CPythonLayout.DebugPosition.bytesSize), ("bytesData", CPythonLayout.DebugPosition.bytesData),
            ("unicodeState", CPythonLayout.DebugPosition.unicodeState),
            ("unicodeLength", CPythonLayout.DebugPosition.unicodeLength),
            ("unicodeASCIISize", CPythonLayout.DebugPosition.unicodeASCIISize),
        ]
        for (name, position) in positions {
            #expect(fields["debug." + name] == position, "_Py_DebugOffsets.\(name)")
        }
        // The values the running interpreter would publish, from the same headers.
        let values: [String: Int] = [
            "runtimeInterpretersHead": fields["runtimeInterpretersHead"] ?? -1,
            "interpreterNext": fields["interpreterNext"] ?? -1,
            "interpreterThreadsHead": fields["interpreterThreadsHead"] ?? -1, "threadNext": fields["threadNext"] ?? -1,
            "threadCurrentFrame": fields["threadFrame"] ?? -1, "threadThreadID": fields["threadThreadID"] ?? -1,
            "threadNativeThreadID": fields["threadNativeThreadID"] ?? -1, "framePrevious": fields["frameBack"] ?? -1,
            "frameExecutable": fields["frameCode"] ?? -1, "frameInstructionPointer": fields["frameInstruction"] ?? -1,
            "frameOwner": fields["frameOwner"] ?? -1, "codeFilename": fields["codeFilename"] ?? -1,
            "codeName": fields["codeName"] ?? -1, "codeQualname": fields["codeQualname"] ?? -1,
            "codeLineTable": fields["codeLineTable"] ?? -1, "codeFirstLineNumber": fields["codeFirstLineNumber"] ?? -1,
            "codeInstructions": fields["codeInstructions"] ?? -1, "bytesSize": fields["bytesSize"] ?? -1,
            "bytesData": fields["bytesData"] ?? -1, "unicodeState": fields["unicodeState"] ?? -1,
            "unicodeLength": fields["unicodeLength"] ?? -1, "unicodeASCIISize": fields["unicodeASCIIData"] ?? -1,
        ]
        var block = [UInt8](repeating: 0, count: CPythonLayout.debugOffsetsSize)
        func put(_ value: UInt64, at position: Int) {
            for index in 0..<8 { block[position + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
        }
        block.replaceSubrange(0..<8, with: CPythonLayout.debugCookie)
        put(0x030D_00F0, at: CPythonLayout.DebugPosition.version)
        for (name, position) in positions where name != "version" && name != "freeThreaded" {
            put(UInt64(values[name] ?? 0), at: position)
        }
        return CPythonLayout(debugOffsets: block)
    }

    @Test(arguments: PythonInterpreters.labels)
    func lineTablesGiveTheLinesTheInterpreterReports(_ label: String) throws {
        guard let python = PythonInterpreters.executable(label) else {
            try Test.cancel("Python \(label) is not installed on this machine")
        }
        let output = try run(python, ["-c", Self.lineScript]).split(separator: "\n").map(String.init)
        let version = try #require(Int(output[0]))
        let format = try #require(
            CPythonLayout.table(version: version)?.lineTableFormat ?? (version >= 313 ? .locationTable : nil))
        let firstLine = try #require(Int(output[1]))
        let table = try #require(Self.bytes(hex: output[2]))
        var checked = 0
        for line in output.dropFirst(3) {
            let parts = line.split(separator: " ")
            let offset = try #require(Int(parts[0]))
            let expected = Int(parts[1])
            let actual = CPythonLineTable.line(format, table: table, firstLine: firstLine, byteOffset: offset)
            #expect(actual == expected, "offset \(offset) of \(label): \(String(describing: actual)) vs \(parts[1])")
            checked += 1
        }
        #expect(checked >= 20)
    }

    /// Prints the version (major × 100 + minor), the function's first line, its line table in hex, then
    /// `offset line` for every instruction (line `None` where the interpreter has none).
    static let lineScript = """
        from __future__ import print_function
        import binascii, dis, sys
        def sample(a):
            x = 0
            for i in range(a):
                if i % 3 == 0:
                    x += i
                else:
                    x -= 1
            try:
                y = [x,
                     a]
            except Exception:
                y = None
            return y
        c = sample.__code__
        print(sys.version_info[0] * 100 + sys.version_info[1])
        print(c.co_firstlineno)
        print(binascii.hexlify(c.co_lnotab if sys.version_info < (3, 10) else c.co_linetable).decode())
        if sys.version_info < (3, 10):
            starts = list(dis.findlinestarts(c))
            # 2.7's instructions are 1 or 3 bytes long: every byte offset is asked.
            for off in range(0, len(c.co_code), 1 if sys.version_info[0] == 2 else 2):
                print(off, [l for o, l in starts if o <= off][-1])
        else:
            for start, end, line in c.co_lines():
                for off in range(start, end, 2):
                    print(off, line)
        """

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments.first ?? "") failed")
        return String(decoding: data, as: UTF8.self)
    }
}
