// The C floor for the Hub benchmark: what a libuv hub costs at its simplest.
#include "CHubFloorBenchmark.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

typedef struct {
    uint64_t sequence;
    uint64_t stamp_ns;
    int producer;
} floor_event;

typedef struct floor_listener_state {
    uint64_t calls;
    uint64_t last[2];
    uint64_t reordered;
    uint64_t *latencies;
    int latency_count;
} floor_listener_state;

typedef void (*floor_listener_fn)(floor_listener_state *state, const floor_event *event);

typedef struct {
    uv_loop_t loop;
    uv_async_t async;
    pthread_mutex_t lock;
    floor_event *queue;
    size_t count;
    size_t capacity;
    floor_event *spare;
    size_t spare_capacity;
    int wakeup_pending;
    int listener_count;
    floor_listener_fn *functions;
    floor_listener_state *states;
    uint64_t expected;
    uint64_t delivered;
    _Atomic uint64_t dispatched;
    uint64_t peak_in_flight;
    uint64_t finished_ns;
} floor_hub;

uint64_t c_floor_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

uint64_t c_floor_heap_bytes(void) {
    return (uint64_t)mallinfo2().uordblks;
}

// Every listener counts; the first also checks each producer's order (as in the Swift candidates).
static void count_listener(floor_listener_state *state, const floor_event *event) {
    (void)event;
    state->calls++;
}

static void order_listener(floor_listener_state *state, const floor_event *event) {
    state->calls++;
    uint64_t next = event->sequence + 1;
    if (next < state->last[event->producer]) state->reordered++;
    state->last[event->producer] = next;
}

static void latency_listener(floor_listener_state *state, const floor_event *event) {
    uint64_t now = c_floor_now_ns();
    if (state->latency_count < (int)state->calls + 1) return;
    state->latencies[state->calls++] = now - event->stamp_ns;
}

static void on_async(uv_async_t *handle) {
    floor_hub *hub = handle->data;
    pthread_mutex_lock(&hub->lock);
    floor_event *batch = hub->queue;
    size_t count = hub->count;
    size_t capacity = hub->capacity;
    hub->queue = hub->spare;
    hub->capacity = hub->spare_capacity;
    hub->count = 0;
    hub->wakeup_pending = 0;
    pthread_mutex_unlock(&hub->lock);
    uint64_t in_flight = atomic_load_explicit(&hub->dispatched, memory_order_relaxed) - hub->delivered;
    if (in_flight > hub->peak_in_flight) hub->peak_in_flight = in_flight;
    for (size_t i = 0; i < count; i++) {
        for (int l = 0; l < hub->listener_count; l++) hub->functions[l](&hub->states[l], &batch[i]);
    }
    hub->delivered += count;
    hub->spare = batch;
    hub->spare_capacity = capacity;
    if (hub->delivered >= hub->expected) {
        hub->finished_ns = c_floor_now_ns();
        uv_close((uv_handle_t *)&hub->async, NULL);
    }
}

static void dispatch(floor_hub *hub, floor_event event) {
    int wake = 0;
    pthread_mutex_lock(&hub->lock);
    if (hub->count == hub->capacity) {
        hub->capacity = hub->capacity ? hub->capacity * 2 : 1024;
        hub->queue = realloc(hub->queue, hub->capacity * sizeof(floor_event));
    }
    hub->queue[hub->count++] = event;
    if (!hub->wakeup_pending) {
        hub->wakeup_pending = 1;
        wake = 1;
    }
    pthread_mutex_unlock(&hub->lock);
    atomic_fetch_add_explicit(&hub->dispatched, 1, memory_order_relaxed);
    if (wake) uv_async_send(&hub->async);
}

typedef struct {
    floor_hub *hub;
    int producer;
    uint64_t events;
    uint64_t interval_ns;
} producer_args;

static void *produce(void *argument) {
    producer_args *args = argument;
    uint64_t next = c_floor_now_ns();
    for (uint64_t i = 0; i < args->events; i++) {
        if (args->interval_ns) {
            next += args->interval_ns;
            uint64_t now = c_floor_now_ns();
            if (next > now) {
                struct timespec pause = {.tv_sec = (time_t)((next - now) / 1000000000ull), .tv_nsec = (long)((next - now) % 1000000000ull)};
                nanosleep(&pause, NULL);
            }
        }
        floor_event event = {.sequence = i, .stamp_ns = c_floor_now_ns(), .producer = args->producer};
        dispatch(args->hub, event);
    }
    return NULL;
}

