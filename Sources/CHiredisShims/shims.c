#include "CHiredisShims.h"
#include <hiredis/adapters/libuv.h>

/* hiredis 0.14's libuv adapter ignores a poll callback whose status is an error. libuv reports
   a socket error (a refused connect, a reset connection) exactly that way, and stops polling, so
   hiredis would never learn that its connection failed. This callback hands such a socket to
   hiredis, which reads the error and runs its disconnect path; anything else goes to the
   adapter's own callback. */
static void c_redis_poll(uv_poll_t *handle, int status, int events) {
    redisLibuvEvents *events_state = (redisLibuvEvents *)handle->data;
    if (status == 0) {
        redisLibuvPoll(handle, status, events);
        return;
    }
    redisAsyncContext *context = events_state->context;
    if (context == NULL) return;
    if (context->c.flags & REDIS_CONNECTED) {
        redisAsyncHandleRead(context);
    } else {
        redisAsyncHandleWrite(context);
    }
}

/* The adapter's four event functions, starting the poll with the callback above. */
static void c_redis_update(redisLibuvEvents *state) {
    if (state->events) {
        uv_poll_start(&state->handle, state->events, c_redis_poll);
    } else {
        uv_poll_stop(&state->handle);
    }
}

static void c_redis_add_read(void *privdata) {
    redisLibuvEvents *state = (redisLibuvEvents *)privdata;
    state->events |= UV_READABLE;
    c_redis_update(state);
}

static void c_redis_del_read(void *privdata) {
    redisLibuvEvents *state = (redisLibuvEvents *)privdata;
    state->events &= ~UV_READABLE;
    c_redis_update(state);
}

static void c_redis_add_write(void *privdata) {
    redisLibuvEvents *state = (redisLibuvEvents *)privdata;
    state->events |= UV_WRITABLE;
    c_redis_update(state);
}

static void c_redis_del_write(void *privdata) {
    redisLibuvEvents *state = (redisLibuvEvents *)privdata;
    state->events &= ~UV_WRITABLE;
    c_redis_update(state);
}

int c_redis_attach_to_libuv(redisAsyncContext *context, void *uv_loop) {
    /* The adapter allocates its state and poll handle (closed and freed by its cleanup). */
    if (redisLibuvAttach(context, (uv_loop_t *)uv_loop) != REDIS_OK) return REDIS_ERR;
    context->ev.addRead = c_redis_add_read;
    context->ev.delRead = c_redis_del_read;
    context->ev.addWrite = c_redis_add_write;
    context->ev.delWrite = c_redis_del_write;
    return REDIS_OK;
}

void c_redis_set_data(redisAsyncContext *context, void *data) {
    context->data = data;
}

void *c_redis_get_data(const redisAsyncContext *context) {
    return context->data;
}

const char *c_redis_error_text(const redisAsyncContext *context) {
    return context->err ? context->errstr : NULL;
}
