import LagmonCore
import Testing

struct ColorPolicyTests {
    @Test func alwaysAndNeverDecideAlone() {
        #expect(ColorPolicy.always.colors(isTerminal: false, environment: ["NO_COLOR": "1"]))
        #expect(!ColorPolicy.never.colors(isTerminal: true, environment: ["FORCE_COLOR": "1"]))
    }

    @Test func autoColoursATerminalUnlessNoColorOrDumb() {
        #expect(ColorPolicy.auto.colors(isTerminal: true, environment: [:]))
        #expect(!ColorPolicy.auto.colors(isTerminal: false, environment: [:]))
        #expect(!ColorPolicy.auto.colors(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(ColorPolicy.auto.colors(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!ColorPolicy.auto.colors(isTerminal: true, environment: ["TERM": "dumb"]))
    }

    @Test func forceColorAndClicolorForceColourAPipe() {
        for name in ["FORCE_COLOR", "CLICOLOR_FORCE"] {
            #expect(ColorPolicy.auto.colors(isTerminal: false, environment: [name: "1"]))
            #expect(ColorPolicy.auto.colors(isTerminal: false, environment: [name: "1", "NO_COLOR": "1"]))
            #expect(!ColorPolicy.auto.colors(isTerminal: false, environment: [name: "0"]))
            #expect(!ColorPolicy.auto.colors(isTerminal: false, environment: [name: ""]))
        }
    }
}
