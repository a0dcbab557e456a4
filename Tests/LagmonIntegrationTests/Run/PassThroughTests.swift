import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// lagmon leaves the target's stdio, arguments and exit status alone.
struct PassThroughTests {
    @Test(arguments: [0, 3, 42])
    func exitStatusIsPassedThrough(_ status: Int32) throws {
        let result = try LagmonProcess.run(["run", "--", "/bin/sh", "-c", "exit \(status)"])
        #expect(result.status == status)
        #expect(result.report?.target.exitStatus == status)
        #expect(result.report?.target.signal == nil)
    }

    @Test func demoExitStatusIsPassedThrough() throws {
        let result = try LagmonProcess.run([
            "run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "0.1", "--exit-status", "7",
        ])
        #expect(result.status == 7)
    }

    @Test func stdinStdoutAndStderrReachTheTarget() throws {
        let result = try LagmonProcess.run(
            ["run", "--", "/bin/sh", "-c", "read line; echo \"out:$line\"; echo \"err:$line\" >&2"], stdin: "hello\n")
        #expect(result.stdout == "out:hello\n")
        #expect(result.stderr.hasPrefix("err:hello\n"))
        #expect(result.lagmonLines.count >= 1)
    }

    @Test func argumentsAreUntouched() throws {
        let result = try LagmonProcess.run(["run", "--", "/bin/echo", "--threshold", "5ms", "a b", "--"])
        #expect(result.stdout == "--threshold 5ms a b --\n")
        #expect(result.report?.target.command == ["/bin/echo", "--threshold", "5ms", "a b", "--"])
    }

    @Test func quietPrintsNothingOfLagmonsOwn() throws {
        let result = try LagmonProcess.run(["run", "--quiet", "--", "/bin/true"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    @Test func jsonToStdout() throws {
        let result = try LagmonProcess.run(["run", "--json", "-", "--quiet", "--", "/bin/true"], json: false)
        let report = try JSONReportWriter.decode(Array(result.stdout.utf8))
        #expect(report.schemaVersion == 1)
        #expect(report.target.command == ["/bin/true"])
    }

    @Test func summaryHasNoColorsWhenStderrIsNotATerminal() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "lock"])
        #expect(!result.stderr.contains("\u{1B}["))
        #expect(result.lagmonLines.contains { $0.contains("1 stall over 100ms") })
    }

    @Test func summaryIsColouredOnATerminalUnlessNoColor() throws {
        let command = "\(Binaries.lagmon) run -- \(Binaries.demo) --scenario lock"
        let colored = try runUnderTerminal(command, environment: [:])
        #expect(colored.contains("\u{1B}[31m"))
        let plain = try runUnderTerminal(command, environment: ["NO_COLOR": "1"])
        #expect(plain.contains("lagmon: "))
        #expect(!plain.contains("\u{1B}[31m"))
        let flagged = try runUnderTerminal(command + " --no-color", environment: [:])
        #expect(!flagged.contains("\u{1B}[31m"))
    }

    /// Runs a shell command under a pseudo-terminal (util-linux `script`) and returns its output.
    private func runUnderTerminal(_ command: String, environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
