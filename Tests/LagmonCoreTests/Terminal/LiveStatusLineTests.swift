import LagmonCore
import Testing

struct LiveStatusLineTests {
    let plain = LiveStatusLine(style: TerminalStyle(colors: false))

    @Test func showsElapsedStallsWorstStateAndCPU() {
        let progress = SessionProgress(
            elapsedNs: 12_345_000_000, stallCount: 4, worstStallNs: 260_000_000,
            loop: .stalled(.afterWaiting, forNs: 1_200_000_000), mainThreadCPUPct: 97.6)
        #expect(
            plain.render(progress, width: 200)
                == "lagmon: 12.3s · 4 stalls · worst 260ms · loop STALLED 1.20s in afterWaiting · main CPU 98%")
    }

    @Test func quietStatesAndNarrowTerminals() {
        let progress = SessionProgress(
            elapsedNs: 500_000_000, stallCount: 0, worstStallNs: 0, loop: .idle, mainThreadCPUPct: nil)
        #expect(plain.render(progress, width: 200) == "lagmon: 0.5s · no stalls · loop idle")
        let cut = plain.render(progress, width: 20)
        #expect(cut.count == 20 && cut.hasSuffix("…"))
        #expect(
            plain.render(
                SessionProgress(elapsedNs: 0, stallCount: 1, worstStallNs: 1, loop: .notObserved, mainThreadCPUPct: 0),
                width: 300
            ).contains("1 stall · worst 1ns · no loop observed yet · main CPU 0%"))
    }

    @Test func colouredOnlyWhileStalled() {
        let colored = LiveStatusLine(style: TerminalStyle(colors: true))
        let busy = SessionProgress(
            elapsedNs: 0, stallCount: 0, worstStallNs: 0, loop: .busy(.beforeTimers), mainThreadCPUPct: nil)
        #expect(!colored.render(busy, width: 100).contains("\u{1B}"))
        var stalled = busy
        stalled.loop = .stalled(.beforeSources, forNs: 200_000_000)
        #expect(colored.render(stalled, width: 100).hasPrefix("\u{1B}[31m"))
    }
}
