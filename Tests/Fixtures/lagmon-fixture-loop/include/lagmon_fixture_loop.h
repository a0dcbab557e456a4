// The event loop the C fixtures tick in between their stalls: an epoll set holding one periodic
// timerfd. lagmon's wait-call probe sees each epoll_wait; a thread counts as a loop from its
// third wait, so fixtures tick a few times before they stall.
#ifndef LAGMON_FIXTURE_LOOP_H
#define LAGMON_FIXTURE_LOOP_H

/// Opens the loop: a timerfd firing every `period_ns` nanoseconds (`*timer`) in a new epoll set
/// (`*epoll`).
void lagmon_fixture_loop_open(long period_ns, int *epoll, int *timer);

/// Waits for `count` ticks of `timer`, one epoll_wait on `epoll` each.
void lagmon_fixture_ticks(int epoll, int timer, int count);

#endif
