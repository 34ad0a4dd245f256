#ifndef C_AMPLIFY_EVENT_LOOP_SHIMS_H
#define C_AMPLIFY_EVENT_LOOP_SHIMS_H

/// Registers this process for private expedited memory barriers (membarrier(2)).
/// Returns 0 on success, -1 with errno set where the kernel or a sandbox refuses it.
int c_amplify_membarrier_register(void);

/// Issues a full memory barrier on every running thread of this process (membarrier(2),
/// MEMBARRIER_CMD_PRIVATE_EXPEDITED). Returns 0 on success, -1 with errno set on failure.
int c_amplify_membarrier(void);



/// Names the calling thread (pthread_setname_np; at most 15 bytes are kept).
void c_amplify_set_thread_name(const char *name);
#endif
