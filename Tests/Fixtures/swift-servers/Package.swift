// swift-tools-version: 6.1
// Swift fixtures for lagmon's concurrency tests, in a package of their own so that SwiftNIO is
// built once per CI run (by `make test`, into Tests/Fixtures/swift-servers/.build) and never
// becomes a dependency of lagmon itself.
import PackageDescription

let package = Package(
    name: "swift-servers",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // No traits: its defaults add swift-configuration and full Foundation, which the fixture
        // does not use, to every clean CI build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        .executableTarget(name: "lagmon-concurrency-fixture"),
        .executableTarget(
            name: "lagmon-nio-fixture",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "lagmon-hummingbird-fixture", dependencies: [.product(name: "Hummingbird", package: "hummingbird")]),
    ],
    // Fixtures, not library code: Swift 5 mode spares them Swift 6's data-race checking.
    swiftLanguageModes: [.v5]
)
