import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// One C program (Tests/Fixtures/linker-layouts/two_stalls.c) linked by every linker Debian
/// offers, in every layout they make: lagmon must name both stalling functions, and their source
/// lines, in each. lld and mold share file pages between segments (docs/symbols.md); GNU ld and
/// gold do not by default.
@Suite(.serialized)
struct LinkerLayoutTests {
    /// A way to link the fixture: the name (also the executable's) and the compiler's flags.
    struct Layout: CustomTestStringConvertible, Sendable {
        var name: String
        var flags: [String]
        /// Whether lagmon watches it from /proc (a static program, which LD_PRELOAD cannot enter):
        /// durations are less precise there.
        var isStatic = false
        var testDescription: String { name }
    }

    static let layouts: [Layout] = [
        Layout(name: "bfd-pie", flags: ["-fuse-ld=bfd", "-pie"]),
        Layout(name: "bfd-no-pie", flags: ["-fuse-ld=bfd", "-no-pie"]),
        Layout(name: "bfd-pie-noseparate-code", flags: ["-fuse-ld=bfd", "-pie", "-Wl,-z,noseparate-code"]),
        Layout(name: "gold-pie", flags: ["-fuse-ld=gold", "-pie"]),
        Layout(name: "gold-no-pie", flags: ["-fuse-ld=gold", "-no-pie"]),
        Layout(name: "lld-pie", flags: ["-fuse-ld=lld", "-pie"]),
        Layout(name: "lld-no-pie", flags: ["-fuse-ld=lld", "-no-pie"]),
        Layout(name: "lld-pie-separate-code", flags: ["-fuse-ld=lld", "-pie", "-Wl,-z,separate-code"]),
        Layout(name: "mold-pie", flags: ["-fuse-ld=mold", "-pie"]),
        Layout(name: "mold-no-pie", flags: ["-fuse-ld=mold", "-no-pie"]),
        Layout(name: "bfd-static-pie", flags: ["-fuse-ld=bfd", "-static-pie"], isStatic: true),
        Layout(name: "lld-static-pie", flags: ["-fuse-ld=lld", "-static-pie"], isStatic: true),
        Layout(name: "mold-static-pie", flags: ["-fuse-ld=mold", "-static-pie"], isStatic: true),
    ]

    static let source = Binaries.packageRoot + "/Tests/Fixtures/linker-layouts/two_stalls.c"
    static let stalls = ["first_stall_for_200ms_in_linked_loop", "second_stall_for_300ms_in_linked_loop"]

    @Test(arguments: layouts)
    func bothStallsAreNamedWithTheirLines(layout: Layout) throws {
        let directory = temporaryPath("linker")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = try Self.compile(layout.flags, into: directory + "/" + layout.name)
        try Self.expectBothStallsNamed(try LagmonProcess.run(["run", "--", executable]), isStatic: layout.isStatic)
    }

    /// Stripped, its symbols and lines in a file `.gnu_debuglink` names, beside it and in a
    /// `.debug` directory, as `objcopy --only-keep-debug` makes it.
    @Test(arguments: [false, true])
    func aStrippedProgramIsNamedFromItsDebugLink(inDebugDirectory: Bool) throws {
        let directory = temporaryPath("debuglink")
        try FileManager.default.createDirectory(atPath: directory + "/.debug", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = try Self.compile(["-fuse-ld=lld", "-pie"], into: directory + "/stripped-lld")
        let debug = (inDebugDirectory ? directory + "/.debug/" : directory + "/") + "stripped-lld.debug"
        try Self.tool(["objcopy", "--only-keep-debug", executable, debug])
        try Self.tool(["objcopy", "--strip-all", "--add-gnu-debuglink=\(debug)", executable])
        try Self.expectBothStallsNamed(try LagmonProcess.run(["run", "--", executable]), isStatic: false)
    }

    /// A debug file whose checksum is not the link's is never used: the stripped program keeps
    /// its bare frames (a stall named `stripped-lld+?`, no line).
    @Test func aDebugFileWithAnotherChecksumIsIgnored() throws {
        let directory = temporaryPath("debuglink-crc")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = try Self.compile(["-fuse-ld=lld", "-pie"], into: directory + "/stripped-lld")
        let debug = directory + "/stripped-lld.debug"
        try Self.tool(["objcopy", "--only-keep-debug", executable, debug])
        try Self.tool(["objcopy", "--strip-all", "--add-gnu-debuglink=\(debug)", executable])
        // Same size, one byte changed: only the checksum tells.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: debug))
        bytes[bytes.count - 1] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: debug))
        let result = try LagmonProcess.run(["run", "--", executable])
        let report = try #require(result.report)
        #expect(report.stalls.count == 2)
        for stall in report.stalls {
            #expect(stall.culprit.map { Self.stalls.contains($0.symbol ?? "") } != true, "\(stall.culprit as Any)")
            #expect(stall.culprit?.line == nil)
        }
    }

    // MARK: Helpers

    static func expectBothStallsNamed(_ result: LagmonResult, isStatic: Bool) throws {
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        let injected = Self.injected(result.stdout)
        #expect(injected.map(\.name) == Self.stalls, "\(result.stdout)")
        #expect(report.stalls.count == 2, "\(report.stalls.map(\.durationNs))")
        for (stall, truth) in zip(report.stalls, injected) {
            let culprit = try #require(stall.culprit)
            #expect(culprit.symbol == truth.name)
            #expect(culprit.file == source, "\(culprit)")
            let lines = try Self.bodyLines(of: truth.name)
            #expect(culprit.line.map(lines.contains) == true, "line \(culprit.line as Any), body \(lines)")
            if !isStatic {
                let measuredMs = Double(stall.durationNs) / 1e6
                let injectedMs = Double(truth.durationNs) / 1e6
                #expect(
                    abs(measuredMs - injectedMs) <= injectedMs * 0.05,
                    "lagmon \(measuredMs) ms, fixture \(injectedMs) ms")
            }
        }
    }

    /// The fixture's `stall <name> <start> <duration>` lines.
    static func injected(_ stdout: String) -> [(name: String, durationNs: UInt64)] {
        stdout.split(separator: "\n").filter { $0.hasPrefix("stall ") }.compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, let duration = UInt64(fields[3]) else { return nil }
            return (String(fields[1]), duration)
        }
    }

    /// The source lines strictly between `// body of <name>` and `// end of <name>`.
    static func bodyLines(of name: String) throws -> ClosedRange<Int> {
        let lines = try String(contentsOfFile: source, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let body = try #require(lines.firstIndex { $0.hasSuffix("// body of \(name)") })
        let end = try #require(lines.firstIndex { $0.hasSuffix("// end of \(name)") })
        // Indices are 0-based, lines 1-based: (body + 1) + 1 ... (end + 1) - 1.
        return (body + 2)...end
    }

    /// The fixture linked with `flags` (optimised, with debug information and frame pointers).
    static func compile(_ flags: [String], into output: String) throws -> String {
        try tool(["cc", "-O1", "-g", "-fno-omit-frame-pointer"] + flags + ["-o", output, source])
        return output
    }

    static func tool(_ arguments: [String]) throws {
        let run = try ToolRun.run(arguments)
        try #require(run.status == 0, "\(arguments.joined(separator: " ")) failed: \(run.stderr)")
    }
}
