// swift-tools-version: 6.1
// In-process micro-benchmarks of the probe's hot paths on ordo-one/benchmark. A package of its
// own, so that building lagmon (and CI, which builds a fresh clone every run) never resolves or
// builds the harness: `swift package --package-path Benchmarks/Micro benchmark`.
import PackageDescription

let package = Package(
    name: "lagmon-micro",
    dependencies: [
        .package(name: "lagmon", path: "../.."),
        // The malloc interposer trait gives the malloc counts that show the hot paths never
        // allocate; the Swift runtime interposer (another default trait) is left off.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The command plugin runs executable targets whose folder is inside a `Benchmarks` folder.
        .executableTarget(
            name: "ProbeCost",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CLagmonProbe", package: "lagmon"),
            ],
            path: "Benchmarks/ProbeCost",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
