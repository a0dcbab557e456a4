import ArgumentParser
import Glibc
import LagmonCore
import LagmonLinux

/// The one place lagmon's outputs go. Every file or stream named on the command line (`--json`,
/// the exports, `--junit`, `--summary-md`) is checked together before anything runs — each
/// writable, no two on one path — and later written through here: streams and devices in place,
/// regular files atomically (docs/exit-codes.md lists the failures).
struct OutputSink {
    /// One output asked for: its option, what it holds (for messages), and its path.
    struct Request {
        var option: String
        var what: String
        var path: String
    }

    private var outputs: [String: (request: Request, destination: OutputDestination)] = [:]

    /// Resolves and checks every request; throws a usage error (64) naming the first path that
    /// cannot be written, or two options that write to the same place.
    init(_ requests: [Request]) throws {
        var owners: [String: Request] = [:]
        for request in requests {
            let destination: OutputDestination
            do {
                destination = try OutputDestination.resolve(request.path)
            } catch {
                throw ValidationError("cannot write \(request.what) to \(Self.shown(request.path)): \(error)")
            }
            let identity = destination.identity
            if let owner = owners[identity] {
                throw ValidationError(
                    "\(owner.option) and \(request.option) both write to \(Self.shown(request.path)); give each output its own path"
                )
            }
            owners[identity] = request
            outputs[request.option] = (request, destination)
        }
    }

    /// The sink of a command's option groups (those it has).
    init(output: OutputOptions? = nil, exports: ExportOptions? = nil, ci: CIOutputOptions? = nil) throws {
        try self.init(
            (output?.outputRequests ?? []) + (exports?.outputRequests ?? []) + (ci?.outputRequests ?? []))
    }

    /// Whether an output goes to lagmon's stdout (`-`, `/dev/stdout`).
    var takesStdout: Bool {
        let stdout = OutputDestination.descriptor(STDOUT_FILENO).identity
        return outputs.values.contains { $0.destination.identity == stdout }
    }

    /// Whether the output of `option` was asked for and goes to a regular file (which a person
    /// can open later), not a stream or a device.
    func writesFile(_ option: String) -> Bool {
        guard case .replace = outputs[option]?.destination else { return false }
        return true
    }

    /// Writes the output of `option`, if it was asked for. A failure is one line and 125, or 141
    /// when the reader of a pipe went away (`--json - | head -c 0`).
    func write(_ bytes: @autoclosure () throws -> [UInt8], for option: String) throws {
        guard let (request, destination) = outputs[option] else { return }
        let rendered = try bytes()
        try Self.write(rendered, to: destination, what: request.what, path: request.path)
    }

    /// Writes `bytes` to stdout (a summary `lagmon report` prints), with the same failures.
    static func writeStdout(_ bytes: [UInt8], what: String) throws {
        try write(bytes, to: .descriptor(STDOUT_FILENO), what: what, path: "-")
    }

    private static func write(_ bytes: [UInt8], to destination: OutputDestination, what: String, path: String) throws {
        // A closed pipe is an error to report, not a signal to die of. The target was spawned
        // before any output is written, so it keeps the disposition lagmon was given.
        signal(SIGPIPE, SIG_IGN)
        do {
            try destination.write(bytes)
        } catch let error as SystemError where error.code == EPIPE {
            let place = path == "-" ? "stdout" : Self.shown(path)
            throw ExitStatus.Failure(
                message: "could not write \(what) to \(place): its reader closed the pipe (broken pipe)",
                status: ExitStatus.brokenPipe)
        } catch {
            throw ExitStatus.Failure(
                message: "could not write \(what) to \(shown(path)): \(error)", status: ExitStatus.internalFailure)
        }
    }

    private static func shown(_ path: String) -> String {
        path == "-" ? "stdout ('-')" : QuotedText.printable(path, limit: 120)
    }
}
