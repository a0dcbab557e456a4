import ArgumentParser
import FoundationEssentials
import LagmonCore

/// Budgets a run or a saved report must meet; shared by `lagmon run` and `lagmon check`. Every
/// budget is parsed in `validate()`, so a bad one stops lagmon before the target starts.
struct BudgetOptions: ParsableArguments {
    @Option(
        name: .customLong("budget"),
        help: ArgumentHelp(
            "Fail (exit 99) unless this holds: METRIC[.STAT] OP VALUE[UNIT], e.g. 'stall.max < 250ms'. Repeatable.",
            valueName: "expr"))
    var errorBudgets: [String] = []

    @Option(
        name: .customLong("warn"),
        help: ArgumentHelp("Like --budget, but a failure is only reported. Repeatable.", valueName: "expr"))
    var warnBudgets: [String] = []

    @Option(
        name: .customLong("budget-file"),
        help: ArgumentHelp(
            "Read budgets with levels (error, warn, off) from a JSON file (docs/budget.schema.json).",
            valueName: "path"),
        completion: .file())
    var budgetFile: String?

    /// Whether any budget was given.
    var isEmpty: Bool { errorBudgets.isEmpty && warnBudgets.isEmpty && budgetFile == nil }

    func validate() throws {
        _ = try load()
    }

    /// Every budget: the file's first, then `--budget`s, then `--warn`s, each in the order given.
    func load() throws -> [Budget] {
        var budgets = try budgetFile.map(Self.read) ?? []
        budgets += try errorBudgets.map { try Self.parse($0, level: .error, option: "--budget") }
        budgets += try warnBudgets.map { try Self.parse($0, level: .warn, option: "--warn") }
        return budgets
    }

    private static func parse(_ text: String, level: BudgetLevel, option: String) throws -> Budget {
        do {
            return try Budget(parsing: text, level: level)
        } catch {
            throw ValidationError("\(option): \(error)")
        }
    }

    private static func read(_ path: String) throws -> [Budget] {
        let data: [UInt8]
        switch InputFile.read(path) {
        case .success(let contents): data = contents
        case .failure(let problem): throw ValidationError("cannot read the budget file \(path): \(problem)")
        }
        do {
            return try BudgetFile.parse(data)
        } catch {
            throw ValidationError("invalid budget file \(path): \(error)")
        }
    }
}
