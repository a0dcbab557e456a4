// The userfaultfd scenarios of lagmon-hostile-fixture: the main thread runs an epoll loop on a
// stack of its own (makecontext), then stalls 400 ms in spin_with_stack_in_userfaultfd() after
// registering the stack pages above the stalled frame with a userfaultfd that nobody answers and
// dropping them (MADV_DONTNEED). Any read of those pages from outside — process_vm_readv,
// /proc/PID/mem — then waits for the handler, for ever. The thread itself never touches them:
// after the stall it jumps back to main's own stack (setcontext), waits on its loop once more
// (the stall ends there, on the target's clock), waits until it is no longer traced and exits.
//
//   uffd-copy: the stall's stack pointer sits in the last 512 bytes of its page and the pages
//     from the next one up are missing: the stack copy lagmon makes while the thread is stopped
//     (at least 1 KiB past the stack pointer) reads a missing page.
//   uffd-unwind: the copy's pages are kept; the caller's frame, 8 KiB further up, is missing:
//     the unwind after the thread resumed reads it.
//
// Lines on stdout: `uffd stack sp=0x… missing-from=0x… mode=…` before the stall, `stalled`
// after it, `untraced after N checks` (or `still traced`, exit 4) at the end. Where userfaultfd
// cannot be used it prints `uffd unavailable: <reason>` and exits 77 (the test skips with it).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define UFFD_STACK_PAGES 64
#define UFFD_PAGE 4096ul

static ucontext_t main_context, loop_context;
static char *stack_region;
static int uffd = -1, loop_epoll = -1, loop_timer = -1;
static int unwind_mode;
static volatile uint64_t uffd_sink;

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void loop_tick(void) {
    struct epoll_event event;
    while (epoll_wait(loop_epoll, &event, 1, -1) != 1) {
    }
    uint64_t expirations;
    if (read(loop_timer, &expirations, sizeof expirations) < 0) perror("read");
}

/// Registers the whole stack with the userfaultfd (one mapping, as /proc/PID/maps shows it: a
/// part registered alone would be a mapping of its own) and drops the pages from `start` up:
/// from here on, any access to those waits for a handler that never answers. The pages below
/// stay (the stack was populated when mapped), so the thread's own calls never fault.
static int make_missing(uintptr_t start) {
    uintptr_t end = (uintptr_t)stack_region + UFFD_STACK_PAGES * UFFD_PAGE;
    struct uffdio_register range = {
        .range = {.start = (uintptr_t)stack_region, .len = end - (uintptr_t)stack_region},
        .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (ioctl(uffd, UFFDIO_REGISTER, &range) != 0) return -1;
    return madvise((void *)start, end - start, MADV_DONTNEED);
}

/// Stalls 400 ms with the stack above its own frame missing; never returns (those frames are
/// gone): it jumps back to main's context instead.
__attribute__((noinline)) void spin_with_stack_in_userfaultfd(void) {
    uintptr_t sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    uintptr_t page_end = (sp | (UFFD_PAGE - 1)) + 1;
    uintptr_t missing = unwind_mode ? page_end + UFFD_PAGE : page_end;
    // The copy reads at least 1 KiB past the stack pointer: in copy mode that must reach the
    // missing page; in unwind mode it must not.
    if (!unwind_mode && sp + 1024 <= page_end) {
        printf("uffd could not place the stack pointer: sp=0x%lx\n", (unsigned long)sp);
        fflush(stdout);
        _exit(3);
    }
    if (make_missing(missing) != 0) {
        printf("uffd unavailable: UFFDIO_REGISTER or MADV_DONTNEED failed: %s\n", strerror(errno));
        fflush(stdout);
        _exit(77);
    }
    printf("uffd stack sp=0x%lx missing-from=0x%lx mode=%s\n", (unsigned long)sp, (unsigned long)missing,
           unwind_mode ? "unwind" : "copy");
    fflush(stdout);
    uint64_t until = monotonic_ns() + 400000000ull;
    while (monotonic_ns() < until) {
        for (int i = 0; i < 1000; i++) uffd_sink += (uint64_t)i * 2654435761u;
    }
    setcontext(&main_context);
    _exit(5);
}

/// Moves the stack pointer so the stalled frame lands where the mode needs it: 512 bytes below
/// a page end (copy), or 8 KiB below this frame (unwind), in both cases pages below the stack's top.
__attribute__((noinline)) static void place_and_stall(void) {
    uintptr_t here;
    __asm__ volatile("mov %%rsp, %0" : "=r"(here));
    // Four pages down first: the frames above must lie inside the stack mapping, not past its end.
    size_t gap = 4 * UFFD_PAGE + (unwind_mode ? 8192 : ((here & (UFFD_PAGE - 1)) + UFFD_PAGE - 0xE00) % UFFD_PAGE + 64);
    volatile char *space = alloca(gap);
    space[0] = 1;
    spin_with_stack_in_userfaultfd();
}

static void run_loop_on_own_stack(void) {
    for (int i = 0; i < 5; i++) loop_tick();
    place_and_stall();
}

static int tracer_of_self(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) return -1;
    char line[256];
    int tracer = -1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "TracerPid:", 10) == 0) tracer = atoi(line + 10);
    }
    fclose(status);
    return tracer;
}

static int open_userfaultfd(void) {
    uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (uffd < 0) {
        printf("uffd unavailable: userfaultfd(2) failed: %s (vm.unprivileged_userfaultfd is 0 and this "
               "process lacks CAP_SYS_PTRACE?)\n",
               strerror(errno));
        return -1;
    }
    struct uffdio_api api = {.api = UFFD_API, .features = 0};
    if (ioctl(uffd, UFFDIO_API, &api) != 0) {
        printf("uffd unavailable: UFFDIO_API failed: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int run_uffd_stack(int unwind, int status) {
    unwind_mode = unwind;
    if (open_userfaultfd() != 0) return 77;
    stack_region = mmap(NULL, UFFD_STACK_PAGES * UFFD_PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (stack_region == MAP_FAILED) return 70;
    loop_epoll = epoll_create1(EPOLL_CLOEXEC);
    loop_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec every = {{0, 20000000}, {0, 20000000}};
    timerfd_settime(loop_timer, 0, &every, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = loop_timer};
    epoll_ctl(loop_epoll, EPOLL_CTL_ADD, loop_timer, &event);
    getcontext(&loop_context);
    loop_context.uc_stack.ss_sp = stack_region;
    loop_context.uc_stack.ss_size = UFFD_STACK_PAGES * UFFD_PAGE;
    loop_context.uc_link = NULL;
    makecontext(&loop_context, run_loop_on_own_stack, 0);
    swapcontext(&main_context, &loop_context);
    // Back from the stall, on main's own stack.
    printf("stalled\n");
    fflush(stdout);
    loop_tick();
    // lagmon lets the thread go when it sees the stall end: wait for that (a poll of a fact the
    // kernel reports, bounded at 30 s so a lagmon that never detaches fails the test instead of
    // hanging it; one check per 20 ms tick).
    int checks = 0;
    for (; checks < 1500; checks++) {
        if (tracer_of_self() == 0) break;
        loop_tick();
    }
    if (checks == 1500) {
        printf("still traced\n");
        return 4;
    }
    printf("untraced after %d checks\n", checks);
    close(loop_timer);
    close(loop_epoll);
    return status;
}
