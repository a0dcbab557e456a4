import LagmonCore
import Testing

/// Budget files: levels per budget, and every mistake named by its place in the file.
struct BudgetFileTests {
    func parse(_ json: String) throws(BudgetFileError) -> [Budget] {
        try BudgetFile.parse(Array(json.utf8))
    }

    @Test func readsBudgetsWithLevels() throws {
        let budgets = try parse(
            """
            {
              "$schema": "https://lagmon.dev/schemas/budget-1.json",
              "description": "image list",
              "budgets": [
                { "budget": "stall.max < 250ms", "level": "error" },
                { "budget": "stall.count <= 3", "level": "warn", "description": "a few are fine" },
                { "budget": "cpu[main].avg < 50%", "level": "off" },
                { "budget": "blocking.ratio < 5%" }
              ]
            }
            """)
        #expect(budgets.map(\.level) == [.error, .warn, .off, .error])
        #expect(
            budgets.map(\.expression.description) == [
                "stall.max < 250ms", "stall.count <= 3", "cpu[main].avg < 50%", "blocking.ratio < 5%",
            ])
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("{", "not valid JSON"),
        ("[]", "expected an object with a \"budgets\" array"),
        ("\"budgets\"", "expected an object with a \"budgets\" array"),
        ("{}", "missing \"budgets\""),
        (#"{"budgets": {}}"#, "budgets: expected an array"),
        (#"{"budget": []}"#, "unknown key \"budget\""),
        (#"{"budgets": ["stall.max < 1s"]}"#, "budgets[0]: expected an object"),
        (#"{"budgets": [{"level": "warn"}]}"#, "budgets[0]: missing \"budget\""),
        (#"{"budgets": [{"budget": 250}]}"#, "budgets[0]: \"budget\" must be a string"),
        (
            #"{"budgets": [{"budget": "stall.max < 1s", "level": "fatal"}]}"#,
            "budgets[0].level: 'fatal' is not a level; use error, warn or off"
        ),
        (#"{"budgets": [{"budget": "stall.max < 1s", "level": 2}]}"#, "budgets[0].level: this value is not a level"),
        (#"{"budgets": [{"budget": "stall.max < 1s", "levle": "warn"}]}"#, "budgets[0]: unknown key \"levle\""),
        (#"{"budgets": [{"budget": "stall.max < 1s", "description": 5}]}"#, "budgets[0].description: must be a string"),
        (
            #"{"budgets": [{"budget": "stall.max < 1s"}, {"budget": "stall.max < 25parsecs"}]}"#,
            "budgets[1].budget: invalid budget 'stall.max < 25parsecs' at column 15: unknown unit 'parsecs'"
        ),
    ])
    func rejects(_ json: String, _ expected: String) {
        #expect {
            try parse(json)
        } throws: { error in
            guard let error = error as? BudgetFileError else { return false }
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
            return true
        }
    }
}
