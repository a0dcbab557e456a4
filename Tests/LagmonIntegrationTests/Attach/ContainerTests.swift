import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Targets in containers (other PID and mount namespaces, a root of their own), watched from the
/// host: no Docker engine runs here, so the containers are `unshare` and `chroot` into a small
/// root (scripts/container-root: Debian's python3.11 at /opt/lagmon-ct, a path the host lacks,
/// cached under .build/). lagmon runs as root, or as nobody with CAP_SYS_PTRACE only (then
/// /proc/<pid>/map_files is closed to it and every file is opened by its path inside the
/// container's root).
@Suite(.serialized)
struct ContainerTests {
    static let root = Binaries.packageRoot + "/.build/container-root"
    /// Where the stall fixture sits inside the container.
    static let appPath = "/opt/lagmon-ct/app/lagmon_python_stall.py"
    /// lagmon as nobody with CAP_SYS_PTRACE only.
    static let ptraceOnly = [
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=+sys_ptrace",
        "--ambient-caps=+sys_ptrace", "--",
    ]

    /// Cancels the test unless containers can be made here; builds the root once.
    static func requireContainers() throws {
        guard geteuid() == 0 else { try Test.cancel("containers (unshare, chroot) need root") }
        for tool in ["/usr/bin/unshare", "/usr/sbin/chroot", "/usr/bin/setpriv", "/usr/bin/nsenter"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            try Test.cancel("\(tool) is not installed (util-linux)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3.11") else {
            try Test.cancel("Debian's python3.11 is not installed")
        }
        let probe = try ToolRun.run(["/usr/bin/unshare", "--pid", "--fork", "--mount", "--", "/bin/true"])
        guard probe.status == 0 else { try Test.cancel("unshare cannot make namespaces here: \(probe.stderr)") }
        let built = try ToolRun.run([Binaries.packageRoot + "/scripts/container-root", root])
        try #require(built.status == 0, "scripts/container-root failed: \(built.output)")
        try FileManager.default.createDirectory(
            atPath: root + "/opt/lagmon-ct/app", withIntermediateDirectories: true)
        _ = try? FileManager.default.removeItem(atPath: root + appPath)
        try FileManager.default.copyItem(atPath: PythonStallTests.fixture, toPath: root + appPath)
    }

    /// `command` in new PID and mount namespaces, chrooted into the container root (with its
    /// own /proc) when `chroot` is set, else on the host's files with a /proc of its namespace;
    /// as nobody when `asNobody` is set (a ptrace-only lagmon reads the /proc files of its own
    /// user's processes only: they are mode 0400, and CAP_SYS_PTRACE overrides no file mode).
    static func contained(_ command: [String], chroot: Bool, asNobody: Bool = false, setup: String = "") -> [String] {
        let user =
            asNobody
            ? (chroot ? "--userspec=65534:65534 " : "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ") : ""
        let enter =
            chroot
            ? "mount -t proc proc \"$0/proc\" && \(setup) exec /usr/sbin/chroot \(user)\"$0\" \"$@\""
            : "mount -t proc proc /proc && \(setup) exec \(user)\"$@\""
        // --kill-child: pid 1 of a namespace ignores signals it has no handler for, so the test
        // ends the container by killing unshare (SIGKILL, WatchedProgram), which kills pid 1.
        return [
            "/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private", "--",
            "/bin/sh",
            "-c", enter, root,
        ]
            + command
    }

    /// The host pid of the container's first process (pid 1 inside): unshare's only child.
    static func hostPid(ofChildOf unshare: pid_t) throws -> pid_t {
        let children = try String(contentsOfFile: "/proc/\(unshare)/task/\(unshare)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "unshare has no child")
    }

    /// (a) and (b): a Python loop in its own PID namespace (on the host's files, or chrooted into
    /// a root whose python3.11 the host does not have), attached from the host: the culprit is
    /// the Python function at its line, with the file as the process names it.
    @Test(arguments: [(false, false), (true, false), (true, true)])
    func anAttachedPythonLoopInAContainerNamesItsPythonFunction(chroot: Bool, asPtraceOnly: Bool) throws {
        try Self.requireContainers()
        let fixture = chroot ? Self.appPath : PythonStallTests.fixture
        let python = chroot ? "/opt/lagmon-ct/bin/python3.11" : "/usr/bin/python3.11"
        // Ahead of the machine's other work, as AttachTests: a sampler kept off the CPU takes no
        // sample of a 500 ms stall to name its culprit by.
        let program = try WatchedProgram(
            StackTests.ahead + Self.contained([python, fixture, "wait"], chroot: chroot, asNobody: asPtraceOnly))
        let waiting = try #require(program.waitForLine(containing: "waiting pid="))
        #expect(waiting.hasSuffix("pid=1"), "the fixture is pid 1 of its namespace: \(waiting)")
        let hotLine = try #require(
            PythonStallTests.number(after: "hot line=", in: program.lines.joined(separator: "\n")))
        let pid = try Self.hostPid(ofChildOf: program.pid)
        let lagmon = try LagmonProcess(
            ["attach", String(pid)], wrapper: StackTests.ahead + (asPtraceOnly ? Self.ptraceOnly : []))
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        // lagmon ends with the target.
        let result = try lagmon.finish()
        let report = try #require(result.report, "\(result.stderr)")
        #expect(!report.diagnostics.contains { $0.code == "target-files-unreadable" }, "\(report.diagnostics)")
        try PythonStallTests.expectPythonCulprit(
            report, hotLine: hotLine, version: "container chroot=\(chroot) ptraceOnly=\(asPtraceOnly)",
            onlyStall: false, fixture: fixture)
    }
}

extension ContainerTests {
    /// (c) node in its own PID namespace with a private /tmp (its perf map exists only inside
    /// the container, named after pid 1): JIT frames are named from it, found through
    /// /proc/<pid>/root and the pid of NSpid.
    @Test func anAttachedNodeInAContainerNamesItsJavaScriptFunction() throws {
        try Self.requireContainers()
        guard let node = ["/usr/bin/node", "/usr/local/bin/node"].first(where: FileManager.default.isExecutableFile)
        else { try Test.cancel("node is not installed here") }
        let program = try WatchedProgram(
            Self.contained(
                [node] + ["--perf-basic-prof-only-functions", "--interpreted-frames-native-stack"]
                    + [NodeJITTests.fixture, "wait"], chroot: false, setup: "mount -t tmpfs tmpfs /tmp &&"))
        _ = try #require(program.waitForLine(containing: "waiting"))
        #expect(program.lines.contains("pid=1"), "\(program.lines)")
        let pid = try Self.hostPid(ofChildOf: program.pid)
        let lagmon = try LagmonProcess(["attach", String(pid)])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        let result = try lagmon.finish()
        let report = try #require(result.report, "\(result.stderr)")
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        let culprit = try #require(stall.culprit)
        #expect(culprit.symbol == "deriveKey", "culprit \(culprit.displayName)")
        #expect(culprit.runtime == .javascript)
        #expect(culprit.file == NodeJITTests.fixture)
        #expect(culprit.line == (try NodeJITTests.definitionLine()))
    }

