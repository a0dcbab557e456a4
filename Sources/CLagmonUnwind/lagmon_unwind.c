#define _GNU_SOURCE
#include "lagmon_unwind.h"

#include <libunwind-ptrace.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define LAGMON_PAGE_SIZE 4096u
#define LAGMON_PAGE_SLOTS 64u

struct lagmon_page {
    uint64_t address;    /* page-aligned target address; 0 = empty */
    uint64_t generation; /* 0: valid until flushed; otherwise valid for that unwind only */
    uint8_t bytes[LAGMON_PAGE_SIZE];
};

struct lagmon_unwinder {
    pid_t pid;
    unw_addr_space_t space;
    void *upt; /* libunwind's ptrace helper state: only its ELF lookups are used */
    const struct lagmon_stack_copy *copy;
    uint64_t generation; /* incremented per unwind */
    uint64_t page_reads;
    struct lagmon_page pages[LAGMON_PAGE_SLOTS];
};

/* libunwind hands the accessors its `arg`, which _UPT_find_proc_info replaces with its own
   state on the way down; the unwinder in use is therefore found here instead. One unwind runs
   per thread at a time. */
static __thread struct lagmon_unwinder *current_unwinder;

static const uint8_t *lagmon_page_for(struct lagmon_unwinder *u, uint64_t page) {
    struct lagmon_page *slot = &u->pages[(page / LAGMON_PAGE_SIZE) % LAGMON_PAGE_SLOTS];
    const struct lagmon_stack_copy *copy = u->copy;
    int is_stack = copy && page + LAGMON_PAGE_SIZE > copy->live_stack_start && page < copy->live_stack_end;
    uint64_t generation = is_stack ? u->generation : 0;
    if (slot->address == page && slot->generation == generation) return slot->bytes;
    slot->generation = generation;
    struct iovec local = {slot->bytes, LAGMON_PAGE_SIZE};
    struct iovec remote = {(void *)(uintptr_t)page, LAGMON_PAGE_SIZE};
    u->page_reads++;
    if (process_vm_readv(u->pid, &local, 1, &remote, 1, 0) != (ssize_t)LAGMON_PAGE_SIZE) {
        slot->address = 0;
        return NULL;
    }
    slot->address = page;
    return slot->bytes;
}

static int lagmon_read_word(struct lagmon_unwinder *u, uint64_t address, uint64_t *value) {
    const struct lagmon_stack_copy *copy = u->copy;
    // Written so that no sum can wrap: libunwind asks for addresses near 2^64 on garbage frames.
    if (copy && copy->stack_length >= 8 && address >= copy->stack_start &&
        address - copy->stack_start <= copy->stack_length - 8) {
        memcpy(value, copy->bytes + (address - copy->stack_start), 8);
        return 0;
    }
    uint8_t buffer[8];
    for (unsigned i = 0; i < 8;) {
        uint64_t at = address + i;
        uint64_t page = at & ~(uint64_t)(LAGMON_PAGE_SIZE - 1);
        const uint8_t *bytes = lagmon_page_for(u, page);
        if (bytes == NULL) return -UNW_EINVAL;
        unsigned available = (unsigned)(page + LAGMON_PAGE_SIZE - at);
        unsigned take = available < 8 - i ? available : 8 - i;
        memcpy(buffer + i, bytes + (at - page), take);
        i += take;
    }
    memcpy(value, buffer, 8);
    return 0;
}

static int lagmon_access_mem(unw_addr_space_t space, unw_word_t address, unw_word_t *value, int write, void *arg) {
    (void)space;
    (void)arg;
    if (write || current_unwinder == NULL) return -UNW_EINVAL;
    return lagmon_read_word(current_unwinder, address, (uint64_t *)value);
}

static int lagmon_access_reg(unw_addr_space_t space, unw_regnum_t reg, unw_word_t *value, int write, void *arg) {
    (void)space;
    (void)arg;
    if (write || current_unwinder == NULL || current_unwinder->copy == NULL) return -UNW_EBADREG;
    const struct user_regs_struct *r = &current_unwinder->copy->regs;
    switch (reg) {
    case UNW_X86_64_RAX: *value = r->rax; return 0;
    case UNW_X86_64_RDX: *value = r->rdx; return 0;
    case UNW_X86_64_RCX: *value = r->rcx; return 0;
    case UNW_X86_64_RBX: *value = r->rbx; return 0;
    case UNW_X86_64_RSI: *value = r->rsi; return 0;
    case UNW_X86_64_RDI: *value = r->rdi; return 0;
    case UNW_X86_64_RBP: *value = r->rbp; return 0;
    case UNW_X86_64_RSP: *value = r->rsp; return 0;
    case UNW_X86_64_R8: *value = r->r8; return 0;
    case UNW_X86_64_R9: *value = r->r9; return 0;
    case UNW_X86_64_R10: *value = r->r10; return 0;
    case UNW_X86_64_R11: *value = r->r11; return 0;
    case UNW_X86_64_R12: *value = r->r12; return 0;
    case UNW_X86_64_R13: *value = r->r13; return 0;
    case UNW_X86_64_R14: *value = r->r14; return 0;
    case UNW_X86_64_R15: *value = r->r15; return 0;
    case UNW_X86_64_RIP: *value = r->rip; return 0;
    default: return -UNW_EBADREG;
    }
}

