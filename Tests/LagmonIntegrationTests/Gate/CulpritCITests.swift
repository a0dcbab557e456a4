import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A failing budget names its culprit in every CI output, read by each output's real consumer:
/// JUnit by xmlschema (Jenkins' XSD) and junitparser, Markdown by cmark, GitHub annotations parsed
/// by the runner's workflow command syntax, GitLab's report validated against GitLab's own
/// schema. The demo stalls in `ImageDecoder.decodeImage`, in Sources/lagmon-demo/ImageDecoder.swift.
@Suite(.serialized)
struct CulpritCITests {
    static let demoSource = "Sources/lagmon-demo/ImageDecoder.swift"
    static let culprit = "ImageDecoder.decodeImage(_:row:budgetNs:)"

    struct Outputs {
        var result: LagmonResult
        var junit: String
        var markdown: String
        var gitlab: String
        var html: String
    }

    /// The demo under a budget it fails, with every CI output, run from `directory` (nil: the
    /// test's own) with `extra` options.
    static func run(in directory: String?, _ extra: [String] = []) throws -> Outputs {
        let paths = (
            junit: temporaryPath("junit.xml"), markdown: temporaryPath("summary.md"),
            gitlab: temporaryPath("codequality.json"), html: temporaryPath("report.html")
        )
        let result = try LagmonProcess.run(
            [
                "run", "--budget", "stall.max < 50ms", "--junit", paths.junit, "--summary-md", paths.markdown,
                "--gitlab-codequality", paths.gitlab, "--html", paths.html,
            ] + extra
                + ["--", Binaries.demo, "--scenario", "naive"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": ""],
            wrapper: directory.map { ["/usr/bin/env", "-C", $0] } ?? [])
        return Outputs(
            result: result, junit: paths.junit, markdown: paths.markdown, gitlab: paths.gitlab, html: paths.html)
    }

    /// Where the report says the culprit is: the decoder's file and a line some sample of it had,
    /// or, when no sample of it had a line (code the compiler gave none), its caller's.
    static func expectedPlace(_ report: Report) -> (file: String, lines: ClosedRange<Int>) {
        let decoderLines = report.stalls.flatMap(\.stacks).flatMap(\.frames).filter {
            $0.symbol?.contains("decodeImage") == true && $0.file != nil
        }
        if !decoderLines.isEmpty { return (demoSource, 9...45) }
        return ("Sources/lagmon-demo/ImageListController.swift", 1...400)
    }

    @Test func failingBudgetNamesTheCulpritAndItsLineInEveryCIOutput() throws {
        let outputs = try Self.run(in: nil, ["--source-root", Binaries.packageRoot])
        defer {
            for path in [outputs.junit, outputs.markdown, outputs.gitlab, outputs.html] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let result = outputs.result
        #expect(result.status == 99, "\(result.stderr)")
        let report = try #require(result.report)
        let place = Self.expectedPlace(report)

        // GitHub: one ::error, at the culprit's file (relative to the package root) and line.
        let annotations = try GitHubCommand.parse(result.stdout)
        #expect(annotations.count == 1, "\(result.stdout)")
        let annotation = try #require(annotations.first)
        #expect(annotation.command == "error")
        #expect(annotation.properties["title"] == "lagmon budgets: stall.max < 50ms")
        #expect(annotation.properties["file"] == place.file, "\(annotation)")
        let line = try #require(annotation.properties["line"].flatMap { Int($0) })
        #expect(place.lines.contains(line), "line \(line)")
        #expect(annotation.message.contains("culprit: \(Self.culprit)") || annotation.message.contains(Self.culprit))
        #expect(annotation.message.contains("\(place.file):\(line)"))
        #expect(annotation.message.contains("top frames, innermost first:"))
        #expect(
            annotation.message.contains("\nopen: ") && annotation.message.contains(outputs.html),
            "the HTML page lagmon wrote")

        // JUnit: the failure's message and text name the culprit and its place.
        let junit = try JUnitFile.read(outputs.junit)
        #expect(junit.junitparser)
        let failure = try #require(junit.failures.first)
        #expect(
            failure.contains("— culprit: ") && failure.contains(Self.culprit)
                && failure.contains("\(place.file):\(line)"), "\(failure)")
        let text = try #require(junit.failureTexts.first)
        #expect(text.contains("stalls in") && text.contains("top frames, innermost first:"))
        #expect(text.contains("\nopen: ") && text.contains(outputs.html))

        // Markdown, rendered by cmark: the culprit in the table's row and in the section below.
        let markdown = try String(contentsOfFile: outputs.markdown, encoding: .utf8)
        let html = try ToolRun.run(["cmark", outputs.markdown]).text
        #expect(html.contains("<table>") == false || html.contains("<td>"), "GFM tables render as text in plain cmark")
        #expect(markdown.contains("`\(place.file):\(line)`"), "\(markdown)")
        #expect(html.contains("<code>\(place.file):\(line)</code>"), "\(html)")
        #expect(html.contains("<h4><code>stall.max &lt; 50ms</code></h4>"), "\(html)")
        #expect(html.contains("<strong>stall #"))

        // GitLab: valid against GitLab's schema, at the same place.
        let issues = try GitLabReport.validate(outputs.gitlab)
        #expect(issues.count == 1)
        #expect(issues.first?.path == place.file && issues.first?.line == line)
        #expect(issues.first?.severity == "major")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: Binaries.packageRoot + "/.git")))
    func theSourceRootDefaultsToTheGitTopLevel() throws {
        let outputs = try Self.run(in: Binaries.packageRoot + "/Sources")
        defer {
            for path in [outputs.junit, outputs.markdown, outputs.gitlab, outputs.html] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        #expect(outputs.result.status == 99, "\(outputs.result.stderr)")
        let report = try #require(outputs.result.report)
        let annotation = try #require(try GitHubCommand.parse(outputs.result.stdout).first)
        #expect(annotation.properties["file"] == Self.expectedPlace(report).file, "\(annotation)")
    }

    @Test func aSourceRootOutsideTheFilesGivesNoFileButNamesIt() throws {
        let outputs = try Self.run(in: nil, ["--source-root", "/usr/share"])
        defer {
            for path in [outputs.junit, outputs.markdown, outputs.gitlab, outputs.html] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let annotation = try #require(try GitHubCommand.parse(outputs.result.stdout).first)
        #expect(annotation.properties["file"] == nil && annotation.properties["line"] == nil)
        #expect(
            annotation.message.contains(Binaries.packageRoot + "/Sources/lagmon-demo/"), "the absolute path, in words")
        let missing = try LagmonProcess.run(["run", "--source-root", "/nonexistent", "--", "/bin/true"], json: false)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--source-root: /nonexistent is not a directory"))
    }

    @Test func diffReportsANewFingerprintWithItsCulprit() throws {
        let baseline = temporaryPath("baseline.json")
        let current = temporaryPath("current.json")
        let markdown = temporaryPath("diff.md")
        defer { for path in [baseline, current, markdown] { try? FileManager.default.removeItem(atPath: path) } }
        let quiet = try LagmonProcess.run(
            ["run", "--json", baseline, "--quiet", "--", Binaries.demo, "--scenario", "async"], json: false)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        let naive = try LagmonProcess.run(
            ["run", "--json", current, "--quiet", "--", Binaries.demo, "--scenario", "naive"], json: false)
        #expect(naive.status == 0, "\(naive.stderr)")
        let diff = try LagmonProcess.run(
            ["diff", baseline, current, "--summary-md", markdown, "--source-root", Binaries.packageRoot], json: false,
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": ""])
        #expect(diff.status == 99, "\(diff.stderr)")
        let report = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: current))))
        let place = Self.expectedPlace(report)
        let new = try GitHubCommand.parse(diff.stdout).filter { $0.properties["title"]?.contains("new stall") == true }
        #expect(!new.isEmpty, "\(diff.stdout)")
        #expect(new.contains { $0.properties["file"] == place.file }, "\(new)")
        let text = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(text.contains("| ❌ fail | new stall: ") && text.contains("`\(place.file):"), "\(text)")
    }
}
