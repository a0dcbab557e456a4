import Foundation

/// Paths of the built executables the integration tests run. `make test` sets LAGMON_BIN_DIR;
/// otherwise they sit next to the test bundle.
enum Binaries {
    static let directory: String = {
        if let explicit = ProcessInfo.processInfo.environment["LAGMON_BIN_DIR"], !explicit.isEmpty {
            return explicit
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = (executable as NSString).deletingLastPathComponent
        // The test runner lives inside lagmonPackageTests.xctest on some toolchains.
        while directory.hasSuffix(".xctest") || directory.contains(".xctest/") {
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory
    }()

    static var lagmon: String { directory + "/lagmon" }
    static var demo: String { directory + "/lagmon-demo" }
    static var agentFixture: String { directory + "/lagmon-agent-fixture" }
    static var pumpedFixture: String { directory + "/lagmon-pumped-fixture" }
    static var loopFixture: String { directory + "/lagmon-loop-fixture" }
    static var strictFixture: String { directory + "/lagmon-strict-fixture" }
    static var stackFixture: String { directory + "/lagmon-stack-fixture" }
    static var stackFixtureLibrary: String { directory + "/liblagmon-stack-fixture-library.so" }
    static var lockFixture: String { directory + "/lagmon-lock-fixture" }
    static var swiftLockFixture: String { directory + "/lagmon-swift-lock-fixture" }
    static var ioFixture: String { directory + "/lagmon-io-fixture" }
    static var waitFixture: String { directory + "/lagmon-wait-fixture" }

    /// The Swift fixtures' package (Tests/Fixtures/swift-servers, built by `make test`); its bin
    /// directory may be given as LAGMON_SWIFT_FIXTURES_DIR.
    static var swiftFixtures: String {
        if let explicit = ProcessInfo.processInfo.environment["LAGMON_SWIFT_FIXTURES_DIR"], !explicit.isEmpty {
            return explicit
        }
        return packageRoot + "/Tests/Fixtures/swift-servers/.build/debug"
    }
    static var concurrencyFixture: String { swiftFixtures + "/lagmon-concurrency-fixture" }
    static var nioFixture: String { swiftFixtures + "/lagmon-nio-fixture" }
    static var hummingbirdFixture: String { swiftFixtures + "/lagmon-hummingbird-fixture" }

    /// The package root (for docs/report.schema.json).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
