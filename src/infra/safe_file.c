#ifdef __linux__
#define _GNU_SOURCE /* O_TMPFILE */
#endif
#define _POSIX_C_SOURCE 200809L
#include "infra/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SAFE_PATH_MAX 8192

int safe_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

const char *safe_kind(unsigned mode)
{
    if (S_ISREG(mode))
        return "a file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a named pipe";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a file";
}

const char *safe_special(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
        return NULL;
    if (!S_ISLNK(st.st_mode))
        return safe_kind(st.st_mode);
    /* A link is replaced by name (--force) or refused like any existing
     * name; one to a directory or device is named for what it points to. */
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return NULL;
    return safe_kind(st.st_mode);
}

static void note_failed(char *failed, size_t failed_len, const char *path)
{
    if (failed && failed_len)
        snprintf(failed, failed_len, "%s", path);
}

int safe_mkdirs(const char *dir, char *failed, size_t failed_len)
{
    char path[SAFE_PATH_MAX];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof(path)) {
        note_failed(failed, failed_len, dir);
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(path, dir, len + 1);
    /* Each prefix ending before a '/', then the whole path. */
    for (size_t i = 1; i <= len; i++) {
        if (i < len && path[i] != '/')
            continue;
        if (path[i - 1] == '/')
            continue; /* "a//b" or a trailing '/' */
        char keep = path[i];
        path[i] = '\0';
        struct stat st;
        if (mkdir(path, 0777) != 0) {
            int err = errno;
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
                /* Name the real cause: a file in the way is ENOTDIR. */
                errno = (err == EEXIST) ? ENOTDIR : err;
                note_failed(failed, failed_len, path);
                return -1;
            }
        }
        path[i] = keep;
    }
    return 0;
}

int safe_dir_probe(const char *dir)
{
    char probe[SAFE_PATH_MAX];
    if (snprintf(probe, sizeof(probe), "%s/.gpcnet-write-test-XXXXXX", dir) >=
        (int)sizeof(probe)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(probe);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(probe);
    return 0;
}

/* Linux: a file with no name, in the directory of `path`, until
 * safe_tmp_commit links it in whole. A process killed while writing (a
 * launcher's SIGKILL a second after its SIGTERM, on a loaded node) then
 * leaves nothing behind; with a named temporary it left one. -1 where the
 * file system or the kernel has no unnamed files, or no /proc to link
 * one in by. */
static int unnamed_beside(const char *path, mode_t mode)
{
#ifdef O_TMPFILE
    char dir[SAFE_PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 0;
    if (len >= sizeof(dir) || access("/proc/self/fd", X_OK) != 0)
        return -1;
    if (slash && len == 0)
        len = 1; /* "/name" */
    memcpy(dir, slash ? path : ".", slash ? len : 1);
    dir[slash ? len : 1] = '\0';
    return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#else
    (void)path;
    (void)mode;
    return -1;
#endif
}

FILE *safe_tmp_open(const char *path, char *tmp, size_t tmp_len)
{
    if (snprintf(tmp, tmp_len, "%s.XXXXXX", path) >= (int)tmp_len) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    /* Results are for everyone to read, as a plain fopen would leave them. */
    mode_t mask = umask(0);
    umask(mask);
    int fd = unnamed_beside(path, 0666 & ~mask);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        if (f) {
            tmp[0] = '\0'; /* no name: safe_tmp_commit links it in */
            return f;
        }
        close(fd);
    }
    /* mkstemp opens with O_CREAT|O_EXCL: never an existing name. */
    fd = mkstemp(tmp);
    if (fd < 0)
        return NULL;
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
    }
    return f;
}

/* Give the unnamed file of `f` the name `path`: linkat refuses an
 * existing name (a planted link included) atomically. To replace, it gets
 * a fresh random name beside `path` first, then rename() puts it in place:
 * that name lives between two system calls, not while the file is written. */
static int link_unnamed(FILE *f, const char *path, int replace)
{
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(f));
    if (!replace)
        return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
    char name[SAFE_PATH_MAX + 16];
    static unsigned long count;
    for (int tries = 0; tries < 64; tries++) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned long r = ((unsigned long)now.tv_nsec ^ ((unsigned long)getpid() << 12)) + ++count * 2654435761UL;
        if (snprintf(name, sizeof(name), "%s.%06lx", path, r & 0xffffffUL) >= (int)sizeof(name)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) {
            if (rename(name, path) == 0)
                return 0;
            int err = errno;
            unlink(name);
            errno = err;
            return -1;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static int commit_unnamed(FILE *f, const char *path, int replace)
{
    int bad = fflush(f) != 0 || ferror(f);
    int err = bad ? EIO : 0;
    if (!bad && link_unnamed(f, path, replace) != 0) {
        bad = 1;
        err = errno;
    }
    /* Closed after the link: the data went out with the fflush above. */
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        errno = err;
        return -1;
    }
    return 0;
}

static int put_in_place(const char *tmp, const char *path, int replace)
{
    if (replace)
        return rename(tmp, path);
    /* link() refuses an existing name atomically. Some file systems have
     * no hard links: there, check and rename (a narrow race, no more). */
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno == EEXIST)
        return -1;
    if (safe_exists(path)) {
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, path);
}

int safe_tmp_commit(FILE *f, const char *tmp, const char *path, int replace)
{
    if (!tmp[0])
        return commit_unnamed(f, path, replace);
    int bad = ferror(f);
    int err = bad ? EIO : 0;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && put_in_place(tmp, path, replace) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}

int safe_open_regular(const char *path, int flags)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* swapped in after the lstat */
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}
