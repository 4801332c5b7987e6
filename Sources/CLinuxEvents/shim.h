// Linux's event and socket calls that Swift's Glibc module leaves out (GNU extensions and Linux-only headers):
// epoll, eventfd and accept4. The HTTP server's loop (Sources/HTTPServer/ServerLoop.swift) is their one user.
#pragma once
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>

extern int aiden_accept4(int, struct sockaddr *, socklen_t *, int) __asm__("accept4");

// A connection from the queue, non-blocking and close-on-exec from the start; -1 and errno as accept(2). The flags
// are Linux's values of SOCK_NONBLOCK and SOCK_CLOEXEC: naming them in this header hides Glibc's SOCK_CLOEXEC from
// Swift in the release build.
static inline int aiden_accept(int listener, struct sockaddr *address, socklen_t *length) {
    return aiden_accept4(listener, address, length, 04000 | 02000000);
}

// The loop's own wake-up: other threads write to it to hand the loop an answer, or to stop it.
static inline int aiden_event_descriptor(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static inline int aiden_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

// Registers or changes `descriptor` for `events`, with `key` given back with each of its events.
static inline int aiden_epoll_set(int epoll, int operation, int descriptor, uint32_t events, uint64_t key) {
    struct epoll_event event = {.events = events, .data = {.u64 = key}};
    return epoll_ctl(epoll, operation, descriptor, &event);
}

// Waits for up to `capacity` events, writing each one's events and key to the two arrays (epoll_event is packed,
// which Swift reads awkwardly); the count, 0 on timeout, -1 and errno on failure.
static inline int aiden_epoll_wait(int epoll, uint32_t *events, uint64_t *keys, int capacity, int timeout) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    for (int index = 0; index < count; index++) {
        events[index] = ready[index].events;
        keys[index] = ready[index].data.u64;
    }
    return count;
}

static const uint32_t aiden_epoll_in = EPOLLIN;
static const uint32_t aiden_epoll_out = EPOLLOUT;
static const uint32_t aiden_epoll_rdhup = EPOLLRDHUP;
static const uint32_t aiden_epoll_hup = EPOLLHUP;
static const uint32_t aiden_epoll_err = EPOLLERR;
static const int aiden_epoll_add = EPOLL_CTL_ADD;
static const int aiden_epoll_modify = EPOLL_CTL_MOD;
static const int aiden_epoll_remove = EPOLL_CTL_DEL;
