import Foundation

/// The CPython interpreters the interpreter-frame tests run: every pyenv version listed here
/// (2.7, 3.6+) and Debian's python3. A test for one that is absent is skipped, saying so.
enum PythonInterpreters {
    /// `(label, executable)`: pyenv versions by minor, then Debian's.
    static let all: [(label: String, path: String)] =
        ["2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13"].map { ($0, pyenv($0)) } + [
            ("debian", "/usr/bin/python3")
        ]

    static let labels = all.map(\.label)

    /// The executable for `label`, or nil (with the reason) when it is not installed.
    static func executable(_ label: String) -> String? {
        guard let path = all.first(where: { $0.label == label })?.path,
            FileManager.default.isExecutableFile(atPath: path)
        else { return nil }
        return path
    }

    /// The newest pyenv build of 3.`minor` under /root/.pyenv/versions (`3.11.7`), else a path
    /// that does not exist.
    /// The stalling fixture for `label`: 2.7 runs its own (no asyncio, f-strings or async def).
    static func fixture(_ label: String, root: String) -> String {
        root + "/Tests/Fixtures/lagmon-python-fixture/"
            + (label == "2.7" ? "lagmon_python2_stall.py" : "lagmon_python_stall.py")
    }

    private static func pyenv(_ minor: String) -> String {
        let root = "/root/.pyenv/versions"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let matching = versions.filter {
            $0.hasPrefix(minor + ".") && $0.dropFirst(minor.count + 1).allSatisfy(\.isNumber)
        }
        let newest = matching.max { patch($0) < patch($1) }
        return newest.map { "\(root)/\($0)/bin/python\(minor)" } ?? "\(root)/\(minor)-absent/bin/python3"
    }

    private static func patch(_ version: String) -> Int {
        Int(version.split(separator: ".").last ?? "") ?? 0
    }
}
