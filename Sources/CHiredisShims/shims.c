#include "CHiredisShims.h"
#include <stdlib.h>

/* What the event hooks need: whom to tell, and the interest so far. Freed in the cleanup. */
typedef struct c_redis_events {
    redisAsyncContext *context;
    void *owner;
    int want_read;
    int want_write;
    c_redis_interest_callback interest;
    c_redis_cleanup_callback cleanup;
} c_redis_events;

static void c_redis_report(c_redis_events *events) {
    events->interest(events->owner, events->want_read, events->want_write);
}

static void c_redis_add_read(void *privdata) {
    c_redis_events *events = (c_redis_events *)privdata;
    if (events->want_read) return;
    events->want_read = 1;
    c_redis_report(events);
}

static void c_redis_del_read(void *privdata) {
    c_redis_events *events = (c_redis_events *)privdata;
    if (!events->want_read) return;
    events->want_read = 0;
    c_redis_report(events);
}

static void c_redis_add_write(void *privdata) {
    c_redis_events *events = (c_redis_events *)privdata;
    if (events->want_write) return;
    events->want_write = 1;
    c_redis_report(events);
}

static void c_redis_del_write(void *privdata) {
    c_redis_events *events = (c_redis_events *)privdata;
    if (!events->want_write) return;
    events->want_write = 0;
    c_redis_report(events);
}

static void c_redis_cleanup(void *privdata) {
    c_redis_events *events = (c_redis_events *)privdata;
    redisAsyncContext *context = events->context;
    /* No hook may reach the freed state after this (hiredis checks each hook for NULL). */
    context->ev.addRead = NULL;
    context->ev.delRead = NULL;
    context->ev.addWrite = NULL;
    context->ev.delWrite = NULL;
    context->ev.cleanup = NULL;
    context->ev.data = NULL;
    events->cleanup(events->owner);
    free(events);
}

int c_redis_attach(redisAsyncContext *context, void *owner, c_redis_interest_callback interest,
                   c_redis_cleanup_callback cleanup) {
    if (context->ev.data != NULL || interest == NULL || cleanup == NULL) return REDIS_ERR;
    c_redis_events *events = (c_redis_events *)calloc(1, sizeof(*events));
    if (events == NULL) return REDIS_ERR;
    events->context = context;
    events->owner = owner;
    events->interest = interest;
    events->cleanup = cleanup;
    context->ev.addRead = c_redis_add_read;
    context->ev.delRead = c_redis_del_read;
    context->ev.addWrite = c_redis_add_write;
    context->ev.delWrite = c_redis_del_write;
    context->ev.cleanup = c_redis_cleanup;
    context->ev.data = events;
    return REDIS_OK;
}

int c_redis_is_connected(const redisAsyncContext *context) {
    return (context->c.flags & REDIS_CONNECTED) != 0;
}

int c_redis_fd(const redisAsyncContext *context) {
    return context->c.fd;
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
