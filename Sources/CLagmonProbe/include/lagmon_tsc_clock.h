// A per-thread clock for the wait-call probe's hot path: the CPU's time-stamp counter, converted
// to the channel clock with a rate measured against CLOCK_MONOTONIC.
//
// Why: a loop's wait needs two timestamps (entry and return). clock_gettime costs about 25 ns in
// a virtual machine (the vDSO's ordered TSC read and its sequence lock), so two of them alone
// would use the whole 50 ns budget of an interposed wait; a plain RDTSC costs about 10 ns.
//
// How: the first reads of a thread take the precise clock (the `precise` callback) and remember a
// (counter, nanoseconds) anchor. A precise read at least LAGMON_TSC_CALIBRATION_NS after the
// anchor sets the rate (nanoseconds per tick, 32.32 fixed point) and moves the anchor. A precise
// read is paired with the counter only when the counter, read again just after it, moved less
// than LAGMON_TSC_PAIR_TICKS since the caller's read: a thread preempted between the two reads
// would otherwise pair a counter value with a time milliseconds later, and every reading until
// the next anchor (a rate measured over 10 ms, extrapolated over 50 ms) would be off by as much
// or more. A loose pair still answers the read; it anchors nothing. From then
// on a read within LAGMON_TSC_SPAN_NS of the anchor is anchor + ticks * rate; a later one (a
// thread that slept or stalled longer) takes the precise clock again and re-anchors, so the
// extrapolation never runs longer than the span: its error stays below a microsecond even while
// NTP slews CLOCK_MONOTONIC (500 ppm at most: 25 us over 50 ms). Readings never go backwards.
// The preload shim uses it only when the kernel's own clocksource is the TSC (so it is invariant
// and synchronised across CPUs); otherwise every read is precise.
#ifndef LAGMON_TSC_CLOCK_H
#define LAGMON_TSC_CLOCK_H

#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/// A precise read is needed at least this long after the anchor to measure the rate.
#define LAGMON_TSC_CALIBRATION_NS 10000000ull
/// Extrapolate at most this long from the anchor.
#define LAGMON_TSC_SPAN_NS 50000000ull
/// A precise read anchors the clock only if the counter moved less than this across it (about
/// 27 us at 2.4 GHz; the read itself takes well under a microsecond): anything longer is a
/// preemption or an interrupt between the two reads.
#define LAGMON_TSC_PAIR_TICKS 65536ull

/// The time-stamp counter (0 where there is none: callers then use the precise clock only).
static inline uint64_t lagmon_tsc_read(void) {
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
}

struct lagmon_tsc_clock {
    uint64_t anchor_tsc;
    uint64_t anchor_ns;   /* 0: no anchor yet */
    uint64_t rate;        /* nanoseconds per tick << 32; 0 until calibrated */
    uint64_t span_ticks;  /* LAGMON_TSC_SPAN_NS in ticks; 0 until calibrated */
    uint64_t last_ns;     /* the latest reading: none may be earlier */
    uint64_t mark_tsc;    /* a caller's counter value, kept here across a call (the Swift job
                             path's job start: memory, not a register saved around the job) */
};

/// Takes a precise reading `ns`, made after counter value `tsc` and before `tsc_after`: anchors,
/// and measures the rate once the anchor is old enough, when the two counter values are close
/// (LAGMON_TSC_PAIR_TICKS); a loose pair only answers.
static inline uint64_t lagmon_tsc_clock_anchor(struct lagmon_tsc_clock *clock, uint64_t tsc, uint64_t ns,
                                               uint64_t tsc_after) {
    if (tsc_after < tsc || tsc_after - tsc >= LAGMON_TSC_PAIR_TICKS) return ns;
    tsc += (tsc_after - tsc) / 2;
    if (clock->anchor_ns == 0 || ns <= clock->anchor_ns || tsc <= clock->anchor_tsc) {
        clock->anchor_tsc = tsc;
        clock->anchor_ns = ns;
        return ns;
    }
    uint64_t elapsed_ns = ns - clock->anchor_ns;
    if (elapsed_ns >= LAGMON_TSC_CALIBRATION_NS) {
        uint64_t ticks = tsc - clock->anchor_tsc;
        clock->rate = (uint64_t)(((unsigned __int128)elapsed_ns << 32) / ticks);
        clock->span_ticks = clock->rate == 0 ? 0 : (uint64_t)(((unsigned __int128)LAGMON_TSC_SPAN_NS << 32) / clock->rate);
        clock->anchor_tsc = tsc;
        clock->anchor_ns = ns;
    }
    return ns;
}

/// The time at counter value `tsc` (channel clock). `precise` reads the channel clock the slow way;
/// `counter` reads the counter (lagmon_tsc_read; tests pass their own), just after it.
static inline uint64_t lagmon_tsc_clock_now(struct lagmon_tsc_clock *clock, uint64_t tsc, uint64_t (*precise)(void),
                                            uint64_t (*counter)(void)) {
    /* One comparison covers all three cases that need the precise clock: no rate yet (span_ticks
       is 0 until the rate is measured), a counter below the anchor (the subtraction wraps to far
       more than any span) and a reading past the span. */
    uint64_t ticks = tsc - clock->anchor_tsc;
    uint64_t now;
    if (__builtin_expect(ticks < clock->span_ticks, 1)) {
        now = clock->anchor_ns + (uint64_t)(((unsigned __int128)ticks * clock->rate) >> 32);
    } else {
        uint64_t ns = precise();
        now = lagmon_tsc_clock_anchor(clock, tsc, ns, counter());
    }
    if (__builtin_expect(now < clock->last_ns, 0)) now = clock->last_ns;
    clock->last_ns = now;
    return now;
}

#endif
