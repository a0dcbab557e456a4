import Testing

@testable import LagmonCore

/// /proc's parent chain, not the channel, decides which processes belong to a session.
struct ProcessLineageTests {
    static let parents: [Int32: Int32] = [100: 1, 200: 100, 300: 200, 400: 1, 500: 500]

    @Test func theTargetAndItsDescendantsDescend() {
        #expect(ProcessLineage.descends(100, from: 100) { Self.parents[$0] })
        #expect(ProcessLineage.descends(300, from: 100) { Self.parents[$0] })
    }

    @Test func strangersGoneProcessesAndCyclesDoNot() {
        #expect(!ProcessLineage.descends(400, from: 100) { Self.parents[$0] }, "another child of init")
        #expect(!ProcessLineage.descends(1, from: 100) { Self.parents[$0] })
        #expect(!ProcessLineage.descends(600, from: 100) { Self.parents[$0] }, "gone")
        #expect(!ProcessLineage.descends(500, from: 100) { Self.parents[$0] }, "its own parent")
        #expect(!ProcessLineage.descends(-5, from: 100) { _ in 100 })
    }

    @Test(arguments: [
        ("1234 (bash) S 99 1234 1234 0 -1", Int32(99)),
        ("77 (a) R 5 (b) S 12 77 77", 12),
        ("5 (name with spaces) Z 4000 5 5", 4000),
    ])
    func theParentIsReadAfterTheLastParenthesis(line: String, parent: Int32) {
        #expect(ProcessLineage.parentPid(statLine: Array(line.utf8)) == parent)
    }

    @Test(arguments: ["", "1234 (bash", "1234 (bash) S", "1234 (bash) S x 1", "1 (a) S 99999999999 1"])
    func garbledLinesHaveNoParent(line: String) {
        #expect(ProcessLineage.parentPid(statLine: Array(line.utf8)) == nil)
    }
}
