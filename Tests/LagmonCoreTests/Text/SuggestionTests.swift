import LagmonCore
import Testing

/// "Did you mean …?" for a mistyped option: only real option names, never punctuation after
/// dashes in a help text (`after --.`), and no guess for a lone letter.
struct SuggestionTests {
    static let help = """
        USAGE: lagmon run [--threshold <duration>] [--json <path>] [-q] [--quiet] -- <command> ...
          <command>    The program to run and its arguments, after --.
          -t, --threshold <duration>
          -o, --json <path>   Write the JSON report to PATH ('-' for stdout).
          --no-color   (as --color never does); see --help.
        """

    @Test(
        arguments: [
            ("--jsn", "--json"), ("--threshhold", "--threshold"), ("-threshold", "--threshold"),
            ("--no-colour", "--no-color"), ("--jsno=x.json", "--json"),
        ] as [(String, String)])
    func closeMistakesGetTheOption(_ typed: String, _ suggested: String) {
        #expect(Suggestion.closestOption(to: typed, inHelp: Self.help) == suggested)
    }

    @Test(arguments: ["-q", "-t", "-x", "--", "--.", "-.", "--zzzzzz"])
    func nothingCloseGetsNoSuggestion(_ typed: String) {
        #expect(Suggestion.closestOption(to: typed, inHelp: Self.help) == nil)
    }

    @Test(arguments: ["--json", "--no-color", "--x1"])
    func optionNamesAreRecognised(_ word: String) {
        #expect(Suggestion.isLongOption(word))
    }

    @Test(arguments: ["--.", "--", "---", "--JSON", "--json-", "--1x", "-q", "--a.b"])
    func punctuationIsNoOption(_ word: String) {
        #expect(!Suggestion.isLongOption(word))
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(Suggestion.editDistance("json", "jsn") == 1)
        #expect(Suggestion.editDistance("run", "rnu") == 2)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("attach", "attach") == 0)
    }

    @Test func closestCandidateWithinTheLimit() {
        let commands = ["run", "attach", "report", "check", "diff"]
        #expect(Suggestion.closest(to: "atach", in: commands) == "attach")
        #expect(Suggestion.closest(to: "reprot", in: commands) == "report")
        #expect(Suggestion.closest(to: "frobnicate", in: commands) == nil)
    }
}
