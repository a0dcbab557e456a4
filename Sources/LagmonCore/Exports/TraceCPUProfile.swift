/// The stack samples of one thread's stalls as a CPU profile in the Trace Event Format
/// (`ph: "P"`, as V8 and Chrome write theirs): one `Profile` event (`id` the thread's tid in hex,
/// `startTime` its first sampled stall's start in whole microseconds) and one `ProfileChunk`
/// per stall, with the stall's call tree as nodes (`id`, `parent`, `callFrame`), each sample's
/// node in the order taken (`cpuProfile.samples`) and the microseconds since the profile's
/// previous sample (`timeDeltas`, the first from `startTime`). Node ids are unique in the
/// profile: 1 is `(root)`, the root of every stall's tree, and 2 `(idle)`; each chunk ends with
/// one `(idle)` sample at the stall's end, V8's mark for time outside the profiled code, so a
/// viewer ends the stall's last sample there rather than at the next stall.
///
/// This is the sample format the trace viewers read: Perfetto's JSON importer turns it into
/// `cpu_profile_stack_sample` rows on the thread, Chrome DevTools' Performance panel draws it
/// as a flame chart under the stall on the thread's track (DevTools reads one profile per
/// thread, hence one for all its stalls). The format's older `stackFrames` dictionary with
/// `sf` samples is skipped by Perfetto's importer. A node's `url` is its source file when the
/// stall's listed stacks give one (`lineNumber` then 0-based, as V8's), else its module.
/// Samples naming a node the tree lacks (a hand-edited report) are left out.
struct TraceCPUProfile {
    /// The thread's stalls, in order of start.
    var stalls: [StallReport]
    var pid: Int32
    var tid: Int32

    /// The profile's events; none when no stall has a call tree and timed samples.
    var events: [TraceEvent] {
        let sampled = stalls.filter { $0.callTree != nil && !($0.sampleTimeline ?? []).isEmpty }
        guard let first = sampled.first else { return [] }
        let id = "0x" + String(UInt32(bitPattern: tid), radix: 16)
        var state = State(previousMicroseconds: first.startNs / 1_000)
        var events = [
            TraceEvent(
                name: "Profile", cat: "samples", ph: "P", ts: Double(state.previousMicroseconds), pid: pid, tid: tid,
                id: id, args: ["data": .object(["startTime": .int(Int64(clamping: state.previousMicroseconds))])])
        ]
        for stall in sampled {
            let data = chunk(stall, state: &state)
            events.append(
                TraceEvent(
                    name: "ProfileChunk", cat: "samples", ph: "P", ts: Double(stall.startNs / 1_000), pid: pid,
                    tid: tid, id: id, args: ["data": .object(data)]))
        }
        return events
    }

    /// Where the profile stands between chunks: the last sample's time and the next node id.
    struct State {
        var previousMicroseconds: UInt64
        var nextNode = 3
    }

    static let rootNode = 1
    static let idleNode = 2

    /// One stall's chunk: its nodes (the first chunk also `(root)` and `(idle)`), samples and deltas.
    private func chunk(_ stall: StallReport, state: inout State) -> [String: JSONValue] {
        var nodes: [JSONValue] = []
        if state.nextNode == 3 {
            nodes.append(Self.node(id: Self.rootNode, parent: nil, name: "(root)", url: "", line: nil))
            nodes.append(Self.node(id: Self.idleNode, parent: Self.rootNode, name: "(idle)", url: "", line: nil))
        }
        var ids: [Int] = []
        if let tree = stall.callTree {
            var path: [CallPath.Step] = []
            append(
                tree, parent: nil, path: &path, details: CallTreeDetails(stalls: [stall]), ids: &ids, nodes: &nodes,
                state: &state)
        }
        var samples: [JSONValue] = []
        var deltas: [JSONValue] = []
        func add(_ node: Int, atNs: UInt64) {
            let microseconds = max(atNs / 1_000, state.previousMicroseconds)
            samples.append(.int(Int64(node)))
            deltas.append(.int(Int64(clamping: microseconds - state.previousMicroseconds)))
            state.previousMicroseconds = microseconds
        }
        for sample in stall.sampleTimeline ?? [] where sample.node >= 0 && sample.node < ids.count {
            add(ids[sample.node], atNs: saturatingAdd(stall.startNs, sample.offsetNs))
        }
        add(Self.idleNode, atNs: saturatingAdd(stall.startNs, stall.durationNs))
        return [
            "cpuProfile": .object(["nodes": .array(nodes), "samples": .array(samples)]), "timeDeltas": .array(deltas),
        ]
    }

    /// The tree's nodes depth first (the order of `StallSampleTime.node`), each given the
    /// profile's next id; the tree's root is the profile's `(root)`.
    private func append(
        _ node: CallTreeNode, parent: Int?, path: inout [CallPath.Step], details: CallTreeDetails, ids: inout [Int],
        nodes: inout [JSONValue], state: inout State
    ) {
        let id: Int
        if let parent {
            id = state.nextNode
            state.nextNode += 1
            let place = details.place(of: path)
            nodes.append(
                Self.node(id: id, parent: parent, name: node.name, url: place?.file ?? node.module, line: place?.line))
        } else {
            id = Self.rootNode
        }
        ids.append(id)
        for child in node.children {
            path.append(CallPath.Step(name: child.name, module: child.module))
            append(child, parent: id, path: &path, details: details, ids: &ids, nodes: &nodes, state: &state)
            path.removeLast()
        }
    }

    private static func node(id: Int, parent: Int?, name: String, url: String, line: Int?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .int(Int64(id)),
            "callFrame": .object([
                "functionName": .string(name), "url": .string(url), "scriptId": .int(0),
                "lineNumber": .int(Int64(line.map { $0 - 1 } ?? -1)), "columnNumber": .int(-1),
            ]),
        ]
        if let parent { fields["parent"] = .int(Int64(parent)) }
        return .object(fields)
    }
}
