// StrictMode's record: a blocking call made on a watched loop's thread, aggregated into that
// loop's slot by (call, call site). The preload shim's wrappers (lagmon_strict_calls.c) call it;
// the micro-benchmarks call it directly.
//
// The calling thread is the slot's only writer (the loop's own thread), so entries are found and
// filled without a lock; lagmon reads them with every field bounds-checked. The table is bounded:
// a pair that finds every entry taken is only counted in `strict_overflow`.
#ifndef LAGMON_STRICT_H
#define LAGMON_STRICT_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"

/// Adds one call of `call` from `site` that took `duration_ns` to `slot`.
static inline void lagmon_strict_record(struct lagmon_slot *slot, uint32_t call, uint64_t site,
                                        uint64_t duration_ns) {
    lagmon_probe_store(&slot->strict_calls, slot->strict_calls + 1);
    uint32_t used = slot->strict_used;
    if (used > LAGMON_STRICT_CAPACITY) used = LAGMON_STRICT_CAPACITY;
    for (uint32_t i = 0; i < used; i++) {
        struct lagmon_strict_entry *entry = &slot->strict[i];
        if (entry->site != site || entry->call != call) continue;
        lagmon_probe_store(&entry->count, entry->count + 1);
        lagmon_probe_store(&entry->total_ns, entry->total_ns + duration_ns);
        if (duration_ns > entry->max_ns) lagmon_probe_store(&entry->max_ns, duration_ns);
        return;
    }
    if (used == LAGMON_STRICT_CAPACITY) {
        lagmon_probe_store(&slot->strict_overflow, slot->strict_overflow + 1);
        return;
    }
    struct lagmon_strict_entry *entry = &slot->strict[used];
    lagmon_probe_store(&entry->site, site);
    __atomic_store_n(&entry->call, call, __ATOMIC_RELAXED);
    lagmon_probe_store(&entry->count, 1);
    lagmon_probe_store(&entry->total_ns, duration_ns);
    lagmon_probe_store(&entry->max_ns, duration_ns);
    /* Release: lagmon, reading `strict_used` with acquire, sees the entry whole. */
    __atomic_store_n(&slot->strict_used, used + 1, __ATOMIC_RELEASE);
}

#endif
