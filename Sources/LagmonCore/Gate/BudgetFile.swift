import FoundationEssentials

/// A budget file (`--budget-file lagmon.budget.json`, schema docs/budget.schema.json): budgets
/// with a level each, so a repository keeps its performance gate next to its code.
///
/// ```json
/// { "budgets": [ { "budget": "stall.max < 250ms", "level": "error" },
///                { "budget": "stall.count <= 3", "level": "warn" } ] }
/// ```
public enum BudgetFile {
    /// Reads the file's bytes; every problem names the entry (`budgets[2].level`) and the fix.
    public static func parse(_ bytes: [UInt8]) throws(BudgetFileError) -> [Budget] {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            // JSONDecoder does not say where the syntax error is (JSONSerialization did).
            throw BudgetFileError(path: "", problem: "not valid JSON")
        }
        // JSONDecoder keeps one of two equal keys without a word: which budgets would apply?
        if let duplicate = DuplicateJSONKey.find(in: bytes) {
            throw BudgetFileError(
                path: duplicate.objectPath,
                problem: "duplicate key \"\(QuotedText.printable(duplicate.key, limit: 60))\": keep one of the two")
        }
        guard case .object(let object) = root else {
            throw BudgetFileError(path: "", problem: "expected an object with a \"budgets\" array")
        }
        try checkKeys(object, allowed: ["$schema", "description", "budgets"], path: "")
        guard let entries = object["budgets"] else {
            throw BudgetFileError(
                path: "", problem: "missing \"budgets\": add an array of {\"budget\": …, \"level\": …}")
        }
        guard case .array(let list) = entries else {
            throw BudgetFileError(path: "budgets", problem: "expected an array")
        }
        var budgets: [Budget] = []
        for (index, entry) in list.enumerated() {
            budgets.append(try budget(entry, path: "budgets[\(index)]"))
        }
        return budgets
    }

    private static func budget(_ entry: JSONValue, path: String) throws(BudgetFileError) -> Budget {
        guard case .object(let object) = entry else {
            throw BudgetFileError(path: path, problem: "expected an object like {\"budget\": \"stall.max < 250ms\"}")
        }
        try checkKeys(object, allowed: ["budget", "level", "description"], path: path)
        guard case .string(let text) = object["budget"] else {
            let problem = object["budget"] == nil ? "missing \"budget\"" : "\"budget\" must be a string"
            throw BudgetFileError(path: path, problem: problem + ", for example \"stall.max < 250ms\"")
        }
        var level = BudgetLevel.error
        if let value = object["level"] {
            guard case .string(let name) = value, let parsed = BudgetLevel(rawValue: name) else {
                let shown = value.string.map { "'\(QuotedText.printable($0, limit: 40))'" } ?? "this value"
                throw BudgetFileError(path: path + ".level", problem: "\(shown) is not a level; use error, warn or off")
            }
            level = parsed
        }
        if let description = object["description"], description.string == nil {
            throw BudgetFileError(path: path + ".description", problem: "must be a string")
        }
        do {
            return try Budget(parsing: text, level: level)
        } catch {
            throw BudgetFileError(path: path + ".budget", problem: error.description)
        }
    }

    private static func checkKeys(_ object: [String: JSONValue], allowed: Set<String>, path: String)
        throws(BudgetFileError)
    {
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            let known = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw BudgetFileError(
                path: path, problem: "unknown key \"\(QuotedText.printable(unknown, limit: 40))\"; known keys: \(known)"
            )
        }
    }
}
