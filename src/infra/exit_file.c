#define _POSIX_C_SOURCE 200809L
#include "infra/exit_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Static storage: a handler may read it at any moment after arming. */
static char exit_path[8192];
static volatile sig_atomic_t armed, created, registered;

static void at_exit(void) { (void)exit_file_create(); }

void exit_file_arm(const char *path)
{
    armed = 0; /* a handler between these lines sees nothing half-copied */
    snprintf(exit_path, sizeof(exit_path), "%s", path);
    created = 0;
    armed = exit_path[0] != '\0';
    if (armed && !registered) {
        atexit(at_exit);
        registered = 1;
    }
}

int exit_file_create(void)
{
    if (!armed || created)
        return 0;
    created = 1; /* once, even when a handler interrupts the write below */
    int fd = open(exit_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0644);
    if (fd < 0)
        return -1;
    /* A word for whoever looks at it; the other job only needs the name. */
    static const char word[] = "gpcnet: stop\n";
    (void)!write(fd, word, sizeof(word) - 1);
    close(fd);
    return 0;
}
