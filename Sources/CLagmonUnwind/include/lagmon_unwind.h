// Remote unwinding from a copy of a thread's registers and stack.
//
// lagmon stops the stalled thread only long enough to read its registers and copy the top of
// its stack, then resumes it and unwinds from the copy here. libunwind reads memory through the
// accessors in lagmon_unwind.c: stack addresses come from the copy, everything else (unwind
// tables of the mapped images, which do not change) from the live process with
// process_vm_readv, through a small page cache. Unwind tables are found in regions lagmon hands
// over (lagmon_unwinder_set_regions): libunwind never opens a file. libunwind's own per-IP cache
// persists across samples, so repeated stacks are cheap.
#ifndef LAGMON_UNWIND_H
#define LAGMON_UNWIND_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/// The frozen state of one thread: registers and a copy of the top of its stack from
/// `stack_start`. The rest of the stack mapping, [`live_stack_start`, `live_stack_end`), is read
/// from the live process; those reads are cached for one unwind only, since the stack changes.
struct lagmon_stack_copy {
    struct user_regs_struct regs;
    uint64_t stack_start;
    uint64_t stack_length;
    const uint8_t *bytes;
    uint64_t live_stack_start;
    uint64_t live_stack_end;
};

/// How an unwind ended (mirrors UnwindOutcome in LagmonCore).
enum lagmon_unwind_outcome {
    LAGMON_UNWIND_COMPLETE = 0,
    LAGMON_UNWIND_TRUNCATED = 1,
    LAGMON_UNWIND_FAILED = 2,
};

/// Where the unwind tables of one executable image of the target lie, in the target's memory:
/// found by lagmon from the image's program headers (read from the mapped file through
/// /proc/PID/map_files, or from memory for the vDSO), never by libunwind opening a path.
struct lagmon_unwind_region {
    /// The addresses the image's code covers: [start_ip, end_ip).
    uint64_t start_ip;
    uint64_t end_ip;
    /// The runtime address of `.eh_frame_hdr` (what its data-relative entries are relative to).
    uint64_t eh_frame_hdr;
    /// The runtime address of its binary-search table, and the table's entry count.
    uint64_t table_data;
    uint64_t table_entries;
};

/// Unwinding state for one target process, reused across samples.
typedef struct lagmon_unwinder lagmon_unwinder;

/// Creates an unwinder for process `pid`; NULL when libunwind cannot be set up.
lagmon_unwinder *lagmon_unwinder_create(pid_t pid);
void lagmon_unwinder_destroy(lagmon_unwinder *unwinder);
/// Replaces the unwinder's regions (`count` entries sorted by `start_ip`, not overlapping; copied)
/// and drops libunwind's caches. Addresses outside every region have no unwind information.
/// Returns 0, or -1 when memory ran out (the old regions stay).
int lagmon_unwinder_set_regions(lagmon_unwinder *unwinder, const struct lagmon_unwind_region *regions, int count);
/// Drops cached memory pages only (libunwind's caches of unwind tables stay): memory outside the
/// stack copy may have changed since the last busy period.
void lagmon_unwinder_forget_pages(lagmon_unwinder *unwinder);
/// Memory pages read from the live process since creation (a cost counter).
uint64_t lagmon_unwinder_page_reads(const lagmon_unwinder *unwinder);

/// Unwinds `copy`, writing at most `max_frames` instruction addresses (innermost first) to
/// `ips` and, unless NULL, each frame's frame pointer register (x86_64 rbp, as unwound; 0
/// elsewhere or when unknown) to `frame_pointers` and its stack pointer to `stack_pointers`: a
/// Swift async frame keeps its async context just below its frame pointer. Returns the number
/// written; `*outcome` says how it ended. Thread-compatible: one unwinder is used by one thread
/// at a time.
int lagmon_unwind(lagmon_unwinder *unwinder, const struct lagmon_stack_copy *copy, uint64_t *ips,
                  uint64_t *frame_pointers, uint64_t *stack_pointers, int max_frames,
                  enum lagmon_unwind_outcome *outcome);

#endif
