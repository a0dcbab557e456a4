extension ProcessReport {
    /// One entry per pid of `recording`: the target first, then the other processes in the order
    /// they were first seen. A pid with several images (exec) is one process with the last
    /// image's command; `loops` and `stalls` are the report's, counted by pid.
    static func list(_ recording: SessionRecording, loops: [LoopReport], stalls: [StallReport]) -> [ProcessReport] {
        var order: [Int32] = [recording.pid]
        var images: [Int32: [ProcessRecording]] = [:]
        for image in recording.processes.sorted(by: { ($0.attachedNs, $0.index) < ($1.attachedNs, $1.index) }) {
            if images[image.pid] == nil && image.pid != recording.pid { order.append(image.pid) }
            images[image.pid, default: []].append(image)
        }
        return order.map { pid in
            let seen = images[pid] ?? []
            let last = seen.last
            let startNs = seen.first.map { saturatingSubtract($0.attachedNs, recording.spawnNs) } ?? 0
            let endNs = last?.endNs.map { saturatingSubtract($0, recording.spawnNs) }
            return ProcessReport(
                pid: pid, ppid: seen.first?.ppid, command: last?.command ?? recording.command,
                commandTruncated: last?.commandTruncated ?? false, startNs: startNs,
                endNs: pid == recording.pid && recording.attached == nil ? nil : endNs,
                execs: seen.filter(\.execed).count,
                loopCount: loops.filter { $0.pid == pid }.count,
                stallCount: stalls.filter { $0.pid == pid }.count
                    + recording.loops.filter { $0.pid == pid }.reduce(0) { $0 + $1.foldedStalls.count })
        }
    }
}
