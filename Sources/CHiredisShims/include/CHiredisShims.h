#ifndef C_HIREDIS_SHIMS_H
#define C_HIREDIS_SHIMS_H

#include <hiredis/async.h>

/// Attaches `context` to the libuv loop `uv_loop` (a `uv_loop_t *`) with hiredis's own libuv
/// adapter, so its socket is watched by a `uv_poll_t` on that loop, with one fix: a socket error
/// that libuv reports as a poll status (a refused connect, a reset) reaches hiredis, which then
/// fails the connection instead of waiting forever. Returns REDIS_OK or REDIS_ERR. The adapter's handle is closed (and freed in its close callback) when the context
/// is freed. Loop thread only. The loop is passed as `void *` so that Swift code calling this
/// does not see libuv's declarations (only the event-loop module imports libuv).
int c_redis_attach_to_libuv(redisAsyncContext *context, void *uv_loop);

/// Stores `data` in the context's user-data slot.
void c_redis_set_data(redisAsyncContext *context, void *data);

/// The context's user-data slot.
void *c_redis_get_data(const redisAsyncContext *context);

/// The context's error text, or NULL.
const char *c_redis_error_text(const redisAsyncContext *context);

#endif