static int lagmon_access_fpreg(unw_addr_space_t space, unw_regnum_t reg, unw_fpreg_t *value, int write, void *arg) {
    (void)space, (void)reg, (void)value, (void)write, (void)arg;
    return -UNW_EBADREG;
}

static int lagmon_find_proc_info(unw_addr_space_t space, unw_word_t ip, unw_proc_info_t *info, int need_unwind_info,
                                 void *arg) {
    (void)arg;
    return _UPT_find_proc_info(space, ip, info, need_unwind_info, current_unwinder->upt);
}

static void lagmon_put_unwind_info(unw_addr_space_t space, unw_proc_info_t *info, void *arg) {
    (void)arg;
    _UPT_put_unwind_info(space, info, current_unwinder->upt);
}

static int lagmon_get_dyn_info_list_addr(unw_addr_space_t space, unw_word_t *address, void *arg) {
    (void)space, (void)address, (void)arg;
    return -UNW_ENOINFO;
}

static int lagmon_resume(unw_addr_space_t space, unw_cursor_t *cursor, void *arg) {
    (void)space, (void)cursor, (void)arg;
    return -UNW_EINVAL;
}

static int lagmon_get_proc_name(unw_addr_space_t space, unw_word_t address, char *buffer, size_t length,
                                unw_word_t *offset, void *arg) {
    (void)space, (void)address, (void)buffer, (void)length, (void)offset, (void)arg;
    return -UNW_ENOINFO; /* symbols are resolved after sampling, in batch */
}

static unw_accessors_t lagmon_accessors = {
    .find_proc_info = lagmon_find_proc_info,
    .put_unwind_info = lagmon_put_unwind_info,
    .get_dyn_info_list_addr = lagmon_get_dyn_info_list_addr,
    .access_mem = lagmon_access_mem,
    .access_reg = lagmon_access_reg,
    .access_fpreg = lagmon_access_fpreg,
    .resume = lagmon_resume,
    .get_proc_name = lagmon_get_proc_name,
};

lagmon_unwinder *lagmon_unwinder_create(pid_t pid) {
    struct lagmon_unwinder *u = calloc(1, sizeof *u);
    if (u == NULL) return NULL;
    u->pid = pid;
    u->space = unw_create_addr_space(&lagmon_accessors, 0);
    u->upt = _UPT_create(pid);
    if (u->space == NULL || u->upt == NULL) {
        lagmon_unwinder_destroy(u);
        return NULL;
    }
    unw_set_caching_policy(u->space, UNW_CACHE_GLOBAL);
    return u;
}

void lagmon_unwinder_destroy(lagmon_unwinder *u) {
    if (u == NULL) return;
    if (u->space) unw_destroy_addr_space(u->space);
    if (u->upt) _UPT_destroy(u->upt);
    free(u);
}

void lagmon_unwinder_forget_pages(lagmon_unwinder *u) {
    for (unsigned i = 0; i < LAGMON_PAGE_SLOTS; i++) u->pages[i].address = 0;
}

void lagmon_unwinder_flush(lagmon_unwinder *u) {
    lagmon_unwinder_forget_pages(u);
    unw_flush_cache(u->space, 0, 0);
}

uint64_t lagmon_unwinder_page_reads(const lagmon_unwinder *u) { return u->page_reads; }

int lagmon_unwind(lagmon_unwinder *u, const struct lagmon_stack_copy *copy, uint64_t *ips, int max_frames,
                  enum lagmon_unwind_outcome *outcome) {
    unw_cursor_t cursor;
    int count = 0;
    *outcome = LAGMON_UNWIND_FAILED;
    u->copy = copy;
    u->generation++;
    current_unwinder = u;
    if (unw_init_remote(&cursor, u->space, u) == 0) {
        while (count < max_frames) {
            unw_word_t ip = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
            ips[count++] = ip;
            int step = unw_step(&cursor);
            if (step == 0) {
                *outcome = LAGMON_UNWIND_COMPLETE;
                break;
            }
            if (step < 0) break;
            if (count == max_frames) *outcome = LAGMON_UNWIND_TRUNCATED;
        }
    }
    current_unwinder = NULL;
    u->copy = NULL;
    return count;
}
