/// The gate as a JUnit XML report: one suite, one test case per budget (or gated diff check).
/// A failed error-level check carries a `<failure>` with the measured value and the limit, its
/// culprit in the message and the worst stalls (diagnosis, culprit, file:line, top frames) and
/// the files to open in the text; a failed warning-level one passes with the same in
/// `<system-out>`, because CI systems fail builds on JUnit failures and warnings must not.
public struct JUnitWriter: GateWriter {
    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        let checks = verdict.checks.filter { $0.severity != .info }
        let failures = checks.filter(\.failsGate).count
        let time = DurationText.fixed(verdict.seconds, digits: 3)
        // Jenkins' junit-10.xsd allows `skipped` on <testsuite> only, not on <testsuites>.
        let counts = "tests=\"\(checks.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\""
        let classname = "lagmon." + verdict.title
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"lagmon\" \(counts)>\n"
        xml += "  <testsuite name=\(Self.attribute("lagmon " + verdict.title)) \(counts) skipped=\"0\">\n"
        xml += "    <properties>\n"
        var properties = [("subject", verdict.subject), ("verdict", verdict.line)]
        if let failure = verdict.targetFailure { properties.append(("target", failure)) }
        for (name, value) in properties {
            xml += "      <property name=\(Self.attribute(name)) value=\(Self.attribute(value))/>\n"
        }
        xml += "    </properties>\n"
        for check in checks {
            xml += testcase(check, classname: classname, openPaths: verdict.openPaths)
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return Array(xml.utf8)
    }

    private func testcase(_ check: GateCheck, classname: String, openPaths: [String]) -> String {
        let open = "    <testcase name=\(Self.attribute(check.name)) classname=\(Self.attribute(classname)) time=\"0\""
        let details = Self.details(check, openPaths: openPaths)
        if check.failsGate {
            return open + ">\n"
                + "      <failure message=\(Self.attribute(check.messageWithCulprit)) type=\"budget\">\(Self.text(details))</failure>\n"
                + "    </testcase>\n"
        }
        if check.isWarning {
            return open + ">\n"
                + "      <system-out>\(Self.text("warning: " + check.messageWithCulprit + "\n" + details))</system-out>\n"
                + "    </testcase>\n"
        }
        return open + "/>\n"
    }

    /// The measurement, the limit and the level, then the evidence (the worst stalls with their
    /// culprits and top frames) and the files to open.
    private static func details(_ check: GateCheck, openPaths: [String]) -> String {
        var lines = ["measured: \(check.measured)", "limit: \(check.limit)", "level: \(check.severity.rawValue)"]
        if let evidence = check.evidence {
            lines += evidence.lines
            if !openPaths.isEmpty { lines.append("open: " + openPaths.joined(separator: ", ")) }
        }
        return lines.joined(separator: "\n")
    }

    /// A quoted attribute value: markup characters and line breaks as references.
    static func attribute(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default: result += xmlCharacter(scalar)
            }
        }
        return result + "\""
    }

    /// Element text: markup characters escaped, line breaks kept.
    static func text(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\n", "\t": result.unicodeScalars.append(scalar)
            default: result += xmlCharacter(scalar)
            }
        }
        return result
    }

    /// The scalar, or its escaped spelling when XML 1.0 cannot carry it at all (other control
    /// characters, U+FFFE, U+FFFF), not even as a character reference.
    private static func xmlCharacter(_ scalar: Unicode.Scalar) -> String {
        let value = scalar.value
        let allowed = value >= 0x20 && value != 0xFFFE && value != 0xFFFF
        return allowed ? String(scalar) : scalar.escaped(asASCII: true).replacingBackslash()
    }
}

extension String {
    /// `\u{1B}` as `U+1B`: an escape that stays readable without a backslash.
    fileprivate func replacingBackslash() -> String {
        hasPrefix("\\u{") && hasSuffix("}") ? "U+" + dropFirst(3).dropLast() : self
    }
}
