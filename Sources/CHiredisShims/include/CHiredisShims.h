#ifndef C_HIREDIS_SHIMS_H
#define C_HIREDIS_SHIMS_H

#include <hiredis/async.h>

/// Called whenever the socket interest of a context changes: whether hiredis now wants to know
/// when the socket is readable, and when it is writable (0 or 1 each). `owner` is the pointer
/// given to ``c_redis_attach``.
typedef void (*c_redis_interest_callback)(void *owner, int want_read, int want_write);

/// Called once, when hiredis frees the context (after a failed connect, a disconnect or
/// redisAsyncFree), before it closes the socket: stop watching it. No interest callback follows.
typedef void (*c_redis_cleanup_callback)(void *owner);

/// Sets the context's event hooks (hiredis 0.14's `ev` addRead/delRead/addWrite/delWrite/cleanup)
/// so that hiredis reports the read/write interest it wants to `interest` and its cleanup to
/// `cleanup`; the caller watches `context->c.fd` (a LoopPoll on the event loop) and calls
/// redisAsyncHandleRead / redisAsyncHandleWrite when it is ready. No event library is linked:
/// the caller's loop does the watching. Returns REDIS_OK, or REDIS_ERR when the context already
/// has event hooks or memory runs out. The hooks' state is freed in the cleanup. Loop thread only.
int c_redis_attach(redisAsyncContext *context, void *owner, c_redis_interest_callback interest,
                   c_redis_cleanup_callback cleanup);

/// Whether the context's connection is established (REDIS_CONNECTED is set).
int c_redis_is_connected(const redisAsyncContext *context);

/// The socket hiredis connects on (`context->c.fd`).
int c_redis_fd(const redisAsyncContext *context);

/// Stores `data` in the context's user-data slot.
void c_redis_set_data(redisAsyncContext *context, void *data);

/// The context's user-data slot.
void *c_redis_get_data(const redisAsyncContext *context);

/// The context's error text, or NULL.
const char *c_redis_error_text(const redisAsyncContext *context);

#endif
