/// What lagmon read of the lock a thread waited on in `futex`, at one stack sample: the futex
/// word's address, the lock its memory fits, the owner the lock records, and that owner's stack.
public struct LockObservation: Sendable, Equatable {
    /// The futex word's address in the target (the call's first argument).
    public var futexAddress: UInt64
    /// The lock the memory around the word fits.
    public var layout: LockLayout
    /// The owner the lock records (a mutex's `__owner`, a rwlock's `__cur_writer`, a PI futex
    /// word); nil when it records none. Read from the target's memory: a claim until checked.
    public var ownerTid: Int32?
    /// The owner is one of the waiter's process's threads (`/proc/<pid>/task/<tid>` exists).
    public var ownerIsThread: Bool
    /// Readers holding a rwlock in its read phase (`__readers >> 3`).
    public var readers: UInt32?
    /// The owner's stack, sampled right after the waiter's; nil when there is no owner, it is
    /// not a thread of the process, or it could not be sampled.
    public var holder: LockHolderSample?

    public init(
        futexAddress: UInt64, layout: LockLayout, ownerTid: Int32? = nil, ownerIsThread: Bool = false,
        readers: UInt32? = nil, holder: LockHolderSample? = nil
    ) {
        self.futexAddress = futexAddress
        self.layout = layout
        self.ownerTid = ownerTid
        self.ownerIsThread = ownerIsThread
        self.readers = readers
        self.holder = holder
    }
}
