import LagmonCore
import Testing

/// The command line's metrics arguments: listen addresses, Pushgateway URLs, grouping labels.
struct MetricsSyntaxTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464), ("9464", "127.0.0.1", 9464), (":0", "127.0.0.1", 0),
        ("[::1]:9464", "::1", 9464), ("localhost:80", "localhost", 80), ("0.0.0.0:9464", "0.0.0.0", 9464),
    ])
    func listenAddresses(text: String, host: String, port: Int) throws {
        let address = try ListenAddress.parse(text).get()
        #expect(address.host == host)
        #expect(Int(address.port) == port)
    }

    @Test(arguments: ["", "host", "host:", "host:65536", "host:-1", "::1:80", "[::1]", "[::1]80", "host:+80"])
    func badListenAddresses(text: String) {
        guard case .failure(let error) = ListenAddress.parse(text) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(error.description.contains("give HOST:PORT"))
    }

    @Test func pushGatewayURLs() throws {
        #expect(try PushGateway.parse("http://gw").get() == PushGateway(host: "gw", port: 9091))
        #expect(try PushGateway.parse("http://127.0.0.1:9999/").get() == PushGateway(host: "127.0.0.1", port: 9999))
        #expect(try PushGateway.parse("http://[::1]").get() == PushGateway(host: "::1", port: 9091))
        #expect(
            try PushGateway.parse("http://gw:80/prefix/").get()
                == PushGateway(host: "gw", port: 80, pathPrefix: "/prefix"))
        for bad in ["https://gw", "gw:9091", "http://", "http://:9091", "http://u:p@gw", "http://gw/?q", "http://gw:x"]
        {
            #expect((try? PushGateway.parse(bad).get()) == nil, "\(bad)")
        }
    }

    @Test func groupPathEncodesEveryValue() {
        let gateway = PushGateway(host: "gw", port: 9091, pathPrefix: "/p")
        let path = gateway.groupPath(instance: "host-1", labels: [MetricLabel(key: "branch", value: "feat/x")])
        #expect(path == "/p/metrics/job@base64/bGFnbW9u/instance@base64/aG9zdC0x/branch@base64/ZmVhdC94")
    }

    /// `instance` names the pushed group instead of the host; the other labels follow it.
    @Test func anInstanceLabelReplacesTheHostName() {
        let gateway = PushGateway(host: "gw", port: 9091)
        let labels = [MetricLabel(key: "service", value: "s"), MetricLabel(key: "instance", value: "ci")]
        #expect(
            gateway.groupPath(labels: labels, defaultInstance: "runner-123")
                == gateway.groupPath(instance: "ci", labels: [MetricLabel(key: "service", value: "s")]))
        #expect(
            gateway.groupPath(labels: [labels[0]], defaultInstance: "runner-123")
                == gateway.groupPath(instance: "runner-123", labels: [labels[0]]))
    }

    @Test func culpritLabelsAreBounded() {
        var labels = CulpritLabels(maxNamed: 2)
        #expect(labels.label(for: nil) == "none")
        #expect(labels.label(for: "a") == "a")
        #expect(labels.label(for: "other") == "other")
        #expect(labels.label(for: String(repeating: "b", count: 200)) == String(repeating: "b", count: 120))
        #expect(labels.label(for: "c") == "other")
        #expect(labels.label(for: "a") == "a")
        var ranked = CulpritLabels(maxNamed: 2)
        ranked.admit(["hot", "warm", "cold"])
        #expect(ranked.named == ["hot", "warm"])
    }

    @Test func labels() throws {
        #expect(try MetricLabel.parse("commit=abc=def").get() == MetricLabel(key: "commit", value: "abc=def"))
        #expect(try MetricLabel.parse("instance=ci").get() == MetricLabel(key: "instance", value: "ci"))
        #expect(try MetricLabel.parse("service=checkout").get() == MetricLabel(key: "service", value: "checkout"))
        for bad in [
            "commit", "=x", "1a=x", "__x=1", "job=x", "culprit=y", "call=z", "process=p", "a-b=1", "commit=", "é=1",
        ] {
            #expect((try? MetricLabel.parse(bad).get()) == nil, "\(bad)")
        }
    }

    @Test func requestLines() {
        #expect(
            HTTPRequestLine.parse(Array("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                == HTTPRequestLine(method: "GET", path: "/metrics"))
        #expect(HTTPRequestLine.parse(Array("GET /metrics\r\n\r\n".utf8)) == nil)
        #expect(HTTPRequestLine.parse(Array("get /metrics HTTP/1.1\r\n".utf8)) == nil)
        #expect(HTTPRequestLine.parse(Array("GET metrics HTTP/1.1\r\n".utf8)) == nil)
        #expect(HTTPRequestLine.parse([]) == nil)
    }
}
