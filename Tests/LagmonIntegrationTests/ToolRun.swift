import Foundation

/// One run of a helper tool (chromium, gzip, python3, script), output captured.
struct ToolRun {
    var status: Int32
    var stdout: Data
    var stderr: String

    /// Runs `arguments` (the tool first, looked up on PATH) with stdin from /dev/null.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained concurrently, so neither can fill up and block the tool.
        let errorData = Locked(Data())
        let reader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.done { usleep(1_000) }
        return ToolRun(
            status: process.terminationStatus, stdout: out, stderr: String(decoding: errorData.value, as: UTF8.self))
    }

    var text: String { String(decoding: stdout, as: UTF8.self) }

    /// Everything the tool printed, stdout then stderr.
    var output: String { text + stderr }
}

/// A value handed over from a reader thread once.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    private var isSet = false

    init(_ value: Value) { stored = value }

    func set(_ value: Value) {
        lock.lock()
        stored = value
        isSet = true
        lock.unlock()
    }

    var done: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isSet
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
