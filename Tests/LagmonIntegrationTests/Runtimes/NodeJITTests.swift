import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Node stalls name the JavaScript function from the perf map lagmon turns on (node 20): the
/// culprit is `deriveKey` in app.js at the line of its definition, not the OpenSSL leaf under
/// it; the map file is removed when node exits; `--no-jit-maps` leaves node's options alone.
@Suite(.serialized)
struct NodeJITTests {
    static let fixture = Binaries.packageRoot + "/Tests/Fixtures/lagmon-node-jit-fixture/app.js"

    /// The line of `function deriveKey` in the fixture (where V8's map places the function).
    static func definitionLine() throws -> Int {
        let lines = try String(contentsOfFile: fixture, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.hasPrefix("function deriveKey(") }) + 1
    }

    /// Skips the calling test when node is not installed.
    static func requireNode() throws {
        guard ["/usr/bin/node", "/usr/local/bin/node"].contains(where: FileManager.default.isExecutableFile) else {
            try Test.cancel("node is not installed here")
        }
    }

    @Test func aNodeStallNamesTheJavaScriptFunctionAndScript() throws {
        try Self.requireNode()
        let result = try LagmonProcess.run(["run", "--", "node", Self.fixture])
        #expect(result.status == 0)
        #expect(result.stdout.contains("node_options=--perf-basic-prof-only-functions"), "\(result.stdout)")
        let pid = try #require(Self.pid(result.stdout))
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        let culprit = try #require(stall.culprit)
        #expect(culprit.symbol == "deriveKey", "culprit \(culprit.displayName)")
        #expect(culprit.runtime == .javascript)
        #expect(culprit.file == Self.fixture)
        let line = try Self.definitionLine()
        #expect(culprit.line == line)
        #expect(result.lagmonLines.contains { $0.contains("deriveKey (app.js:\(line))") })
        // The OpenSSL work under it (in node, or libcrypto where node links it) stays in the stacks.
        let inside = stall.stacks.filter { stack in stack.frames.contains { $0.symbol == "deriveKey" } }
        #expect(inside.contains { $0.frames.last?.runtime == nil && $0.frames.last?.symbol != nil })
        // lagmon turned the map on, so it removes it.
        #expect(!FileManager.default.fileExists(atPath: "/tmp/perf-\(pid).map"))
    }

    @Test func noJITMapsLeavesNodeAlone() throws {
        try Self.requireNode()
        let result = try LagmonProcess.run(["run", "--no-jit-maps", "--", "node", Self.fixture])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("perf-basic-prof"), "\(result.stdout)")
        let pid = try #require(Self.pid(result.stdout))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/perf-\(pid).map"))
        let culprit = try #require(result.report?.stalls.first?.culprit)
        #expect(culprit.runtime != .javascript, "\(culprit.displayName)")
    }

    static func pid(_ stdout: String) -> Int32? {
        stdout.split(separator: "\n").first { $0.hasPrefix("pid=") }.flatMap { Int32($0.dropFirst(4)) }
    }
}
