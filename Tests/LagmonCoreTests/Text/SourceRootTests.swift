import LagmonCore
import Testing

/// Source paths placed in the repository for CI annotations: plain path text, hostile paths
/// included, nothing resolved on disk.
struct SourceRootTests {
    static let root = SourceRoot(["/work/app", "/real/app/"])

    @Test(
        arguments: [
            ("/work/app/Sources/App/main.swift", "Sources/App/main.swift"),
            ("/real/app/Sources/App/main.swift", "Sources/App/main.swift"),
            ("/work/app//Sources/./App/../App/main.swift", "Sources/App/main.swift"),
            ("Sources/App/main.swift", "Sources/App/main.swift"),
            ("./Sources/main.swift", "Sources/main.swift"),
        ] as [(String, String)])
    func pathsUnderTheRootBecomeRelative(_ file: String, _ relative: String) {
        #expect(Self.root.relative(file) == relative)
    }

    @Test(arguments: [
        "/work/application/main.swift", "/work/app", "/work/app/", "/usr/include/stdio.h", "/work/app/../etc/passwd",
        "../outside.swift", "", ".", "/work/app/a\nb.swift", "/work/app/a\0.swift",
    ])
    func pathsOutsideTheRootHaveNoPlace(_ file: String) {
        #expect(Self.root.relative(file) == nil, "\(file.debugDescription)")
    }

    @Test func relativeAndEmptySpellingsOfTheRootAreIgnored() {
        let root = SourceRoot(["", "relative/dir", "/work/app", "/work/app/."])
        #expect(root.spellings == ["/work/app"])
    }

    @Test func theFilesystemRootHoldsEveryAbsolutePath() {
        #expect(SourceRoot(["/"]).relative("/src/main.c") == "src/main.c")
    }
}
