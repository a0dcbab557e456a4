import Testing

@testable import LagmonCore

/// /proc/<pid>/task/<tid>/schedstat: three numbers and a newline, nothing else accepted.
struct ProcSchedstatTests {
    static let real = Array("2798479 104233 17\n".utf8)

    @Test func parsesARealLine() {
        #expect(
            ProcSchedstat.parse(Self.real) == ProcSchedstat(onCPUNs: 2_798_479, runDelayNs: 104_233, timeslices: 17))
    }

    /// The CPU reader parses straight from the buffer it reads into: a slice that starts and
    /// ends inside a larger array.
    @Test func aSliceOfALargerBufferParses() {
        let buffer = Array("9 9 9\n".utf8) + Self.real + Array("7 7".utf8)
        let start = 6
        #expect(
            ProcSchedstat.parse(buffer[start..<(start + Self.real.count)])
                == ProcSchedstat(onCPUNs: 2_798_479, runDelayNs: 104_233, timeslices: 17))
        #expect(ProcSchedstat.parse(buffer[start..<(start + Self.real.count - 1)]) == nil)
        #expect(ProcSchedstat.parse(buffer[start..<(buffer.count)]) == nil)
    }

    @Test func zerosParse() {
        // Kernels without schedstats enabled print zeros.
        #expect(ProcSchedstat.parse(Array("0 0 0\n".utf8)) == ProcSchedstat(onCPUNs: 0, runDelayNs: 0, timeslices: 0))
    }

    @Test func largestValuesParse() {
        let max = "18446744073709551615"
        #expect(
            ProcSchedstat.parse(Array("\(max) \(max) \(max)\n".utf8))
                == ProcSchedstat(onCPUNs: .max, runDelayNs: .max, timeslices: .max))
    }

    @Test func everyTruncationIsRefused() {
        for length in 0..<Self.real.count {
            #expect(ProcSchedstat.parse(Array(Self.real.prefix(length))) == nil, "prefix of \(length) bytes")
        }
    }

    static let garbled: [String] = [
        "", "\n", " \n", "1 2\n", "1 2 3 4\n", "1 2 3", "1  2 3\n", " 1 2 3\n", "1 2 3 \n", "-1 2 3\n",
        "1 -2 3\n", "1 2 18446744073709551616\n", "0x1 2 3\n", "1 2 3\n\n", "1\t2\t3\n", "1 2 3\r\n", "a b c\n",
        "1 2 3\n4 5 6\n", "１ 2 3\n", "1 2 \n", " 1 2\n", "1  2\n",
    ]

    @Test(arguments: garbled)
    func garbledTextIsRefused(text: String) {
        #expect(ProcSchedstat.parse(Array(text.utf8)) == nil)
    }
}
