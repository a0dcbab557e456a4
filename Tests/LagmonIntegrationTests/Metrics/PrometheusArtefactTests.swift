import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// docs/prometheus-alerts.yml and docs/grafana-dashboard.json on what real lagmon sessions serve
/// and push: the alert rules are unit-tested with `promtool test rules` on the series a real
/// `lagmon run --push-gateway` left in a real Pushgateway and a real `lagmon attach
/// --metrics-listen` serves, and every dashboard query runs in a real Prometheus that scrapes an
/// attach, the Pushgateway and itself.
@Suite(.serialized)
struct PrometheusArtefactTests {
    static let rulesPath = Binaries.packageRoot + "/docs/prometheus-alerts.yml"
    static let dashboardPath = Binaries.packageRoot + "/docs/grafana-dashboard.json"
    static let alertNames = [
        "LagmonLoopStalling", "LagmonLongStalls", "LagmonLoopBusy", "LagmonTargetDown", "LagmonSamplesLost",
    ]

    /// A CI job's run, pushed under `labels`: the loop fixture's `stalls` 250 ms stalls (after
    /// five ticks: its loop is known by then, so they are sampled).
    static func pushedRun(gateway: LocalServer, stalls: Int, labels: [String]) throws -> String {
        let result = try LagmonProcess.run(
            ["run", "--push-gateway", "http://127.0.0.1:\(gateway.port)"] + labels.flatMap { ["--label", $0] } + [
                "--", Binaries.loopFixture, "stall", "--period-ms", "50", "--ticks-before", "5", "--stalls",
                String(stalls), "--ticks-after", "2",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("could not push"), "\(result.stderr)")
        return try httpGet(port: gateway.port, path: "/metrics").body
    }

    /// The alert rules, on the series of two pushes of one group (a CI job run twice: the
    /// second replaces the first after 20 minutes) and of an attach whose target died: no rule
    /// fires for the pushed group in the hour, `LagmonTargetDown` fires for the attach.
    @Test func theAlertRulesIgnorePushedRunsAndFireForAScrapedAttachWhoseTargetWentDown() throws {
        let gateway = try LocalServer.pushgateway()
        // A commit of its own: a Pushgateway is shared by whoever pushes to its port.
        let commit = UUID().uuidString
        let labels = ["service=checkout", "instance=ci", "commit=\(commit)"]
        let first = Self.pushedGroup(try Self.pushedRun(gateway: gateway, stalls: 1, labels: labels), commit: commit)
        let second = Self.pushedGroup(try Self.pushedRun(gateway: gateway, stalls: 3, labels: labels), commit: commit)
        #expect(second.keys.contains { $0.hasPrefix("lagmon_stalls_total{") && $0.contains(#"instance="ci""#) })
        #expect(second.keys.contains { $0.hasPrefix("push_time_seconds{") }, "the Pushgateway's own marker")
        #expect(!second.keys.contains { $0.hasPrefix("lagmon_target_up") }, "a finished run has no target to be up")

        let (down, port) = try Self.attachWhoseTargetWentDown(label: "service=agent")
        let scraped = Self.scrapedAs(job: "lagmon-agent", instance: "127.0.0.1:\(port)", exposition: down)
        #expect(
            scraped[#"lagmon_target_up{job="lagmon-agent",instance="127.0.0.1:\#(port)",service="agent"}"#] == "0.0")

        let testFile = temporaryPath("alerts-test-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(atPath: testFile) }
        try Self.ruleTest(first: first, second: second, scraped: scraped, port: port)
            .write(toFile: testFile, atomically: true, encoding: .utf8)
        let test = try ToolRun.run(["promtool", "test", "rules", testFile])
        #expect(test.status == 0, "\(test.output)")
        #expect(test.output.contains("SUCCESS"), "\(test.output)")
    }

    /// Every query of every panel of the dashboard (and its variables), in a real Prometheus
    /// scraping an attach to a stalling loop (`--label service=checkout`), a Pushgateway that
    /// holds a run's push (same service, `instance=ci`) and itself (other jobs' `process_*`
    /// series): each returns data, the live panels only the attach's and the pushed ones only
    /// the push's. "Top culprits" has the attach's culprit while it runs.
    @Test func everyDashboardQueryReturnsDataForARunAndAnAttachAndNoOtherJobs() throws {
        let gateway = try LocalServer.pushgateway()
        // A service of its own: a Pushgateway is shared by whoever pushes to its port.
        let service = "checkout-" + UUID().uuidString.prefix(8).lowercased()
        _ = try Self.pushedRun(gateway: gateway, stalls: 2, labels: ["service=\(service)", "instance=ci"])
        let attachPort = try freeLoopbackPort()
        let prometheus = try LocalServer(
            [
                "/usr/bin/prometheus", "--config.file={dir}/prometheus.yml", "--storage.tsdb.path={dir}/data",
                "--web.listen-address=127.0.0.1:{port}",
            ], readyPath: "/-/ready",
            files: [
                "prometheus.yml": """
                global: {scrape_interval: 1s, scrape_timeout: 1s}
                scrape_configs:
                  - job_name: lagmon-agent
                    static_configs: [{targets: ['127.0.0.1:\(attachPort)']}]
                  - job_name: pushgateway
                    honor_labels: true
                    static_configs: [{targets: ['127.0.0.1:\(gateway.port)']}]
                  - job_name: prometheus
                    static_configs: [{targets: ['127.0.0.1:{port}']}]
                """
            ])
        // A 250 ms stall in spin_for_250ms_in_c_loop every 1.25 s, for as long as the test runs.
        let program = try WatchedProgram([
            Binaries.loopFixture, "stall", "--wait-for-input", "--period-ms", "1000", "--ticks-before", "1",
            "--stalls", "100000", "--ticks-after", "1",
        ])
        _ = try #require(program.waitForLine(containing: "waiting pid="))
        let lagmon = try LagmonProcess([
            "attach", String(program.pid), "--metrics-listen", "127.0.0.1:\(attachPort)", "--label",
            "service=\(service)",
        ])
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid"))
        program.send(line: "go")
        // Culprit time grows between scrapes while the attach runs; the push was scraped.
        var culprit: Double?
        let ready = poll(seconds: 120) {
            culprit = try? MetricsTests.query(
                prometheus,
                #"sum(increase(lagmon_stall_culprit_seconds_total{job="lagmon-agent",culprit="spin_for_250ms_in_c_loop"}[1m]))"#
            )
            let pushed = try? MetricsTests.query(
                prometheus, #"sum(lagmon_stalls_total{job="lagmon",instance="ci",service="\#(service)"})"#)
            return (culprit ?? 0) > 0.4 && pushed == 2
        }
        #expect(ready, "culprit time \(culprit.map { String($0) } ?? "none"): \(prometheus.log(tail: 1000))")
        for selected in [".*", service] {
            try Self.checkVariables(prometheus, selected: selected, service: service)
            try Self.checkPanels(prometheus, selected: selected, service: service)
        }
        kill(lagmon.pid, SIGINT)
        let result = try lagmon.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.report?.stalls.first?.culprit?.symbol == "spin_for_250ms_in_c_loop")
    }

    /// The dashboard's variables, with `selected` as the Service: `label_values(QUERY, LABEL)`
    /// lists both jobs and `service`.
    static func checkVariables(_ prometheus: LocalServer, selected: String, service: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: dashboardPath))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let variables = try #require((dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]])
        var values: [String: Set<String>] = [:]
        for variable in variables where variable["type"] as? String == "query" {
            let name = try #require(variable["name"] as? String)
            let definition = try #require(variable["definition"] as? String)
            let inner = definition.dropFirst("label_values(".count).dropLast()
            let comma = try #require(inner.lastIndex(of: ","))
            let label = inner[inner.index(after: comma)...].trimmingCharacters(in: .whitespaces)
            let results = try series(prometheus, concrete(String(inner[..<comma]), service: selected))
            values[name] = Set(results.compactMap { $0.labels[label] })
        }
        #expect(values["job"] == ["lagmon-agent", "lagmon"], "\(values)")
        #expect(values["instance"]?.contains("ci") == true, "\(values)")
        #expect(values["service"]?.contains(service) == true, "\(values)")
        #expect(values["process"]?.contains("lagmon-loop-fix") == true, "\(values)")
    }

    /// Every panel's queries, with `selected` as the Service: data (a finite value), from the
    /// attach's job in the live row and from pushed groups in the pushed row, never another
    /// job's; with `service` selected, only its series, and the culprit among the top ones.
    static func checkPanels(_ prometheus: LocalServer, selected: String, service: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: dashboardPath))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        var checked = 0
        for panel in panels where panel["type"] as? String != "row" {
            let title = panel["title"] as? String ?? "?"
            let pushed = ((panel["gridPos"] as? [String: Any])?["y"] as? Int ?? 0) > pushedRowY(panels)
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                let expression = concrete(try #require(target["expr"] as? String), service: selected)
                let results = try series(prometheus, expression)
                checked += 1
                #expect(results.contains { Double($0.value)?.isFinite == true }, "\(title): \(expression): \(results)")
                let jobs = Set(results.compactMap { $0.labels["job"] })
                #expect(jobs.isSubset(of: [pushed ? "lagmon" : "lagmon-agent"]), "\(title): \(jobs)")
                guard selected == service else { continue }
                let services = Set(results.compactMap { $0.labels["service"] })
                #expect(services.isSubset(of: [service]), "\(title): \(services)")
                if title.hasPrefix("Top culprits") {
                    #expect(results.contains { $0.labels["culprit"] == "spin_for_250ms_in_c_loop" }, "\(results)")
                }
            }
        }
        #expect(checked >= 13)
    }

    /// The `y` of the row of pushed runs: panels below it read pushed groups.
    static func pushedRowY(_ panels: [[String: Any]]) -> Int {
        let row = panels.first {
            $0["type"] as? String == "row" && ($0["title"] as? String ?? "").hasPrefix("Runs pushed")
        }
        return (row?["gridPos"] as? [String: Any])?["y"] as? Int ?? Int.max
    }

    /// `expression` with Grafana's variables as Grafana fills them in: All for job, instance
    /// and program, `service` as given, a minute's rate interval and five minutes of range.
    static func concrete(_ expression: String, service: String) -> String {
        expression.replacingOccurrences(of: "$__rate_interval", with: "1m")
            .replacingOccurrences(of: "$__range", with: "5m").replacingOccurrences(of: "$job", with: ".*")
            .replacingOccurrences(of: "$instance", with: ".*").replacingOccurrences(of: "$service", with: service)
            .replacingOccurrences(of: "$process", with: ".*")
    }

    /// Every series of an instant query, with its labels and value.
    static func series(_ prometheus: LocalServer, _ expression: String) throws -> [(
        labels: [String: String], value: String
    )] {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let answer = try httpGet(port: prometheus.port, path: "/api/v1/query?query=\(encoded)")
        let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        #expect(json?["status"] as? String == "success", "\(expression): \(answer.body.prefix(500))")
        let results = (json?["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
        return results.map { result in
            let labels = result["metric"] as? [String: String] ?? [:]
            let value = (result["value"] as? [Any])?.last as? String ?? ""
            return (labels, value)
        }
    }

    /// `lagmon attach --name` with `--metrics-listen` and `label`, whose target was killed:
    /// lagmon waits for a process to replace it. Its exposition then, and the endpoint's port.
    static func attachWhoseTargetWentDown(label: String) throws -> (String, UInt16) {
        let fixture = try AgentRestartTests.NamedFixture()
        let program = try fixture.start()
        let lagmon = try LagmonProcess([
            "attach", "--name", fixture.name, "--metrics-listen", "127.0.0.1:0", "--label", label,
        ])
        let listening = try #require(lagmon.waitForErrorLine(containing: "metrics at http://127.0.0.1:"))
        let port = try #require(MetricsTests.port(in: listening))
        _ = try #require(lagmon.waitForErrorLine(containing: "attached to pid \(program.pid) "))
        kill(program.pid, SIGKILL)
        _ = program.waitForExit()
        _ = try #require(lagmon.waitForErrorLine(containing: "exited; waiting for a new process"))
        let exposition = try httpGet(port: port, path: "/metrics").body
        kill(lagmon.pid, SIGINT)
        let finished = try lagmon.finish()
        #expect(finished.status == 0, "SIGINT while waiting for a new process: \(finished.stderr.suffix(600))")
        return (exposition, port)
    }

    /// The lines of the group lagmon pushed with `commit` (`job="lagmon"`; the Pushgateway's
    /// own metrics have no job), as series → value.
    static func pushedGroup(_ text: String, commit: String) -> [String: String] {
        samples(text).filter { $0.key.contains(#"job="lagmon""#) && $0.key.contains(#"commit="\#(commit)""#) }
    }

    /// An exposition as Prometheus stores it when it scrapes it as `job` and `instance`.
    static func scrapedAs(job: String, instance: String, exposition: String) -> [String: String] {
        let added = #"job="\#(job)",instance="\#(instance)""#
        var series: [String: String] = [:]
        for (name, value) in samples(exposition) {
            if let brace = name.firstIndex(of: "{") {
                let rest = name[name.index(after: brace)...]
                series[name[..<brace] + "{" + added + (rest == "}" ? "" : ",") + rest] = value
            } else {
                series[name + "{" + added + "}"] = value
            }
        }
        return series
    }

    /// The samples of a text exposition: series (name and labels, as written) → value.
    static func samples(_ text: String) -> [String: String] {
        var samples: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return samples
    }

    /// A `promtool test rules` file: an hour at one sample a minute, the first push's values
    /// for 20 minutes then the second's (`_`: absent), the attach's throughout; every alert
    /// checked at four times.
    static func ruleTest(first: [String: String], second: [String: String], scraped: [String: String], port: UInt16)
        -> String
    {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        var lines = [
            "rule_files: [\(quoted(rulesPath))]", "evaluation_interval: 1m", "tests:", "  - interval: 1m",
            "    input_series:",
        ]
        for series in Set(first.keys).union(second.keys).sorted() {
            let values =
                Array(repeating: first[series] ?? "_", count: 20) + Array(repeating: second[series] ?? "_", count: 40)
            lines += ["      - series: \(quoted(series))", "        values: \(quoted(values.joined(separator: " ")))"]
        }
        for (series, value) in scraped.sorted(by: { $0.key < $1.key }) {
            lines += [
                "      - series: \(quoted(series))",
                "        values: \(quoted(Array(repeating: value, count: 60).joined(separator: " ")))",
            ]
        }
        lines.append("    alert_rule_test:")
        let instance = "127.0.0.1:\(port)"
        for time in ["10m", "25m", "35m", "59m"] {
            for alert in alertNames {
                lines += ["      - eval_time: \(time)", "        alertname: \(alert)"]
                guard alert == "LagmonTargetDown" else {
                    lines.append("        exp_alerts: []")
                    continue
                }
                lines += [
                    "        exp_alerts:",
                    "          - exp_labels: {job: lagmon-agent, instance: \(quoted(instance)), service: agent, severity: warning}",
                    "            exp_annotations:",
                    "              summary: \(quoted("lagmon on \(instance) (lagmon-agent agent) watches no running process"))",
                ]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
