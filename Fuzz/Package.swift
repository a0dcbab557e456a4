// swift-tools-version: 6.0
// libFuzzer harnesses for what lagmon reads from outside: the channel a target writes and the
// JSON reports `lagmon report`/`diff`/`check` load. A package of its own, built only with the
// fuzzer and address sanitizers (`make fuzz`, `make fuzz-smoke`; scripts/fuzz), so that building
// lagmon never needs the sanitizer runtimes.
import PackageDescription

// libFuzzer supplies `main`; the harnesses only export LLVMFuzzerTestOneInput.
let harness: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "lagmon-fuzz",
    dependencies: [.package(name: "lagmon", path: "..")],
    targets: [
        .executableTarget(
            name: "ChannelReaderFuzzer",
            dependencies: [
                .product(name: "LagmonLinux", package: "lagmon"), .product(name: "LagmonCore", package: "lagmon"),
            ],
            swiftSettings: harness),
        .executableTarget(
            name: "ReportReaderFuzzer", dependencies: [.product(name: "LagmonCore", package: "lagmon")],
            swiftSettings: harness),
    ]
)