    /// (d) a static C loop chrooted at a path the host does not have, in its own PID namespace:
    /// its native frames are named from the binary inside the container (as root through
    /// map_files, with CAP_SYS_PTRACE only by its path inside the container's root).
    @Test(arguments: [false, true])
    func aCLoopInAChrootHasItsNativeNames(asPtraceOnly: Bool) throws {
        try Self.requireContainers()
        let compiled = try StaticTargetTests.compileFixture()
        defer { try? FileManager.default.removeItem(atPath: (compiled as NSString).deletingLastPathComponent) }
        let inside = "/opt/lagmon-ct/bin/lagmon-ct-loop"
        _ = try? FileManager.default.removeItem(atPath: Self.root + inside)
        try FileManager.default.copyItem(atPath: compiled, toPath: Self.root + inside)
        #expect(!FileManager.default.fileExists(atPath: inside))
        let program = try WatchedProgram(Self.contained([inside, "30", "200"], chroot: true, asNobody: asPtraceOnly))
        _ = try #require(program.waitForLine(containing: "ready"))
        let pid = try Self.hostPid(ofChildOf: program.pid)
        let result = try LagmonProcess.run(["attach", String(pid)], wrapper: asPtraceOnly ? Self.ptraceOnly : [])
        let report = try #require(result.report, "\(result.stderr)")
        #expect(!report.diagnostics.contains { $0.code == "target-files-unreadable" }, "\(report.diagnostics)")
        let culprits = report.stalls.compactMap(\.culprit)
        #expect(!culprits.isEmpty, "no stall with a culprit: \(result.stderr)")
        for culprit in culprits {
            #expect(culprit.symbol == "lagmon_static_fixture_spin", "culprit \(culprit.displayName)")
            #expect(culprit.module == "lagmon-ct-loop")
        }
    }

