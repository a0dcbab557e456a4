import LagmonCore
import Testing

/// Path arithmetic with NSString's rules, which lagmon used before it linked FoundationEssentials
/// only (swift-corelibs-foundation trapped on one-character relative paths such as `a` and `.`).
struct PathTextTests {
    @Test(
        arguments: [
            ("", "", ""), ("/", "/", "/"), ("a", "a", ""), (".", ".", ""), ("a/", "a", ""), ("..", "..", ""),
            ("/a", "a", "/"), ("/a/", "a", "/"), ("///a", "a", "/"), ("a/b", "b", "a"), ("a//b", "b", "a"),
            ("/a/b/c", "c", "/a/b"), ("/a/b/c//", "c", "/a/b"), ("./x", "x", "."), ("../x/", "x", ".."),
            ("x/.", ".", "x"), ("report.json", "report.json", ""), ("/opt/My App/bin/app", "app", "/opt/My App/bin"),
            ("é/ü", "ü", "é"), (#"a\b/c"#, "c", #"a\b"#),
        ] as [(String, String, String)])
    func splitsLikeNSString(path: String, last: String, parent: String) {
        #expect(PathText.lastComponent(path) == last)
        #expect(PathText.deletingLastComponent(path) == parent)
    }
}