static void *run_loop(void *argument) {
    floor_hub *hub = argument;
    uv_run(&hub->loop, UV_RUN_DEFAULT);
    return NULL;
}

static floor_hub *hub_create(int listeners, floor_listener_fn function, uint64_t expected) {
    floor_hub *hub = calloc(1, sizeof(floor_hub));
    uv_loop_init(&hub->loop);
    uv_async_init(&hub->loop, &hub->async, on_async);
    hub->async.data = hub;
    pthread_mutex_init(&hub->lock, NULL);
    hub->listener_count = listeners;
    hub->functions = calloc((size_t)listeners, sizeof(floor_listener_fn));
    hub->states = calloc((size_t)listeners, sizeof(floor_listener_state));
    for (int l = 0; l < listeners; l++) hub->functions[l] = function;
    if (listeners > 0 && function == count_listener) hub->functions[0] = order_listener;
    hub->expected = expected;
    return hub;
}

static void hub_destroy(floor_hub *hub) {
    uv_loop_close(&hub->loop);
    pthread_mutex_destroy(&hub->lock);
    free(hub->queue);
    free(hub->spare);
    free(hub->functions);
    free(hub->states);
    free(hub);
}

static uint64_t run(floor_hub *hub, int producers, uint64_t events, uint64_t interval_ns, uint64_t *started_ns) {
    pthread_t loop_thread;
    pthread_create(&loop_thread, NULL, run_loop, hub);
    pthread_t threads[2];
    producer_args args[2];
    *started_ns = c_floor_now_ns();
    for (int p = 0; p < producers; p++) {
        args[p] = (producer_args){.hub = hub, .producer = p, .events = events, .interval_ns = interval_ns};
        pthread_create(&threads[p], NULL, produce, &args[p]);
    }
    for (int p = 0; p < producers; p++) pthread_join(threads[p], NULL);
    pthread_join(loop_thread, NULL);
    return hub->finished_ns;
}

c_floor_throughput_result c_floor_throughput(int producers, int listeners, uint64_t events_per_producer) {
    if (producers > 2) producers = 2;
    floor_hub *hub = hub_create(listeners, count_listener, events_per_producer * (uint64_t)producers);
    uint64_t started;
    uint64_t finished = run(hub, producers, events_per_producer, 0, &started);
    c_floor_throughput_result result = {.seconds = (double)(finished - started) / 1e9, .peak_in_flight = hub->peak_in_flight};
    for (int l = 0; l < listeners; l++) {
        result.deliveries += hub->states[l].calls;
        result.reordered += hub->states[l].reordered;
    }
    hub_destroy(hub);
    return result;
}

int c_floor_latency(int samples, uint64_t interval_ns, uint64_t *latencies_ns) {
    floor_hub *hub = hub_create(1, latency_listener, (uint64_t)samples);
    hub->states[0].latencies = latencies_ns;
    hub->states[0].latency_count = samples;
    uint64_t started;
    run(hub, 1, (uint64_t)samples, interval_ns, &started);
    int ok = hub->states[0].calls == (uint64_t)samples ? 0 : -1;
    hub_destroy(hub);
    return ok;
}

static uint64_t heap_bytes_of_hub(int listeners) {
    struct mallinfo2 before = mallinfo2();
    floor_hub *hub = hub_create(listeners, count_listener, 0);
    struct mallinfo2 after = mallinfo2();
    uv_close((uv_handle_t *)&hub->async, NULL);
    uv_run(&hub->loop, UV_RUN_DEFAULT);
    hub_destroy(hub);
    return (uint64_t)(after.uordblks - before.uordblks);
}

uint64_t c_floor_bytes_per_listener(int listeners) {
    uint64_t empty = heap_bytes_of_hub(0);
    uint64_t full = heap_bytes_of_hub(listeners);
    return (full - empty) / (uint64_t)listeners;
}
