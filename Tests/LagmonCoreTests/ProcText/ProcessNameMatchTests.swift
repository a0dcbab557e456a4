import LagmonCore
import Testing

/// `lagmon attach --name`: whole names against comm, argv[0] only past the kernel's 15 bytes.
struct ProcessNameMatchTests {
    @Test func aShortNameMatchesCommWholeAndNothingElse() {
        #expect(ProcessNameMatch.matches(name: "server", comm: "server", argumentZero: "/usr/bin/other"))
        #expect(!ProcessNameMatch.matches(name: "serv", comm: "server", argumentZero: "serv"))
        #expect(!ProcessNameMatch.matches(name: "server", comm: "server-2", argumentZero: "server"))
        #expect(!ProcessNameMatch.matches(name: "server", comm: "python3", argumentZero: "server"))
        #expect(!ProcessNameMatch.matches(name: "", comm: "", argumentZero: ""))
    }

    @Test func aLongNameNeedsItsFirst15BytesAsCommAndArgumentZeroAsTheRest() {
        let name = "lagmon-soak-target"
        #expect(ProcessNameMatch.matches(name: name, comm: "lagmon-soak-tar", argumentZero: "/opt/bin/\(name)"))
        #expect(ProcessNameMatch.matches(name: name, comm: "lagmon-soak-tar", argumentZero: name))
        #expect(
            !ProcessNameMatch.matches(name: name, comm: "lagmon-soak-tar", argumentZero: "/opt/bin/lagmon-soak-tarx"))
        #expect(!ProcessNameMatch.matches(name: name, comm: "lagmon-soak-tar", argumentZero: nil))
        #expect(!ProcessNameMatch.matches(name: name, comm: "lagmon-soak-ta", argumentZero: name))
        #expect(ProcessNameMatch.needsArgumentZero(name: name, comm: "lagmon-soak-tar"))
        #expect(!ProcessNameMatch.needsArgumentZero(name: "server", comm: "serve"))
    }
}
