import Foundation
import LagmonCore
import Testing

/// One run of the lagmon binary, with its output captured and its JSON report (validated
/// against docs/report.schema.json) decoded.
struct LagmonResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var report: Report?
    var reportJSON: [String: Any]?

    /// lagmon's own stderr lines (they all start with "lagmon:").
    var lagmonLines: [String] { stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("lagmon:") } }
}

/// A running lagmon, for tests that interact with it while it runs.
final class LagmonProcess: @unchecked Sendable {
    let process = Process()
    let reportPath: String?
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let stdinPipe = Pipe()
    private var stdoutSoFar = Data()

    /// Starts `lagmon <arguments>`; adds `--json <temp>` after the subcommand unless `json` is false.
    init(_ arguments: [String], json: Bool = true, environment: [String: String] = [:]) throws {
        var arguments = arguments
        if json, arguments.first == "run" {
            let path = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString).json"
            arguments.insert(contentsOf: ["--json", path], at: 1)
            reportPath = path
        } else {
            reportPath = nil
        }
        process.executableURL = URL(fileURLWithPath: Binaries.lagmon)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        try process.run()
    }

    /// Writes to lagmon's stdin (which the target inherits) and closes it.
    func send(stdin text: String) {
        stdinPipe.fileHandleForWriting.write(Data(text.utf8))
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// Reads stdout until a line containing `marker` arrives; returns that line.
    func waitForLine(containing marker: String) -> String? {
        while true {
            if let line = String(decoding: stdoutSoFar, as: UTF8.self).split(separator: "\n").first(where: {
                $0.contains(marker)
            }) {
                return String(line)
            }
            let chunk = stdoutPipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            stdoutSoFar.append(chunk)
        }
    }

    /// Waits for lagmon to exit and collects everything.
    func finish() throws -> LagmonResult {
        try? stdinPipe.fileHandleForWriting.close()
        let rest = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        let errors = stderrPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        stdoutSoFar.append(rest)
        var result = LagmonResult(
            status: process.terminationStatus, stdout: String(decoding: stdoutSoFar, as: UTF8.self),
            stderr: String(decoding: errors, as: UTF8.self), report: nil, reportJSON: nil)
        if let reportPath, FileManager.default.fileExists(atPath: reportPath) {
            try ReportSchema.validate(path: reportPath)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: reportPath))
            result.report = try JSONReportWriter.decode(Array(bytes))
            result.reportJSON = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
            try? FileManager.default.removeItem(atPath: reportPath)
        }
        return result
    }

    /// Runs lagmon to completion.
    static func run(_ arguments: [String], json: Bool = true, stdin: String? = nil, environment: [String: String] = [:])
        throws -> LagmonResult
    {
        let running = try LagmonProcess(arguments, json: json, environment: environment)
        if let stdin { running.send(stdin: stdin) }
        return try running.finish()
    }
}

/// Validates reports against the published schema with Python's jsonschema.
enum ReportSchema {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func validate(path: String) throws {
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        checker.arguments = [
            "python3", "-c",
            "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])), format_checker=jsonschema.FormatChecker())",
            Binaries.packageRoot + "/docs/report.schema.json", path,
        ]
        let errors = Pipe()
        checker.standardError = errors
        try checker.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        checker.waitUntilExit()
        guard checker.terminationStatus == 0 else {
            throw Invalid(description: "report \(path) does not match docs/report.schema.json: \(message.suffix(600))")
        }
    }
}

/// What the demo says it injected (its --truth file).
struct DemoTruth: Decodable {
    var function: String
    var startMonotonicNs: UInt64
    var durationNs: UInt64

    static func load(_ path: String) throws -> [DemoTruth] {
        try JSONDecoder().decode([DemoTruth].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)-\(name)"
}
