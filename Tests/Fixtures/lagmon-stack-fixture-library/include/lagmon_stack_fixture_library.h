// The library lagmon-stack-fixture dlopens (built as liblagmon-stack-fixture-library.so).
#ifndef LAGMON_STACK_FIXTURE_LIBRARY_H
#define LAGMON_STACK_FIXTURE_LIBRARY_H

/// Spins `milliseconds` of CPU inside this library; calls `halfway` once, half-way through;
/// returns early when `*stop` becomes non-zero.
void stack_fixture_library_spins(int milliseconds, void (*halfway)(void), volatile int *stop);

#endif
