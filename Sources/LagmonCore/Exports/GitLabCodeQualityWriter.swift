import FoundationEssentials

/// The gate as a GitLab code quality report (`artifacts:reports:codequality`): a JSON array with
/// one issue per failed check — `description`, `check_name`, `fingerprint`, `severity`,
/// `location.path` and `location.lines.begin`, the fields GitLab documents and validates — so a
/// merge request shows each failed budget at its culprit's line.
///
/// An error-level failure is `major`, a warning `minor`. The location is the culprit's source
/// file in the repository (`GateVerdict.locating(in:)`); a check without one is placed on the
/// first file to open (the report lagmon wrote) at line 1, since GitLab needs a path. The
/// fingerprint hashes the check and its culprit's function and path, not the line or the
/// numbers, so the same regression in the next pipeline is the same issue.
public struct GitLabCodeQualityWriter: GateWriter {
    /// One issue, in GitLab's field names.
    struct Issue: Encodable {
        struct Location: Encodable {
            struct Lines: Encodable { var begin: Int }
            var path: String
            var lines: Lines
        }
        var description: String
        var checkName: String
        var fingerprint: String
        var severity: String
        var location: Location

        enum CodingKeys: String, CodingKey {
            case description, fingerprint, severity, location
            case checkName = "check_name"
        }
    }

    public init() {}

    public func render(_ verdict: GateVerdict) throws -> [UInt8] {
        var fingerprints = Set<String>()
        var issues: [Issue] = []
        for check in verdict.checks where check.failsGate || check.isWarning {
            let culprit = check.evidence?.primary
            var fingerprint = StackFingerprint(
                frames: ["lagmon", verdict.title, check.name, culprit?.function ?? "", culprit?.sourcePath ?? ""]
            ).id
            // Two checks of one name and culprit (a budget given twice) stay two issues.
            while !fingerprints.insert(fingerprint).inserted {
                fingerprint = StackFingerprint(frames: [fingerprint]).id
            }
            issues.append(issue(check, culprit: culprit, fingerprint: fingerprint, verdict: verdict))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(issues)) + [UInt8(ascii: "\n")]
    }

    private func issue(_ check: GateCheck, culprit: GateCulprit?, fingerprint: String, verdict: GateVerdict) -> Issue {
        let path = culprit?.sourcePath ?? verdict.openPaths.first ?? "."
        let line = culprit?.sourcePath == nil ? 1 : max(culprit?.line ?? 1, 1)
        var description = "\(check.messageWithCulprit) in \(verdict.subject)"
        if let first = check.evidence?.culprits.first {
            description += ". \(first.subject): \(first.diagnosis)"
        }
        return Issue(
            description: description, checkName: "lagmon \(verdict.title): \(check.name)", fingerprint: fingerprint,
            severity: check.failsGate ? "major" : "minor",
            location: Issue.Location(path: path, lines: Issue.Location.Lines(begin: line)))
    }
}
