import Foundation
import LagmonCore
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The culprit in every CI writer: GitHub annotations at the file and line in the repository,
/// JUnit's failure, the Markdown row and section, GitLab's issue; hostile names kept in place.
struct GateCulpritWriterTests {
    static let culprit = GateCulprit(
        subject: "stall #4 (260ms)", diagnosis: "waiting on a lock (futex) for 260ms",
        function: "ThumbnailCache.value(for:)", file: "/work/app/Sources/App/Cache.swift", line: 19,
        frames: ["__futex_abstimed_wait_common (libc.so.6)", "ThumbnailCache.value(for:) (Cache.swift:19)"])
    static let unsampled = GateCulprit(subject: "stall #5 (200ms)", diagnosis: "no stack samples", function: nil)

    static func verdict(culprits: [GateCulprit] = [culprit, unsampled], root: [String] = ["/work/app"]) -> GateVerdict {
        var verdict = GateWriterTests.verdict()
        verdict.checks[0].evidence = GateEvidence(
            summary: "5 stalls in 4 code paths, the longest of each below", culprits: culprits)
        verdict.checks[1].evidence = verdict.checks[0].evidence
        verdict.openPaths = ["lagmon.json", "lagmon.html"]
        return verdict.locating(in: SourceRoot(root))
    }

    @Test func githubAnnotatesAtTheCulpritsFileAndLine() throws {
        let text = String(decoding: try GitHubAnnotationWriter().render(Self.verdict()), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines[0].hasPrefix(
                "::error file=Sources/App/Cache.swift,line=19,title=lagmon budgets%3A stall.max < 250ms::stall.max=312ms (limit <250ms) — culprit: ThumbnailCache.value(for:) at Sources/App/Cache.swift:19 in ImageViewer --slow%0A5 stalls in 4 code paths"
            ), "\(lines[0])")
        #expect(lines[0].contains("%0Astall #4 (260ms): waiting on a lock (futex) for 260ms%0A  culprit: "))
        #expect(lines[0].contains("%0A    __futex_abstimed_wait_common (libc.so.6)%0A"))
        #expect(lines[0].hasSuffix("%0Aopen: lagmon.json, lagmon.html"))
        #expect(lines[1].hasPrefix("::warning file=Sources/App/Cache.swift,line=19,title="))
    }

    @Test func aFileOutsideTheRootHasNoFilePropertyButIsNamed() throws {
        let text = String(
            decoding: try GitHubAnnotationWriter().render(Self.verdict(root: ["/elsewhere"])), as: UTF8.self)
        #expect(text.hasPrefix("::error title=lagmon budgets%3A stall.max < 250ms::"))
        #expect(text.contains("culprit: ThumbnailCache.value(for:) at /work/app/Sources/App/Cache.swift:19"))
    }

    @Test func filePropertiesAreEscapedLikeTitles() throws {
        var odd = Self.culprit
        odd.file = "/work/app/a,b:c%d.swift"
        let text = String(decoding: try GitHubAnnotationWriter().render(Self.verdict(culprits: [odd])), as: UTF8.self)
        #expect(text.hasPrefix("::error file=a%2Cb%3Ac%25d.swift,line=19,title="), "\(text)")
    }

