// A library with one distinctive function, for the tests of images replaced on disk after they
// were loaded (lagmon-stack-fixture library ...).
#include "lagmon_stack_fixture_library.h"

#include <stdint.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

__attribute__((noinline)) void stack_fixture_library_spins(int milliseconds, void (*halfway)(void),
                                                             volatile int *stop) {
    uint64_t start = now_ns();
    /* `halfway` runs half-way through, or 300 ms in for a long stall a signal is to end. */
    uint64_t middle = start + (milliseconds > 600 ? 300000000ull : (uint64_t)milliseconds * 500000ull);
    uint64_t until = start + (uint64_t)milliseconds * 1000000ull;
    int called = 0;
    for (uint64_t now = start; now < until && !*stop; now = now_ns()) {
        for (int i = 0; i < 2000; i++) sink += (uint64_t)i * 2654435761u;
        if (!called && now >= middle) {
            called = 1;
            if (halfway) halfway();
        }
    }
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
}
