import Foundation
import Glibc
import LagmonTestSupport

/// `lagmon-demo` (by default `--scenario hang`, stalled in `ImageDecoder.decodeImage(_:row:budgetNs:)`):
/// spawned with stdout on a pipe, ready once it printed a line (`stalled 200ms`), killed
/// (SIGKILL) and reaped on `stop()` — which every test calls in a `defer`, so the demo never
/// outlives a failure.
final class SymbolizerDemoTarget {
    enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case notReady(String)

        var description: String {
            switch self {
            case .spawn(let code): "cannot spawn lagmon-demo: \(String(cString: strerror(code)))"
            case .notReady(let output): "lagmon-demo did not stall; it printed: \(output)"
            }
        }
    }

    let pid: pid_t
    private var stdout: Int32
    private var stopped = false

    /// Spawns the demo and waits (on its stdout, at most `timeoutMs`) until it printed `readyText`.
    init(scenario: String = "hang", readyText: String = "lagmon-demo: stalled", timeoutMs: Int32 = 30_000) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw Failure.spawn(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        let executable = Binaries.directory + "/lagmon-demo"
        let arguments: [String] = [executable, "--scenario", scenario]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var spawned = pid_t()
        let result = posix_spawn(&spawned, executable, &actions, nil, argv, environ)
        close(pipeEnds[1])
        guard result == 0 else {
            close(pipeEnds[0])
            throw Failure.spawn(result)
        }
        pid = spawned
        stdout = pipeEnds[0]
        do { try waitForOutput(readyText, timeoutMs: timeoutMs) } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Kills and reaps the demo (idempotent).
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, __WALL) < 0 && errno == EINTR {}
        close(stdout)
    }

    /// Reads stdout until `text` appears (the hang scenario prints `stalled` 200 ms into the stall).
    private func waitForOutput(_ text: String, timeoutMs: Int32) throws {
        var output = ""
        while !output.contains(text) {
            var descriptor = pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, timeoutMs) == 1 else { throw Failure.notReady(output) }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(stdout, &chunk, chunk.count)
            guard count > 0 else { throw Failure.notReady(output) }
            output += String(decoding: chunk[0..<count], as: UTF8.self)
        }
    }
}
