#define _GNU_SOURCE
#include "CAmplifyEventLoopShims.h"
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

int c_amplify_membarrier_register(void) {
    return (int)syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
}

int c_amplify_membarrier(void) {
    return (int)syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}
