extension FingerprintReport {
    /// Groups `stalls` by their fingerprints, most total stall time first (then by id). Stalls
    /// without a fingerprint (no samples) belong to no group.
    public static func groups(_ stalls: [(stall: StallReport, fingerprint: StackFingerprint)]) -> [FingerprintReport] {
        var groups: [String: FingerprintReport] = [:]
        for (stall, fingerprint) in stalls.sorted(by: { $0.stall.id < $1.stall.id }) {
            var group =
                groups[fingerprint.id]
                ?? FingerprintReport(
                    id: fingerprint.id, frames: fingerprint.frames, count: 0, totalNs: 0, worstNs: 0, stallIds: [])
            group.count += 1
            group.totalNs = saturatingAdd(group.totalNs, stall.durationNs)
            group.worstNs = max(group.worstNs, stall.durationNs)
            group.stallIds.append(stall.id)
            groups[fingerprint.id] = group
        }
        return groups.values.sorted { ($1.totalNs, $0.id) < ($0.totalNs, $1.id) }
    }
}
