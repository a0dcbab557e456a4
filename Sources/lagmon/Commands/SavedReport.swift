import FoundationEssentials
import LagmonCore

/// Reads a report `lagmon run --json` wrote, for `check` and `diff`. A file that is missing or
/// not a version-1 report is the caller's mistake: exit 64 with one line naming the problem.
enum SavedReport {
    static func load(_ path: String) throws -> Report {
        let data: [UInt8]
        switch InputFile.read(path) {
        case .success(let contents): data = contents
        case .failure(let problem): throw usage("cannot read the report \(path): \(problem)")
        }
        // JSONDecoder keeps one of two equal keys without a word: the report would be half read.
        if let duplicate = DuplicateJSONKey.find(in: data) {
            throw usage("\(path) is not a lagmon JSON report (\(duplicate)); write one with lagmon run --json")
        }
        let version = (try? JSONDecoder().decode(SchemaVersion.self, from: Data(data)))?.schemaVersion
        if let version, version != Report.currentSchemaVersion {
            throw usage(
                "\(path) is a report of schemaVersion \(version); this lagmon reads version \(Report.currentSchemaVersion)"
            )
        }
        do {
            return try JSONReportWriter.decode(data)
        } catch let error as DecodingError {
            // JSONDecoder calls a number out of its field's range "not valid JSON": name it.
            if let number = OutOfRangeNumber.find(
                in: data, decodes: { (try? JSONReportWriter.decode($0)) != nil })
            {
                throw usage("\(path) is not a lagmon JSON report (\(number)); write one with lagmon run --json")
            }
            throw usage("\(path) is not a lagmon JSON report (\(describe(error))); write one with lagmon run --json")
        } catch {
            throw usage("\(path) is not a lagmon JSON report; write one with lagmon run --json")
        }
    }

    /// Just the version, read before the whole report so a newer one is named as such.
    private struct SchemaVersion: Decodable {
        var schemaVersion: Int?
    }

    private static func usage(_ message: String) -> ExitStatus.Failure {
        ExitStatus.Failure(message: message, status: ExitStatus.usage)
    }

    /// `missing summary.stallCount`, `unexpected value at loops.0.latency`, `not JSON`.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing " + (path(context).isEmpty ? key.stringValue : path(context) + "." + key.stringValue)
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value at " + (path(context).isEmpty ? "the top level" : path(context))
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value at " + path(context)
        @unknown default:
            return "unreadable"
        }
    }
}
