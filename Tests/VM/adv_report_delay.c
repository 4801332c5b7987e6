/* adv_report_delay.c: the lab's radio reports an advertiser a moment after a scan starts, as a real one does.
 *
 * btvirt (BlueZ 5.66's controller emulator, Debian 12's) sends a scanning controller its LE advertising
 * reports in the same instant as the Command Complete that enables the scan, and never again while the scan
 * lasts. The kernel (6.1) only moves its discovery from "starting" to "finding" after that Command Complete,
 * on another worker, and drops every report that arrives before: so about every other scan in the guest never
 * saw the board at all (Tests/VM/README.md, the bonds phase). A real controller reports an advertiser at its
 * next advertising event after the scan started, and again at the following ones.
 *
 * Loaded into btvirt with LD_PRELOAD, this hands the kernel each LE (extended) advertising report that btvirt
 * writes to /dev/vhci AIDEN_VM_REPORT_DELAY_MS later (default 200), in the order btvirt wrote them, from a
 * thread of its own; every other packet goes through at once. Nothing is invented or repeated.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct held {
    struct held *next;
    int fd;
    struct timespec due;
    size_t length;
    uint8_t bytes[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;
static struct held *first, *last;
static int started;
static ssize_t (*real_writev)(int, const struct iovec *, int);

static long delay_ms(void) {
    const char *text = getenv("AIDEN_VM_REPORT_DELAY_MS");
    long value = text ? strtol(text, NULL, 10) : 200;
    return value >= 0 && value <= 10000 ? value : 200;
}

#ifndef VHCI_PATH
#define VHCI_PATH "/dev/vhci"
#endif

static int is_vhci(int fd) {
    char link[32], target[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0) return 0;
    target[n] = 0;
    return strcmp(target, VHCI_PATH) == 0;
}

/* An H4 event packet: 0x04, LE Meta (0x3e), length, then the subevent: Advertising Report (0x02), Directed
 * Advertising Report (0x0b) or Extended Advertising Report (0x0d). */
static int is_advertising_report(const uint8_t *packet, size_t length) {
    return length >= 4 && packet[0] == 0x04 && packet[1] == 0x3e
        && (packet[3] == 0x02 || packet[3] == 0x0b || packet[3] == 0x0d);
}

static void *hand_over(void *unused) {
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!first) pthread_cond_wait(&arrived, &lock);
        struct held *packet = first;
        if (pthread_cond_timedwait(&arrived, &lock, &packet->due) == 0 && first == packet) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec < packet->due.tv_sec
                || (now.tv_sec == packet->due.tv_sec && now.tv_nsec < packet->due.tv_nsec))
                continue;
        }
        first = packet->next;
        if (!first) last = NULL;
        pthread_mutex_unlock(&lock);
        struct iovec whole = {packet->bytes, packet->length};
        real_writev(packet->fd, &whole, 1);
        free(packet);
        pthread_mutex_lock(&lock);
    }
    return NULL;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    if (!real_writev) real_writev = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    size_t length = 0;
    for (int i = 0; i < count; i++) length += iov[i].iov_len;
    if (count < 1 || length < 4 || length > 4096 || !is_vhci(fd)) return real_writev(fd, iov, count);
    struct held *packet = malloc(sizeof *packet + length);
    if (!packet) return real_writev(fd, iov, count);
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        memcpy(packet->bytes + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    if (!is_advertising_report(packet->bytes, length)) {
        free(packet);
        return real_writev(fd, iov, count);
    }
    packet->next = NULL;
    packet->fd = fd;
    packet->length = length;
    clock_gettime(CLOCK_REALTIME, &packet->due);
    long ms = delay_ms();
    packet->due.tv_sec += ms / 1000;
    packet->due.tv_nsec += (ms % 1000) * 1000000L;
    if (packet->due.tv_nsec >= 1000000000L) {
        packet->due.tv_sec += 1;
        packet->due.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&lock);
    if (!started) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, hand_over, NULL) != 0) {
            pthread_mutex_unlock(&lock);
            free(packet);
            return real_writev(fd, iov, count);
        }
        pthread_detach(thread);
        started = 1;
    }
    if (last) last->next = packet; else first = packet;
    last = packet;
    pthread_cond_signal(&arrived);
    pthread_mutex_unlock(&lock);
    return (ssize_t)length;
}
