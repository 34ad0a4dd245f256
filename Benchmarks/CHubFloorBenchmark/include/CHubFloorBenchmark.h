#ifndef C_HUB_FLOOR_BENCHMARK_H
#define C_HUB_FLOOR_BENCHMARK_H

#include <stdint.h>

/// Results of one throughput run of the C floor.
typedef struct {
    double seconds;              ///< from the first dispatch to the last delivery
    uint64_t deliveries;         ///< listener calls made
    uint64_t reordered;          ///< deliveries that came before an earlier event of the same producer
    uint64_t peak_in_flight;     ///< most events dispatched but not yet delivered, seen by the loop
} c_floor_throughput_result;

/// The practical limit of a libuv hub: producers push into a mutex-protected queue and call
/// uv_async_send; the loop drains the whole queue per wake-up and calls `listeners` C function
/// pointers per event. `producers` threads each dispatch `events_per_producer` events.
c_floor_throughput_result c_floor_throughput(int producers, int listeners, uint64_t events_per_producer);

/// Dispatch-to-listener latency at a paced light load: one producer dispatches `samples` events,
/// one every `interval_ns`, each stamped with CLOCK_MONOTONIC; one listener records now - stamp
/// into `latencies_ns`. Returns 0 on success.
int c_floor_latency(int samples, uint64_t interval_ns, uint64_t *latencies_ns);

/// Heap bytes one registered listener costs the C floor (a function pointer and its context).
uint64_t c_floor_bytes_per_listener(int listeners);

/// Heap bytes in use, from glibc's allocator (mallinfo2).
uint64_t c_floor_heap_bytes(void);

/// CLOCK_MONOTONIC in nanoseconds (the clock every benchmark in the run uses).
uint64_t c_floor_now_ns(void);

#endif
