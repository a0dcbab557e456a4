import Foundation
import LagmonTestSupport

/// A JUnit file read back the way CI systems read it: with Python's `xml.etree` (strict XML),
/// validated with `xmlschema` against Jenkins' junit-10.xsd (vendored in Tests/Fixtures/junit),
/// and with `junitparser` when it is installed (scripts/install-deps installs both).
struct JUnitFile: Decodable {
    /// Test cases over all suites.
    var tests: Int
    /// The `message` of every `<failure>`.
    var failures: [String]
    /// The text of every `<failure>`.
    var failureTexts: [String]
    /// The names of every test case.
    var names: [String]
    /// Whether junitparser read it too (and agreed on the counts).
    var junitparser: Bool

    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    static let script = """
        import json, sys, xml.etree.ElementTree as ET
        import xmlschema
        xmlschema.XMLSchema(sys.argv[2]).validate(sys.argv[1])
        root = ET.parse(sys.argv[1]).getroot()
        assert root.tag == "testsuites", root.tag
        cases = root.findall("./testsuite/testcase")
        failures = [f for c in cases for f in c.findall("failure")]
        assert int(root.get("tests")) == len(cases) and int(root.get("failures")) == len(failures)
        out = {"tests": len(cases), "failures": [f.get("message") for f in failures],
               "failureTexts": [f.text or "" for f in failures], "names": [c.get("name") for c in cases],
               "junitparser": False}
        try:
            import junitparser
        except ImportError:
            pass
        else:
            xml = junitparser.JUnitXml.fromfile(sys.argv[1])
            parsed = [case for suite in xml for case in suite]
            assert len(parsed) == len(cases), (len(parsed), len(cases))
            failed = [case for case in parsed if any(isinstance(r, junitparser.Failure) for r in case.result)]
            assert len(failed) == len(failures), (len(failed), len(failures))
            out["junitparser"] = True
        print(json.dumps(out))
        """

    static func read(_ path: String) throws -> JUnitFile {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, path, Binaries.packageRoot + "/Tests/Fixtures/junit/junit-10.xsd"]
        let output = Pipe()
        let errors = Pipe()
        python.standardOutput = output
        python.standardError = errors
        try python.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        guard python.terminationStatus == 0 else {
            throw Unreadable(description: "JUnit file \(path) is not readable: \(message.suffix(600))")
        }
        return try JSONDecoder().decode(JUnitFile.self, from: data)
    }
}
