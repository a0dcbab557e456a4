/// Whether an unwound stack can be the thread's: every address must lie in executable memory.
///
/// Where a frame has no unwind rules, the unwinder guesses its caller from the frame pointer;
/// in code that does not keep one (the vDSO, optimised C) the guess is junk: an address in data,
/// or in nothing, after which the stack "ends" and looks complete. Such a stack counts as an
/// unwind error, not as complete (its frames are still kept: the innermost ones are right).
public enum StackPlausibility {
    /// `outcome`, or `.failed` when an address of `addresses` (innermost first: the pc, then
    /// return addresses, looked up inside their call) lies outside every executable mapping of `map`.
    public static func outcome(_ outcome: UnwindOutcome, addresses: [UInt64], map: ProcessMemoryMap) -> UnwindOutcome {
        guard outcome != .failed else { return outcome }
        for (index, address) in addresses.enumerated() {
            let lookup = index > 0 && address > 0 ? address - 1 : address
            guard map.mapping(containing: lookup)?.isExecutable == true else { return .failed }
        }
        return outcome
    }
}
