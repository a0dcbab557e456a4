// StrictMode in the preload shim: which thread counts its blocking calls. lagmon_preload.c tells
// it when a thread becomes (or stops being) a watched loop; lagmon_strict_calls.c wraps the calls.
#ifndef LAGMON_STRICT_CALLS_H
#define LAGMON_STRICT_CALLS_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"

/// The calling thread is the loop observed through `slot` (NULL: no longer a loop): its blocking
/// calls are counted there from now on, when lagmon asked for StrictMode.
LAGMON_HIDDEN void lagmon_strict_watch(struct lagmon_channel_header *channel, struct lagmon_slot *slot);

/// Descriptor `fd` was closed or replaced: what StrictMode knew of it is stale.
LAGMON_HIDDEN void lagmon_strict_forget_fd(int fd);

/// In a fork's child: the forking thread's loop belongs to the parent.
LAGMON_HIDDEN void lagmon_strict_after_fork_child(void);

/// Now on the channel clock, as the wait-call probe reads it (lagmon_preload.c).
LAGMON_HIDDEN uint64_t lagmon_preload_clock_now(void);

#endif
