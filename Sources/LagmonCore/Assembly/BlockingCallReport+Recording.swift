extension BlockingCallReport {
    /// Every loop's blocking calls, most time first (ties: more calls, then process, thread,
    /// call and site, so the order is stable).
    static func list(_ loops: [LoopRecording]) -> [BlockingCallReport] {
        let reports = loops.flatMap { loop in
            loop.blockingCalls.map { record in
                BlockingCallReport(
                    pid: loop.pid, thread: loop.thread, call: record.call.name, category: record.call.category,
                    count: record.count, totalNs: record.totalNs, maxNs: record.maxNs,
                    site: record.site
                        ?? Frame(
                            symbol: nil, module: Frame.unknownModule, offset: record.siteAddress,
                            address: record.siteAddress))
            }
        }
        return reports.sorted {
            ($1.totalNs, $1.count, $0.pid, $0.thread.tid, $0.call, $0.site.address)
                < ($0.totalNs, $0.count, $1.pid, $1.thread.tid, $1.call, $1.site.address)
        }
    }
}
