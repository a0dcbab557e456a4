import LagmonCore
import Testing

struct TerminalStyleTests {
    @Test func withoutColoursTextIsUntouched() {
        let style = TerminalStyle(colors: false)
        for styled in [
            style.bold("x"), style.dim("x"), style.red("x"), style.yellow("x"), style.green("x"),
        ] {
            #expect(styled == "x")
        }
    }

    @Test func coloursUseSGRCodesAndReset() {
        let style = TerminalStyle(colors: true)
        #expect(style.bold("x") == "\u{1B}[1mx\u{1B}[0m")
        #expect(style.dim("x") == "\u{1B}[2mx\u{1B}[0m")
        #expect(style.red("x") == "\u{1B}[31mx\u{1B}[0m")
        #expect(style.yellow("x") == "\u{1B}[33mx\u{1B}[0m")
        #expect(style.green("x") == "\u{1B}[32mx\u{1B}[0m")
    }
}
