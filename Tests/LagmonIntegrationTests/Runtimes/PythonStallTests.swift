import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Stalls of asyncio programs on every CPython installed (3.6–3.13 under pyenv, Debian's
/// python3; 2.7's twin fixture waits in select.epoll): the culprit is the user's Python function with its file and line, as the fixture
/// logs them; the native leaf stays in the stack. A version that is not installed is skipped,
/// saying so.
@Suite(.serialized)
struct PythonStallTests {
    static let fixture = Binaries.packageRoot + "/Tests/Fixtures/lagmon-python-fixture/lagmon_python_stall.py"
    static let pythons: [String: String] = [
        "2.7": "/root/.pyenv/versions/2.7.18/bin/python2.7",
        "3.6": "/root/.pyenv/versions/3.6.15/bin/python3.6", "3.7": "/root/.pyenv/versions/3.7.16/bin/python3.7",
        "3.8": "/root/.pyenv/versions/3.8.18/bin/python3.8", "3.9": "/root/.pyenv/versions/3.9.18/bin/python3.9",
        "3.10": "/root/.pyenv/versions/3.10.13/bin/python3.10",
        "3.11": "/root/.pyenv/versions/3.11.7/bin/python3.11", "3.12": "/root/.pyenv/versions/3.12.1/bin/python3.12",
        "3.13": "/root/.pyenv/versions/3.13.0/bin/python3.13", "debian": "/usr/bin/python3",
    ]

    @Test(arguments: ["2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "debian"])
    func anAsyncioStallNamesTheUsersPythonFunctionFileAndLine(_ version: String) throws {
        guard let python = Self.pythons[version], FileManager.default.isExecutableFile(atPath: python) else {
            try Test.cancel("Python \(version) is not installed here")
        }
        let fixture = Self.fixture(version)
        let result = try LagmonProcess.run(["run", "--", python, fixture, "stall"])
        #expect(result.status == 0)
        let hotLine = try #require(Self.number(after: "hot line=", in: result.stdout))
        let report = try #require(result.report)
        try Self.expectPythonCulprit(report, hotLine: hotLine, version: version, fixture: fixture)
        let name = URL(fileURLWithPath: fixture).lastPathComponent
        #expect(
            result.lagmonLines.contains { $0.contains("parse_feed (\(name):\(hotLine))") },
            "\(result.lagmonLines)")
    }

    @Test func anAttachedPythonProgramsStallNamesItsPythonFunction() throws {
        let program = try WatchedProgram(["/usr/bin/python3", Self.fixture, "wait"])
        _ = try #require(program.waitForLine(containing: "waiting pid="))
        let hotLine = try #require(Self.number(after: "hot line=", in: program.lines.joined(separator: "\n")))
        let lagmon = try LagmonProcess(["attach", String(program.pid)])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        let result = try lagmon.finish()
        #expect(program.waitForExit() == 0)
        let report = try #require(result.report)
        try Self.expectPythonCulprit(report, hotLine: hotLine, version: "python3 (attach)", onlyStall: false)
    }

    /// One stall, its culprit `parse_feed` at the logged line, called by `handle_request`, with
    /// native frames (json's C scanner, the interpreter) inside it.
    /// Attached (`onlyStall` false), the start-up before the loop may count as a stall too: the
    /// longest one is the injected one.
    /// The stalling fixture of `version`: 2.7 has a twin of its own.
    static func fixture(_ version: String) -> String {
        version == "2.7" ? Self.fixture.replacingOccurrences(of: "python_stall", with: "python2_stall") : Self.fixture
    }

    static func expectPythonCulprit(
        _ report: Report, hotLine: Int, version: String, onlyStall: Bool = true, fixture: String = Self.fixture
    ) throws {
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs }, "no stall (\(version))")
        if onlyStall {
            #expect(
                report.stalls.count == 1,
                "\(version): \(report.stalls.map { ($0.durationNs, $0.diagnosis.text, $0.culprit?.displayName) })")
        }
        let culprit = try #require(stall.culprit)
        #expect(culprit.symbol == "parse_feed", "culprit \(culprit.displayName) (\(version))")
        #expect(culprit.runtime == .python)
        #expect(culprit.file == fixture)
        #expect(culprit.line == hotLine, "line \(String(describing: culprit.line)) (\(version))")
        if stall.diagnosis.kind == .cpu {
            let name = URL(fileURLWithPath: fixture).lastPathComponent
            #expect(stall.diagnosis.text == "CPU-bound in parse_feed (\(name):\(hotLine))")
        }
        // The most frequent stack holding parse_feed (a stack whose native unwind stopped short can
        // be listed first: the culprit already asked most samples to hold it).
        let top = try #require(
            stall.stacks.first { $0.frames.contains { $0.symbol == "parse_feed" && $0.runtime == .python } }?.frames,
            "no stack holds parse_feed (\(version))")  // root first
        let parse = try #require(top.lastIndex { $0.symbol == "parse_feed" && $0.runtime == .python })
        // Its caller (≤ 3.10 with the interpreter's native call frames between them).
        #expect(top[..<parse].last { $0.runtime == .python }?.symbol == "handle_request", "\(top.map(\.displayName))")
        // Native frames outside and between the Python ones stay, in the most frequent stack
        // holding parse_feed whose native unwind reached the root (the top stack may be one that
        // stopped short: outer frames are read after the thread resumed, and a thread that returned
        // from them in the meantime leaves only its Python frames above the copied window).
        let whole = try #require(
            stall.stacks.first { stack in
                stack.frames.first?.runtime == nil
                    && stack.frames.contains { $0.symbol == "parse_feed" && $0.runtime == .python }
            }?.frames, "no stack holding parse_feed was unwound to a native root (\(version))")
        let wholeParse = try #require(whole.lastIndex { $0.symbol == "parse_feed" && $0.runtime == .python })
        let firstPython = try #require(whole.firstIndex { $0.runtime == .python })
        #expect(
            whole[firstPython..<wholeParse].contains { $0.runtime == nil },
            "native frames between the Python ones stay: \(whole.map(\.displayName))")
        // json's C scanner runs most of the time: native leaves inside parse_feed stay visible.
        let nativeLeaves = stall.stacks.filter { stack in
            stack.frames.contains { $0.symbol == "parse_feed" } && stack.frames.last?.runtime == nil
        }
        #expect(!nativeLeaves.isEmpty, "no stack with a native leaf inside parse_feed (\(version))")
        #expect(report.sampling.interpreterSamples ?? 0 >= stall.samples)
    }

    static func number(after prefix: String, in text: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }
}
