import ArgumentParser
import FoundationEssentials
import Glibc
import LagmonCore

/// Where the report goes and how the summary looks; shared by every command that reports.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .customLong("json"),
        help: ArgumentHelp("Write the JSON report to PATH ('-' for stdout).", valueName: "path"),
        completion: .file())
    var jsonPath: String?

    @Flag(help: "Print no summary on stderr.")
    var quiet = false

    @OptionGroup var color: ColorOptions

    func validate() throws {
        guard let jsonPath, jsonPath != "-" else { return }
        let directory = PathText.deletingLastComponent(jsonPath)
        var isDirectory = false
        let parent = directory.isEmpty ? "." : directory
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw ValidationError(
                "cannot write the JSON report to \(jsonPath): directory \(parent) does not exist; create it or choose another path"
            )
        }
        guard FileManager.default.isWritableFile(atPath: parent) else {
            throw ValidationError(
                "cannot write the JSON report to \(jsonPath): directory \(parent) is not writable; choose another path")
        }
    }

    /// Whether the stderr summary, status line and verdict may use colours (ColorPolicy).
    var colorsEnabled: Bool { color.colors(for: STDERR_FILENO) }
}