    /// (e) a container that puts a symlink to a host file where its interpreter was (a tmpfs
    /// mounted over /opt/lagmon-ct/bin after python started, holding `python3.11 ->
    /// /usr/bin/python3.11`, which the host has and the container does not): lagmon, with
    /// CAP_SYS_PTRACE only, resolves it inside the container (nothing there) and says so; it
    /// never opens the host's file (which it would report as another file than the one mapped).
    @Test func aContainersSymlinkToAHostFileIsNotFollowedOutOfIt() throws {
        try Self.requireContainers()
        let python = "/opt/lagmon-ct/bin/python3.11"
        let program = try WatchedProgram(Self.contained([python, Self.appPath, "wait"], chroot: true, asNobody: true))
        _ = try #require(program.waitForLine(containing: "waiting pid="))
        let pid = try Self.hostPid(ofChildOf: program.pid)
        let bin = Self.root + "/opt/lagmon-ct/bin"
        let planted = try ToolRun.run([
            "/usr/bin/nsenter", "--target", String(pid), "--mount", "--", "/bin/sh", "-c",
            "mount -t tmpfs tmpfs \"$0\" && ln -s /usr/bin/python3.11 \"$0/python3.11\"", bin,
        ])
        try #require(planted.status == 0, "planting the symlink failed: \(planted.output)")
        let lagmon = try LagmonProcess(["attach", String(pid)], wrapper: Self.ptraceOnly)
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        let result = try lagmon.finish()
        let report = try #require(result.report, "\(result.stderr)")
        let warning = try #require(
            report.diagnostics.first { $0.code == "target-files-unreadable" }, "\(report.diagnostics)")
        #expect(warning.severity == .warning)
        #expect(
            warning.message.contains("\(python) (pid \(pid)): no such file in the process's root (ENOENT)"),
            "\(warning.message)")
        #expect(!warning.message.contains("another file"), "the host's file was opened: \(warning.message)")
        // Without the interpreter's image there are no Python frames, and no names from the host's.
        let frames = report.stalls.flatMap { $0.stacks.flatMap(\.frames) }
        #expect(!frames.contains { $0.runtime == .python })
        #expect(!frames.contains { $0.module == "python3.11" && $0.symbol != nil }, "named from the host's python3.11")
    }
}

extension ContainerTests {
    /// (f) `lagmon run` inside the container (chroot, own PID namespace, /proc of it) as nobody
    /// with CAP_SYS_PTRACE only, as docs/attach.md#containers says it works: the Python culprit
    /// and line, pids as the container numbers them.
    @Test func lagmonRunsInsideAContainerAsNobodyWithPtraceOnly() throws {
        try Self.requireContainers()
        let preload = Binaries.directory + "/libLagmonPreload.so"
        let libraries = try ToolRun.run([
            Binaries.packageRoot + "/scripts/container-root", Self.root, Binaries.lagmon, preload, "/usr/bin/setpriv",
        ])
        try #require(libraries.status == 0, "scripts/container-root failed: \(libraries.output)")
        if !FileManager.default.fileExists(atPath: Self.root + "/usr/bin/setpriv") {
            try FileManager.default.createDirectory(atPath: Self.root + "/usr/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/usr/bin/setpriv", toPath: Self.root + "/usr/bin/setpriv")
        }
        try FileManager.default.createDirectory(
            atPath: Self.root + Binaries.directory, withIntermediateDirectories: true)
        let reportInside = "/tmp/lagmon-container-run-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: Self.root + reportInside) }
        let command = Self.contained(
            Self.ptraceOnly + [
                Binaries.lagmon, "run", "--json", reportInside, "--", "/opt/lagmon-ct/bin/python3.11", Self.appPath,
                "stall",
            ], chroot: true, setup: "mount --bind '\(Binaries.directory)' \"$0\(Binaries.directory)\" &&")
        let run = try ToolRun.run(command)
        #expect(run.status == 0, "\(run.output)")
        let hotLine = try #require(PythonStallTests.number(after: "hot line=", in: run.text), "\(run.output)")
        try ReportSchema.validate(path: Self.root + reportInside)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.root + reportInside))
        let report = try JSONReportWriter.decode(Array(bytes))
        #expect(!report.diagnostics.contains { $0.code == "target-files-unreadable" }, "\(report.diagnostics)")
        try PythonStallTests.expectPythonCulprit(
            report, hotLine: hotLine, version: "lagmon run in a container", fixture: Self.appPath)
    }
}
