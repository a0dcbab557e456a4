// The preload shim's Swift-concurrency part (lagmon_swift_jobs.c), as lagmon_preload.c calls it.
#ifndef LAGMON_SWIFT_JOBS_H
#define LAGMON_SWIFT_JOBS_H

#include "lagmon_probe.h"

/// Starts observing Swift jobs if this process runs Swift concurrency on libdispatch.
LAGMON_HIDDEN void lagmon_swift_jobs_init(struct lagmon_channel_header *channel, int tsc_usable);
/// In a fork's child: forgets the parent's slots.
LAGMON_HIDDEN void lagmon_swift_jobs_after_fork_child(struct lagmon_channel_header *channel);
/// A pool thread's exit ends its loop.
LAGMON_HIDDEN void lagmon_swift_jobs_thread_exit(void *slot);

#endif
