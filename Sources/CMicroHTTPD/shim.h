// libmicrohttpd for Swift. MHD_start_daemon is variadic and does not import; the wrapper
// passes every option through MHD_OPTION_ARRAY instead, and the accept policy (apc) as given.
// Same for MHD_get_connection_info.
#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

static inline struct MHD_Daemon *aiden_mhd_start(unsigned int flags, uint16_t port,
                                                 MHD_AcceptPolicyCallback apc, void *apc_cls,
                                                 MHD_AccessHandlerCallback handler, void *handler_cls,
                                                 struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, apc, apc_cls, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline const union MHD_ConnectionInfo *aiden_mhd_client_address(struct MHD_Connection *c) {
    return MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
}

static inline const union MHD_ConnectionInfo *aiden_mhd_connection_fd(struct MHD_Connection *c) {
    return MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
}

// What the connection-notify callback stored for this connection (its "socket context").
static inline void *aiden_mhd_socket_context(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// The board's accept loop (AcceptLoop.swift) hands connections to the daemon itself. Swift's Glibc module leaves out
// accept4, a GNU extension, and sys/eventfd.h: accept4 is declared here under a name of our own bound to its symbol.
#include <sys/eventfd.h>
extern int aiden_accept4(int, struct sockaddr *, socklen_t *, int) __asm__("accept4");

// A connection from the queue, non-blocking and close-on-exec from the start; -1 and errno as accept(2). The flags
// are Linux's values of SOCK_NONBLOCK and SOCK_CLOEXEC: naming them in this header hides Glibc's SOCK_CLOEXEC from
// Swift in the release build.
static inline int aiden_accept(int listener, struct sockaddr *address, socklen_t *length) {
    return aiden_accept4(listener, address, length, 04000 | 02000000);
}

// The loop's wake-up on stop.
static inline int aiden_wake_descriptor(void) { return eventfd(0, EFD_CLOEXEC); }