    @Test func junitFailureNamesTheCulpritAndListsTheEvidence() throws {
        let bytes = try JUnitWriter().render(Self.verdict())
        let parser = XMLParser(data: Data(bytes))
        #expect(parser.parse())
        let xml = String(decoding: bytes, as: UTF8.self)
        #expect(
            xml.contains(
                #"<failure message="stall.max=312ms (limit &lt;250ms) — culprit: ThumbnailCache.value(for:) at Sources/App/Cache.swift:19" type="budget">"#
            ))
        #expect(
            xml.contains(
                """
                level: error
                5 stalls in 4 code paths, the longest of each below
                stall #4 (260ms): waiting on a lock (futex) for 260ms
                  culprit: ThumbnailCache.value(for:) at Sources/App/Cache.swift:19
                  top frames, innermost first:
                    __futex_abstimed_wait_common (libc.so.6)
                    ThumbnailCache.value(for:) (Cache.swift:19)
                stall #5 (200ms): no stack samples
                open: lagmon.json, lagmon.html</failure>
                """), "\(xml)")
    }

    @Test func markdownHasACulpritColumnAndASectionPerFailedCheck() throws {
        let text = String(decoding: try MarkdownSummaryWriter().render(Self.verdict()), as: UTF8.self)
        #expect(
            text.contains(
                "| ❌ fail | `stall.max < 250ms` | 312ms | \\<250ms | error | `ThumbnailCache.value(for:)` at `Sources/App/Cache.swift:19` |"
            ), "\(text)")
        #expect(text.contains("| ✅ pass | `blocking.ratio < 5%` | 4.1% | \\<5% | error |  |"))
        #expect(
            text.contains(
                """
                #### `stall.max < 250ms`

                5 stalls in 4 code paths, the longest of each below

                - **stall \\#4 (260ms)**: waiting on a lock (futex) for 260ms — `ThumbnailCache.value(for:)` at `Sources/App/Cache.swift:19`  
                  `__futex_abstimed_wait_common (libc.so.6)` ← `ThumbnailCache.value(for:) (Cache.swift:19)`
                - **stall \\#5 (200ms)**: no stack samples

                #### `stall.count <= 3`

                The same as `stall.max < 250ms`.

                Open `lagmon.json`, `lagmon.html` for the whole run.
                """), "\(text)")
    }

    @Test func markdownKeepsHostileCulpritsInTheirCell() throws {
        var hostile = Self.culprit
        hostile.function = "evil | `x` <script>\n## heading"
        let text = String(
            decoding: try MarkdownSummaryWriter().render(Self.verdict(culprits: [hostile])), as: UTF8.self)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| ❌ fail") })
        let pipes = zip(row, [" "] + row.dropLast()).filter { $0.0 == "|" && $0.1 != "\\" }.count
        #expect(pipes == 7, "six cells: \(row)")
        #expect(!text.contains("<script>") && !text.contains("\n## heading"))
    }

    @Test func gitlabHasOneIssuePerFailedCheckAtTheCulprit() throws {
        let bytes = try GitLabCodeQualityWriter().render(Self.verdict())
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]])
        #expect(issues.count == 2)
        let first = issues[0]
        #expect(first["severity"] as? String == "major")
        #expect(issues[1]["severity"] as? String == "minor")
        #expect(first["check_name"] as? String == "lagmon budgets: stall.max < 250ms")
        let location = try #require(first["location"] as? [String: Any])
        #expect(location["path"] as? String == "Sources/App/Cache.swift")
        #expect((location["lines"] as? [String: Any])?["begin"] as? Int == 19)
        #expect((first["description"] as? String)?.hasPrefix("stall.max=312ms (limit <250ms) — culprit: ") == true)
        let fingerprints = Set(issues.compactMap { $0["fingerprint"] as? String })
        #expect(fingerprints.count == 2)
        // The same check and culprit in the next pipeline: the same fingerprint, whatever the numbers.
        var later = Self.verdict()
        later.checks[0].message = "stall.max=400ms (limit <250ms)"
        let again = try #require(
            try JSONSerialization.jsonObject(with: Data(try GitLabCodeQualityWriter().render(later)))
                as? [[String: Any]])
        #expect(again[0]["fingerprint"] as? String == first["fingerprint"] as? String)
    }

    @Test func gitlabPlacesAnUnlocatedCheckOnTheReport() throws {
        let bytes = try GitLabCodeQualityWriter().render(Self.verdict(culprits: [Self.unsampled]))
        let issues = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]])
        let location = try #require(issues.first?["location"] as? [String: Any])
        #expect(location["path"] as? String == "lagmon.json")
        #expect((location["lines"] as? [String: Any])?["begin"] as? Int == 1)
    }
}
