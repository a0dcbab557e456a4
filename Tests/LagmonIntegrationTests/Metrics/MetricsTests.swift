import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// `--metrics-listen` and `--push-gateway` against the real servers: Debian's prometheus
/// scrapes a running `lagmon attach`, Debian's prometheus-pushgateway receives a `lagmon run`'s
/// push, promtool checks the exposition. Every server runs on its own loopback port with its own
/// temporary files, and is killed at the end of its test.
@Suite(.serialized)
struct MetricsTests {
    /// The C loop fixture: `stalls` 250 ms stalls, then ticks for as long as the test lets it.
    static func stallingLoop(stalls: Int, ticksAfter: Int) -> [String] {
        [
            Binaries.loopFixture, "stall", "--period-ms", "300", "--ticks-before", "1", "--stalls", String(stalls),
            "--ticks-after", String(ticksAfter), "--wait-for-input",
        ]
    }

    @Test func prometheusScrapesTheStallsOfARunningAttach() throws {
        // Prometheus first: the fixture, once attached, must get its go at once (blocked on
        // stdin, it is busy outside any wait call).
        let port = try freeLoopbackPort()
        let prometheus = try LocalServer(
            [
                "/usr/bin/prometheus", "--config.file={dir}/prometheus.yml", "--storage.tsdb.path={dir}/data",
                "--web.listen-address=127.0.0.1:{port}",
            ], readyPath: "/-/ready",
            files: [
                "prometheus.yml": """
                global: {scrape_interval: 1s, scrape_timeout: 1s}
                scrape_configs:
                  - job_name: lagmon
                    static_configs: [{targets: ['127.0.0.1:\(port)']}]
                """
            ])
        let program = try WatchedProgram(Self.stallingLoop(stalls: 3, ticksAfter: 1_000_000))
        _ = try #require(program.waitForLine(containing: "waiting pid="))
        let lagmon = try LagmonProcess(["attach", String(program.pid), "--metrics-listen", "127.0.0.1:\(port)"])
        let line = try #require(lagmon.waitForErrorLine(containing: "metrics at http://"))
        #expect(line == "lagmon: metrics at http://127.0.0.1:\(port)/metrics")
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        // Prometheus holds the fixture's three stalls once it scraped after the third ended.
        var stalls: Double?
        let scraped = poll(seconds: 90) {
            stalls = try? Self.query(prometheus, "sum(lagmon_stalls_total{job=\"lagmon\"})")
            return (stalls ?? 0) >= 3
        }
        #expect(scraped, "Prometheus saw \(stalls.map { String($0) } ?? "nothing"): \(prometheus.log(tail: 1000))")
        #expect(stalls == 3)
        #expect(try Self.query(prometheus, "lagmon_target_up{job=\"lagmon\"}") == 1)
        let iterations = try Self.query(prometheus, "sum(lagmon_loop_iterations_total{job=\"lagmon\"})")
        #expect((iterations ?? 0) > 0)
        let cpuStalls = try Self.query(prometheus, "sum(lagmon_stalls_total{diagnosis=~\"cpu|runqueue\"})")
        #expect(cpuStalls == 3, "the fixture spins: CPU-bound stalls")
        let slow = try Self.query(prometheus, "sum(lagmon_stall_duration_seconds_bucket{le=\"0.2\"})")
        let all = try Self.query(prometheus, "sum(lagmon_stall_duration_seconds_count)")
        #expect(slow == 0 && all == 3, "each stall lasted about 250 ms")
        // The exposition itself is clean by promtool's rules.
        let exposition = try httpGet(port: port, path: "/metrics")
        #expect(exposition.status == 200)
        let check = try Self.promtoolCheckMetrics(exposition.body)
        #expect(check.status == 0, "promtool: \(check.output)")
        #expect(check.output.isEmpty, "promtool: \(check.output)")
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0)
        #expect(result.report?.stalls.count == 3)
        #expect(program.runsUntraced)
    }

    /// A host agent may never reach its end, so `lagmon_stalls_total` must count every stall
    /// while it runs. attach's /proc probe reads the loop every 500 µs; a 4 ms busy period over a
    /// 2 ms threshold is often seen only after it ended (a 100,000-stall soak on a quiet machine:
    /// 16 % of them; the test freezes lagmon now and then so that some are, whatever the
    /// machine). Such a stall is counted when its record completes; before,
    /// only at the end.
    @Test func everyStallOfAnAttachIsCountedWhileItRunsEvenOnesSeenOnlyAfterTheyEnded() throws {
        let program = try WatchedProgram([
            "/usr/bin/python3", Binaries.packageRoot + "/scripts/soak-target", "600", "4", "4",
        ])
        _ = try #require(program.waitForLine(containing: "ready"))
        let port = try freeLoopbackPort()
        let lagmon = try LagmonProcess([
            "attach", String(program.pid), "--threshold", "2ms", "--probe-interval", "500us", "--metrics-listen",
            "127.0.0.1:\(port)",
        ])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        // Late readings, on any machine (a stall whose reading before a freeze came under the
        // threshold is seen only after it ended).
        Self.freezeThirtyTimes(lagmon)
        _ = try #require(program.waitForLine(containing: "injected 600"))
        let readings = Self.settledStallCounts(port: port)
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        program.send(line: "exit")
        try Self.expectLiveCountIsTheReports(readings, result)
    }

    /// The same for `run`: a stall its watchdog saw only after it ended is counted as the
    /// watchdog drains its record, not only when the session ends (a target that runs for weeks
    /// would keep its series low until then).
    @Test func everyStallOfARunIsCountedWhileItRunsEvenOnesSeenOnlyAfterTheyEnded() throws {
        let port = try freeLoopbackPort()
        let lagmon = try LagmonProcess([
            "run", "--threshold", "2ms", "--metrics-listen", "127.0.0.1:\(port)", "--",
            "/usr/bin/python3", Binaries.packageRoot + "/scripts/soak-target", "600", "4", "4",
        ])
        _ = try #require(lagmon.waitForLine(containing: "ready"))
        lagmon.write(stdin: "go\n")
        // Late looks, on any machine (a stall that began and ended during a freeze is seen only
        // after it ended).
        Self.freezeThirtyTimes(lagmon)
        _ = try #require(lagmon.waitForLine(containing: "injected 600"))
        let readings = Self.settledStallCounts(port: port)
        lagmon.send(stdin: "exit\n")
        // The program's exit (after the readings) is a stall still going when it ended: not counted.
        try Self.expectLiveCountIsTheReports(readings, try lagmon.finish())
    }

    /// Freezes lagmon 15 ms at a time, 30 times, 40 ms apart.
    static func freezeThirtyTimes(_ lagmon: LagmonProcess) {
        for _ in 0..<30 {
            kill(lagmon.pid, SIGSTOP)
            usleep(15_000)
            kill(lagmon.pid, SIGCONT)
            usleep(40_000)
        }
    }

    /// `lagmon_stalls_total` read every 0.4 s until five readings agree (at most a minute): a
    /// stall the watchdog saw reaches the counter once the sampler handled its end.
    static func settledStallCounts(port: UInt16) -> [Double] {
        var readings: [Double] = []
        let settled = poll(seconds: 60) {
            usleep(400_000)
            readings.append((try? stallsCounted(port: port)) ?? -1)
            return readings.count >= 5 && Set(readings.suffix(5)).count == 1
        }
        #expect(settled, "\(readings)")
        return readings
    }

    /// The settled live count equals the stalls the report says ended, and some of them were seen
    /// only after they ended (or the run tested nothing).
    static func expectLiveCountIsTheReports(_ readings: [Double], _ result: LagmonResult) throws {
        #expect(result.status == 0)
        let report = try #require(result.report)
        let unseen = report.stalls.filter { !$0.seenLive }.count
        #expect(unseen > 0, "no stall was seen only after it ended: this run tested nothing")
        let ended = report.summary.stallCount - report.stalls.filter(\.ongoingAtExit).count
        #expect(readings.last == Double(ended), "live \(readings.suffix(5)), report \(ended) (\(unseen) unseen live)")
    }

    /// The sum of `lagmon_stalls_total` over its series, scraped from lagmon's endpoint.
    static func stallsCounted(port: UInt16) throws -> Double {
        try httpGet(port: port, path: "/metrics").body.split(separator: "\n")
            .filter { $0.hasPrefix("lagmon_stalls_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0, +)
    }

    @Test func aRunPushesItsFinalMetricsToThePushgateway() throws {
        let gateway = try LocalServer.pushgateway()
        let result = try LagmonProcess.run(
            [
                "run", "--push-gateway", "http://127.0.0.1:\(gateway.port)", "--label", "commit=abc123", "--label",
                "branch=feature/x", "--",
            ] + Self.stallingLoop(stalls: 2, ticksAfter: 2).filter { $0 != "--wait-for-input" })
        #expect(result.status == 0)
        #expect(!result.stderr.contains("could not push"), "\(result.stderr)")
        let report = try #require(result.report)
        #expect(report.stalls.count == 2)
        let text = try httpGet(port: gateway.port, path: "/metrics").body
        let pushed = text.split(separator: "\n").filter {
            $0.hasPrefix("lagmon_stalls_total{") && $0.contains(#"commit="abc123""#)
                && $0.contains(#"branch="feature/x""#)
                && $0.contains(#"job="lagmon""#) && $0.contains(#"instance=""#)
        }
        let total = pushed.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        #expect(total == 2, "pushed: \(pushed)")
        let iterations = text.split(separator: "\n").first {
            $0.hasPrefix("lagmon_loop_iterations_total{") && $0.contains("abc123")
        }
        let count = iterations.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        #expect(count == Double(try #require(report.loops.first).iterations), "\(iterations ?? "none")")
        // The labels are on the series as well as in the grouping key; a finished run has no
        // lagmon_target_up (a 0 kept for ever would read as a target down for ever).
        #expect(text.contains(#"lagmon_stall_threshold_seconds{branch="feature/x",commit="abc123""#), "\(text)")
        #expect(!text.contains(#"lagmon_target_up{branch="feature/x",commit="abc123""#))
    }

    /// StrictMode's calls reach the push by call, as the fixture logs them, and promtool
    /// accepts the exposition.
    @Test func aRunPushesItsBlockingCallsByCall() throws {
        let gateway = try LocalServer.pushgateway()
        let result = try LagmonProcess.run(
            ["run", "--push-gateway", "http://127.0.0.1:\(gateway.port)", "--", Binaries.strictFixture])
        #expect(result.status == 0)
        let truth = try StrictModeTests.truth(result.stdout)
        let text = try httpGet(port: gateway.port, path: "/metrics").body
        func pushed(_ metric: String, _ call: String) -> Double? {
            let line = text.split(separator: "\n").first {
                $0.hasPrefix(metric + "{") && $0.contains(#"call="\#(call)""#) && $0.contains(#"job="lagmon""#)
            }
            return line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        }
        for (call, count) in truth {
            #expect(pushed("lagmon_blocking_calls_total", call) == Double(count), "\(call)")
        }
        let fsyncSeconds = try #require(pushed("lagmon_blocking_call_seconds_total", "fsync"))
        #expect(fsyncSeconds > 0)
        let check = try Self.promtoolCheckMetrics(text)
        #expect(check.status == 0, "promtool: \(check.output)")
    }

    @Test func checkPushesASavedReportsMetricsToThePushgateway() throws {
        let gateway = try LocalServer.pushgateway()
        let reportPath = temporaryPath("check-push-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(atPath: reportPath) }
        let run = try LagmonProcess.run(
            ["run", "--json", reportPath, "--quiet", "--"]
                + Self.stallingLoop(stalls: 2, ticksAfter: 2).filter { $0 != "--wait-for-input" }, json: false)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: reportPath))))
        #expect(report.summary.stallCount == 2)
        let check = try LagmonProcess.run(
            [
                "check", reportPath, "--budget", "stall.count < 10", "--push-gateway",
                "http://127.0.0.1:\(gateway.port)", "--label", "commit=check42",
            ], json: false)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!check.stderr.contains("could not push"), "\(check.stderr)")
        let text = try httpGet(port: gateway.port, path: "/metrics").body
        func pushed(_ prefix: String) -> Double {
            text.split(separator: "\n").filter {
                $0.hasPrefix(prefix + "{") && $0.contains(#"commit="check42""#) && $0.contains(#"job="lagmon""#)
            }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        }
        #expect(pushed("lagmon_stalls_total") == 2, "\(text.split(separator: "\n").filter { $0.contains("stalls") })")
        #expect(pushed("lagmon_loop_iterations_total") == Double(try #require(report.loops.first).iterations))
        #expect(pushed("lagmon_stack_samples_total") == Double(report.sampling.samples))
        #expect(text.contains(#"instance="\#(report.run?.host ?? "")""#), "grouped under the run's host")
        let closed = try freeLoopbackPort()
        let unreachable = try LagmonProcess.run(
            ["check", reportPath, "--push-gateway", "http://127.0.0.1:\(closed)"], json: false)
        #expect(unreachable.status == 0, "no budgets, a failed push: a warning only")
        #expect(unreachable.lagmonLines.contains { $0.contains("could not push metrics") }, "\(unreachable.stderr)")
    }

    @Test func anUnreachablePushgatewayIsAWarningOnly() throws {
        let closed = try freeLoopbackPort()
        let result = try LagmonProcess.run(
            ["run", "--push-gateway", "http://127.0.0.1:\(closed)", "--"]
                + Self.stallingLoop(stalls: 1, ticksAfter: 1).filter { $0 != "--wait-for-input" } + [
                    "--exit-status", "3",
                ])
        #expect(result.status == 3, "the program's own status")
        #expect(result.report?.stalls.count == 1)
        let warning = result.lagmonLines.filter { $0.contains("could not push metrics") }
        #expect(warning.count == 1, "\(result.stderr)")
        #expect(warning.first?.contains("the report and exit status are unaffected") == true)
    }

    @Test func aPortInUseIsAUsageErrorBeforeTheProgramStarts() throws {
        let taken = try LoopbackListener()
        let marker = temporaryPath("metrics-marker-\(UUID().uuidString)")
        let result = try LagmonProcess.run(
            ["run", "--metrics-listen", "127.0.0.1:\(taken.port)", "--", "/bin/sh", "-c", "touch \(marker)"],
            json: false)
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: marker), "the program never started")
        #expect(
            result.lagmonLines == [
                "lagmon: cannot listen for metrics on 127.0.0.1:\(taken.port): Address already in use; choose another --metrics-listen address or free the port"
            ])
    }

    @Test(arguments: [
        (["--metrics-listen", "localhost"], "invalid --metrics-listen 'localhost'"),
        (["--push-gateway", "https://gw"], "only http:// URLs"),
        (["--push-gateway", "http://gw", "--label", "1x=2"], "invalid --label '1x=2'"),
        (["--label", "commit=1"], "give --metrics-listen ADDRESS or --push-gateway URL too"),
        (["--metrics-listen", "127.0.0.1:0", "--label", "instance=ci"], "--label instance= names the pushed group"),
        (["--push-gateway", "http://gw", "--label", "culprit=x"], "culprit is set by lagmon"),
    ])
    func badMetricsArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let marker = temporaryPath("metrics-marker-\(UUID().uuidString)")
        let result = try LagmonProcess.run(
            ["run"] + arguments + ["--", "/bin/sh", "-c", "touch \(marker)"], json: false)
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(result.lagmonLines.count == 1 && result.lagmonLines[0].contains(message), "\(result.stderr)")
    }

    @Test func theAlertRulesAreAcceptedByPromtool() throws {
        let check = try ToolRun.run([
            "promtool", "check", "rules", Binaries.packageRoot + "/docs/prometheus-alerts.yml",
        ])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("SUCCESS: 5 rules found"))
    }

    @Test func theDashboardQueriesAreValidPromQL() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Binaries.packageRoot + "/docs/grafana-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap {
            ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count >= 5)
        // Grafana's variables stand in for what it substitutes; promtool parses the rest.
        for expression in expressions {
            let concrete = expression.replacingOccurrences(of: "$__rate_interval", with: "1m")
                .replacingOccurrences(of: "$__range", with: "1h").replacingOccurrences(of: "$instance", with: ".*")
                .replacingOccurrences(of: "$process", with: ".*").replacingOccurrences(of: "$job", with: ".*")
                .replacingOccurrences(of: "$service", with: ".*")
            let rule =
                "groups: [{name: g, rules: [{record: dashboard:check, expr: '\(concrete.replacingOccurrences(of: "'", with: "''"))'}]}]\n"
            let path = temporaryPath("dashboard-rule-\(UUID().uuidString).yml")
            try rule.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let check = try ToolRun.run(["promtool", "check", "rules", path])
            #expect(check.status == 0, "\(expression): \(check.output)")
        }
    }

    /// `promtool check metrics` on `text` (its lint findings, if any, in `output`).
    static func promtoolCheckMetrics(_ text: String) throws -> ToolRun {
        let path = temporaryPath("exposition-\(UUID().uuidString).txt")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ToolRun.run(["sh", "-c", "promtool check metrics < \"$0\"", path])
    }

    /// The port of a `metrics at http://127.0.0.1:PORT/metrics` line.
    static func port(in line: String) -> UInt16? {
        guard let range = line.range(of: "http://127.0.0.1:") else { return nil }
        return UInt16(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The single value of an instant query; nil when it has no result.
    static func query(_ prometheus: LocalServer, _ expression: String) throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let answer = try httpGet(port: prometheus.port, path: "/api/v1/query?query=\(encoded)")
        let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let data = json?["data"] as? [String: Any]
        guard let first = (data?["result"] as? [[String: Any]])?.first, let value = first["value"] as? [Any],
            let text = value.last as? String
        else { return nil }
        return Double(text)
    }
}
