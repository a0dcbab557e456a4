import Foundation
import LagmonTestSupport

/// A GitLab code quality report read as GitLab reads it: a JSON array whose every issue is valid
/// against the schema GitLab validates issues with (app/validators/json_schemas/codeclimate.json,
/// vendored in Tests/Fixtures/gitlab), plus what GitLab's merge request widget relies on: unique
/// fingerprints, a known severity, a relative path and a line from 1.
enum GitLabReport {
    struct Issue: Decodable, Equatable {
        var path: String
        var line: Int
        var severity: String
        var description: String
        var checkName: String
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static let script = """
        import json, sys
        import jsonschema
        schema = json.load(open(sys.argv[2]))
        issues = json.load(open(sys.argv[1]))
        assert isinstance(issues, list), "not an array"
        for issue in issues:
            jsonschema.validate(issue, schema)
            assert issue["severity"] in ("info", "minor", "major", "critical", "blocker"), issue["severity"]
            assert isinstance(issue["check_name"], str) and issue["check_name"], issue
            path = issue["location"]["path"]
            assert path and not path.startswith("/"), path
            assert isinstance(issue["location"]["lines"]["begin"], int) and issue["location"]["lines"]["begin"] >= 1
        assert len({i["fingerprint"] for i in issues}) == len(issues), "fingerprints repeat"
        print(json.dumps([{"path": i["location"]["path"], "line": i["location"]["lines"]["begin"],
                           "severity": i["severity"], "description": i["description"],
                           "checkName": i["check_name"]} for i in issues]))
        """

    /// The issues of the report at `path`, validated.
    static func validate(_ path: String) throws -> [Issue] {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c", script, path, Binaries.packageRoot + "/Tests/Fixtures/gitlab/codeclimate.json",
        ]
        let output = Pipe()
        let errors = Pipe()
        python.standardOutput = output
        python.standardError = errors
        try python.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        guard python.terminationStatus == 0 else {
            throw Invalid(description: "GitLab code quality report \(path) is invalid: \(message.suffix(600))")
        }
        return try JSONDecoder().decode([Issue].self, from: data)
    }
}
