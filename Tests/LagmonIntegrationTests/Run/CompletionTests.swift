import Foundation
import LagmonTestSupport
import Testing

/// The bash completion script lagmon generates, driven by a real bash the way readline calls it:
/// paths for every PATH option and report argument, a command and then paths after `--`.
@Suite(.serialized)
struct CompletionTests {
    /// Completions bash offers for `words` (the last one being completed).
    private func complete(_ words: [String], directory: String) throws -> [String] {
        let script = directory + "/lagmon.bash"
        let generated = try ToolRun.run([Binaries.lagmon, "--generate-completion-script", "bash"])
        #expect(generated.status == 0)
        try generated.stdout.write(to: URL(fileURLWithPath: script))
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let driver = """
            source '\(script)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            _lagmon lagmon "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ToolRun.run(
            ["bash", "-c", driver], environment: ["PATH": Binaries.directory + ":/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.text.split(separator: "\n").map(String.init)
    }

    @Test func pathsCommandsAndTheirArguments() throws {
        let directory = temporaryPath("completion")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        FileManager.default.createFile(atPath: directory + "/baseline-report.json", contents: Data())
        FileManager.default.createFile(atPath: directory + "/input.txt", contents: Data())
        #expect(
            try complete(["lagmon", "run", "--json", directory + "/base"], directory: directory)
                == [directory + "/baseline-report.json"])
        #expect(
            try complete(["lagmon", "run", "--pprof", directory + "/inp"], directory: directory)
                == [directory + "/input.txt"])
        #expect(
            try complete(["lagmon", "report", directory + "/base"], directory: directory)
                == [directory + "/baseline-report.json"])
        // After --: the program (from PATH), then its arguments (paths).
        #expect(
            try complete(["lagmon", "run", "--quiet", "--", "lagmon-de"], directory: directory)
                .contains("lagmon-demo"))
        #expect(
            try complete(["lagmon", "run", "--", "lagmon-demo", directory + "/inp"], directory: directory)
                == [directory + "/input.txt"])
        #expect(try complete(["lagmon", "att"], directory: directory) == ["attach"])
    }
}
