import Foundation
import Glibc
import LagmonCore
import LagmonLinux
import Testing

@testable import LagmonSymbols

/// A stripped program whose symbols and lines are in a debug file found by build id, under a
/// debug root of the test's own (as Debian's `-dbgsym` packages install them under
/// /usr/lib/debug), symbolized while it runs.
@Suite(.serialized)
struct DebugFileTests {
    static let source: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/Tests/Fixtures/linker-layouts/two_stalls.c"
    }()

    @Test func aStrippedProgramIsNamedFromItsBuildIDDebugFile() throws {
        let directory = NSTemporaryDirectory() + "lagmon-buildid-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (executable, debug, root) = try Self.strippedProgram(in: directory)
        let address = try Self.stallFunctionAddress(debug)
        let (map, pid) = try Self.runUntilReady(executable)
        let base = try #require(map.mappings.first { $0.path == executable }).start
        // A pc inside the function: its start plus a few bytes (the function's first line).
        let found = Symbolizer(debugDirectories: [root]).symbolize(
            stacks: [[base + address + 4]], map: map, pid: pid, fileSystem: Self.ownRoot)
        let frame = try #require(found.first?.first)
        #expect(frame.symbol == "first_stall_for_200ms_in_linked_loop")
        #expect(frame.file == Self.source)
        #expect((frame.line ?? 0) > 0)
        // Without the root, the stripped program has no name for it.
        let bare = Symbolizer(debugDirectories: []).symbolize(
            stacks: [[base + address + 4]], map: map, pid: pid, fileSystem: Self.ownRoot)
        #expect(bare.first?.first?.symbol == nil)
    }

    /// Another program's debug file at the build id's path is not used.
    @Test func aDebugFileWithAnotherBuildIDIsIgnored() throws {
        let directory = NSTemporaryDirectory() + "lagmon-buildid-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (executable, debug, root) = try Self.strippedProgram(in: directory)
        let address = try Self.stallFunctionAddress(debug)
        // Relink with another build id and put that program's debug file in place.
        let other = directory + "/other"
        try Self.tool([
            "cc", "-O1", "-g", "-fuse-ld=lld", "-Wl,--build-id=0x0123456789abcdef", "-o", other, Self.source,
        ])
        try Self.tool(["objcopy", "--only-keep-debug", other, debug])
        let (map, pid) = try Self.runUntilReady(executable)
        let base = try #require(map.mappings.first { $0.path == executable }).start
        let frame = Symbolizer(debugDirectories: [root]).symbolize(
            stacks: [[base + address + 4]], map: map, pid: pid, fileSystem: Self.ownRoot)
        #expect(frame.first?.first?.symbol == nil)
        #expect(frame.first?.first?.line == nil)
    }

    // MARK: Helpers

    /// The program has ended when it is symbolized (its /proc root is gone): its files are
    /// named in lagmon's own root.
    static var ownRoot: TargetFileSystem { TargetFileSystem(pid: nil) }

    /// The fixture linked by lld, stripped, its debug file at `<root>/.build-id/ab/cdef….debug`.
    static func strippedProgram(in directory: String) throws -> (executable: String, debug: String, root: String) {
        let executable = directory + "/stripped"
        let root = directory + "/debug"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try tool(["cc", "-O1", "-g", "-fuse-ld=lld", "-Wl,--build-id", "-o", executable, source])
        let id = try #require(ELFImage(path: executable)?.buildID)
        try FileManager.default.createDirectory(
            atPath: root + "/.build-id/" + String(id.prefix(2)), withIntermediateDirectories: true)
        let debug = root + "/.build-id/" + String(id.prefix(2)) + "/" + String(id.dropFirst(2)) + ".debug"
        try tool(["objcopy", "--only-keep-debug", executable, debug])
        try tool(["objcopy", "--strip-all", executable])
        #expect(ELFImage(path: executable)?.symbols.isExportsOnly == true)
        return (executable, debug, root)
    }

    /// The function's virtual address, from the debug file's symbol table.
    static func stallFunctionAddress(_ debug: String) throws -> UInt64 {
        let image = try #require(ELFImage(path: debug))
        let names = image.symbols.names { $0.elementsEqual("first_stall_for_200ms_in_linked_loop".utf8) }
        #expect(names.count == 1)
        let nm = try tool(["nm", debug])
        let line = try #require(
            nm.split(separator: "\n").first { $0.hasSuffix(" first_stall_for_200ms_in_linked_loop") })
        return try #require(UInt64(line.prefix { $0 != " " }, radix: 16))
    }

    /// Starts `executable`, waits for its ready line and reads its memory map; it then ends by itself.
    static func runUntilReady(_ executable: String) throws -> (ProcessMemoryMap, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("ready\n") {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the fixture ended before it was ready")
            seen += chunk
        }
        let map = try #require(ProcessMemoryMap.read(pid: process.processIdentifier))
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (map, process.processIdentifier)
    }

    @discardableResult
    static func tool(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(arguments.joined(separator: " ")) failed")
        return text
    }
}
