import Testing

/// lagmon links FoundationEssentials only: Foundation, its internationalization library and ICU
/// would add about 11 MB to lagmon's resident set (docs/design.md, "lagmon's own footprint").
struct FootprintTests {
    @Test func lagmonMapsNeitherFoundationNorICU() throws {
        // The target is lagmon's child: its parent's maps are lagmon's, while it watches.
        let result = try LagmonProcess.run(
            ["run", "--quiet", "--", "/bin/sh", "-c", "cat /proc/$PPID/maps"], json: false)
        #expect(result.status == 0)
        #expect(
            result.stdout.contains("/libFoundationEssentials.so"), "the maps were read: \(result.stdout.prefix(300))")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!result.stdout.contains("/" + library), "lagmon maps \(library)")
        }
    }
}
