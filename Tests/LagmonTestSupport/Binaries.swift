import Foundation

/// Paths of the built executables the tests run. `make test` sets LAGMON_BIN_DIR;
/// otherwise they sit next to the test bundle.
public enum Binaries {
    public static let directory: String = {
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

    public static var lagmon: String { directory + "/lagmon" }
    public static var demo: String { directory + "/lagmon-demo" }
    public static var agentFixture: String { directory + "/lagmon-agent-fixture" }
    public static var pumpedFixture: String { directory + "/lagmon-pumped-fixture" }
    public static var loopFixture: String { directory + "/lagmon-loop-fixture" }
    public static var strictFixture: String { directory + "/lagmon-strict-fixture" }
    public static var stackFixture: String { directory + "/lagmon-stack-fixture" }
    public static var stackFixtureLibrary: String { directory + "/liblagmon-stack-fixture-library.so" }
    public static var lockFixture: String { directory + "/lagmon-lock-fixture" }
    public static var swiftLockFixture: String { directory + "/lagmon-swift-lock-fixture" }
    public static var ioFixture: String { directory + "/lagmon-io-fixture" }
    public static var waitFixture: String { directory + "/lagmon-wait-fixture" }

    /// The Swift fixtures' package (Tests/Fixtures/swift-servers, built by `make test`); its bin
    /// directory may be given as LAGMON_SWIFT_FIXTURES_DIR.
    public static var swiftFixtures: String {
        if let explicit = ProcessInfo.processInfo.environment["LAGMON_SWIFT_FIXTURES_DIR"], !explicit.isEmpty {
            return explicit
        }
        return packageRoot + "/Tests/Fixtures/swift-servers/.build/debug"
    }
    public static var concurrencyFixture: String { swiftFixtures + "/lagmon-concurrency-fixture" }
    public static var nioFixture: String { swiftFixtures + "/lagmon-nio-fixture" }
    public static var hummingbirdFixture: String { swiftFixtures + "/lagmon-hummingbird-fixture" }

    /// The package root (for docs/report.schema.json).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
