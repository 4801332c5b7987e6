/* LD_PRELOAD shim for wrk, which cannot choose its source address: every IPv4 socket it connects
 * is first bound to AIDEN_BENCH_SOURCE (a loopback address such as 127.0.0.2, port 0), so that
 * bench/run's c = 16 comes from four peers and the board's per-peer limit of 4 holds for each. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    static int (*real_connect)(int, const struct sockaddr *, socklen_t);
    if (real_connect == NULL) {
        real_connect = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
    }
    const char *source = getenv("AIDEN_BENCH_SOURCE");
    if (source != NULL && address != NULL && address->sa_family == AF_INET) {
        struct sockaddr_in local = {.sin_family = AF_INET};
        if (inet_pton(AF_INET, source, &local.sin_addr) != 1) {
            errno = EINVAL;
            return -1; /* wrk counts a connect error, which fails the bench */
        }
        if (bind(fd, (const struct sockaddr *)&local, sizeof local) != 0) {
            return -1;
        }
    }
    return real_connect(fd, address, length);
}
