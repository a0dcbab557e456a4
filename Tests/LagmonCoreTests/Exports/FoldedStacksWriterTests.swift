import LagmonCore
import Testing

struct FoldedStacksWriterTests {
    @Test func countsAddUpToTheSamplesAndStacksReadBack() throws {
        let report = ExportFixture.report
        let text = String(decoding: try FoldedStacksWriter().render(report), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3)
        var total = 0
        var stacks: [[String]: Int] = [:]
        for line in lines {
            let space = try #require(line.lastIndex(of: " "))
            let count = try #require(Int(line[line.index(after: space)...]))
            total += count
            stacks[line[..<space].split(separator: ";").map { FoldedStacksWriter.unescape(String($0)) }] = count
        }
        #expect(total == report.stalls.reduce(0) { $0 + $1.samples })
        let root = [
            "main", "__libc_start_call_main", "main", "CFRunLoopRunSpecific", "__CFRunLoopRun",
            "__CFRunLoopDoTimer", "ImageListController.loadThumbnail(_:)",
        ]
        #expect(stacks[root + ["ImageDecoder.decodeImage(_:)"]] == 5)
        #expect(stacks[root + ["ImageDecoder.decodeImage(_:)", "operator;\nweird\\name"]] == 2)
        #expect(stacks[root + ["read"]] == 3)
    }

    @Test func separatorsInNamesAreEscapedReversibly() {
        let names = ["a;b", "line\nbreak", "back\\slash", "cr\r\nlf", "plain name (with spaces)", "\\x3b"]
        for name in names {
            let escaped = FoldedStacksWriter.escape(name)
            #expect(!escaped.contains(";") && !escaped.contains("\n") && !escaped.contains("\r"))
            #expect(FoldedStacksWriter.unescape(escaped) == name)
        }
    }

    @Test func stallsWithoutSamplesWriteNothing() throws {
        let report = Fixture.report(stalls: [Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Fixture.ms)])
        #expect(try FoldedStacksWriter().render(report).isEmpty)
    }
}
