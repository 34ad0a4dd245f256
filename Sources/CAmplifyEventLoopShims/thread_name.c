#define _GNU_SOURCE
#include "CAmplifyEventLoopShims.h"
#include <pthread.h>

void c_amplify_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
