import LagmonCore
import Testing

struct SuggestionTests {
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
