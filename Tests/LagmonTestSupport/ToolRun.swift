import Foundation

/// One run of a helper tool (chromium, gzip, python3, script), output captured.
public struct ToolRun {
    public var status: Int32
    public var stdout: Data
    public var stderr: String

    /// Runs `arguments` (the tool first, looked up on PATH) with stdin from /dev/null.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ToolRun {
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

    public var text: String { String(decoding: stdout, as: UTF8.self) }

    /// Everything the tool printed, stdout then stderr.
    public var output: String { text + stderr }
}

/// A value handed over from a reader thread once.
/// (`@unchecked`: every access takes the lock.)
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    private var isSet = false

    public init(_ value: Value) { stored = value }

    public func set(_ value: Value) {
        lock.lock()
        stored = value
        isSet = true
        lock.unlock()
    }

    public var done: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isSet
    }

    public var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
