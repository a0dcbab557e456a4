import Foundation
import LagmonTestSupport
import Testing

/// The live status line in a real terminal (tmux, 80 columns × 24 rows): it keeps the bottom row
/// while the program's own lines scroll above it, never mixing with them, and is gone after the
/// summary, also when Ctrl-C ends the run.
@Suite(.serialized)
struct LiveTerminalTests {
    /// One tmux server of its own (`-L`) running `lagmon <arguments>` in an 80×24 pane, then
    /// writing lagmon's status to a marker file.
    final class Pane {
        let name = "lagmon-test-\(UUID().uuidString.prefix(8))"
        let marker = temporaryPath("exit")

        init(_ arguments: [String]) throws {
            let command = ([Binaries.lagmon] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let shell = "\(command); echo EXIT:$? > '\(marker)'; sleep 600"
            // The server tmux forks would keep every descriptor it inherited, and so the pipes a
            // tool run reads to their end: start it from Python with none of them.
            let started = try ToolRun.run([
                "python3", "-c", Self.detached, "tmux", "-L", name, "new-session", "-d", "-s", name, "-x", "80", "-y",
                "24", shell,
            ])
            #expect(started.status == 0, "\(started.stderr)")
        }

        /// Runs argv[1:] with stdio on /dev/null, no other inherited descriptor and default signal
        /// dispositions (the test runner may ignore SIGINT, which children would inherit, and then
        /// Ctrl-C in the pane would do nothing); exits with its status.
        static let detached = """
            import signal, subprocess, sys
            for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            sys.exit(subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, close_fds=True))
            """

        deinit {
            _ = try? ToolRun.run(["python3", "-c", Self.detached, "tmux", "-L", name, "kill-server"])
            try? FileManager.default.removeItem(atPath: marker)
        }

        /// `tmux -L <own server> <arguments>`.
        func tmux(_ arguments: [String]) throws -> ToolRun {
            try ToolRun.run(["tmux", "-L", name] + arguments)
        }

        /// The visible screen, one string per row.
        func screen() throws -> [String] {
            try tmux(["capture-pane", "-p", "-t", name]).text
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        /// Everything the pane holds, scrollback included, with wrapped lines joined.
        func everything() throws -> [String] {
            try tmux(["capture-pane", "-p", "-J", "-S", "-2000", "-t", name]).text
                .split(separator: "\n").map(String.init)
        }

        /// Waits (bounded) until `condition` holds for the screen; false when it never did.
        func waitForScreen(_ condition: ([String]) -> Bool) throws -> Bool {
            for _ in 0..<1_200 {
                if condition(try screen()) { return true }
                usleep(50_000)
            }
            return false
        }

        /// lagmon's exit status, once the shell wrote it (bounded wait).
        func exitStatus() throws -> String? {
            for _ in 0..<1_200 {
                if let text = try? String(contentsOfFile: marker, encoding: .utf8) {
                    return text.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                usleep(50_000)
            }
            return nil
        }
    }

    static func isStatusLine(_ line: String) -> Bool {
        line.hasPrefix("lagmon: ") && line.contains(" · ") && line.contains("loop")
    }

    @Test func programOutputScrollsAboveTheStatusLineAndNeverMixes() throws {
        let pane = try Pane(["run", "--", Binaries.demo, "--scenario", "naive"])
        let status = try pane.exitStatus()
        #expect(status == "EXIT:0")
        let lines = try pane.everything()
        // Every line the program wrote is whole: nothing glued before or after it.
        let rows = lines.filter { $0.contains("lagmon-demo: row") }
        #expect(rows.count == 6, "\(lines.prefix(20))")
        #expect(rows.allSatisfy { $0.hasPrefix("lagmon-demo: row ") && !$0.contains("lagmon: ") })
        #expect(!lines.contains { Self.isStatusLine($0) }, "no status line left behind")
        #expect(lines.contains { $0.contains("6 stalls over 100ms") })
    }

    @Test func bottomRowWhileRunningAndGoneAfterCtrlC() throws {
        let pane = try Pane(["run", "--", Binaries.demo, "--scenario", "hang"])
        // The status line sits on the 24th row; the program's first line stays at the top.
        let drawn = try pane.waitForScreen { screen in
            screen.count >= 24 && screen[23].contains("loop STALLED") && Self.isStatusLine(screen[23])
        }
        let screen = try pane.screen()
        #expect(drawn, "\(screen)")
        #expect(screen.first?.hasPrefix("lagmon-demo: pid ") == true)
        let sent = try pane.tmux(["send-keys", "-t", pane.name, "C-c"])
        #expect(sent.status == 0)
        let status = try pane.exitStatus()
        #expect(status == "EXIT:130")
        let lines = try pane.everything()
        #expect(!lines.contains { Self.isStatusLine($0) }, "\(lines.suffix(5))")
        #expect(!lines.contains { $0.contains("STALLED") })
        #expect(lines.contains { $0.contains("was killed by SIGINT") || $0.contains("SIGINT") })
        #expect(lines.filter { $0.contains("lagmon-demo:") }.allSatisfy { !$0.contains("lagmon: ") })
    }
}
