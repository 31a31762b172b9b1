/* Files are created fresh and put in place without writing through a
 * planted link, and an existing file is replaced only when asked. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "infra/safe_file.h"

static char dir[256];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void write_plain(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static int file_is(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strcmp(buf, text) == 0;
}

static int entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

static int write_new(const char *path, const char *text, int replace)
{
    char tmp[512];
    FILE *f = safe_tmp_open(path, tmp, sizeof(tmp));
    if (!f)
        return -1;
    fputs(text, f);
    return safe_tmp_commit(f, tmp, path, replace);
}

static void link_at_target(void)
{
    char victim[300], target[300];
    path_in(victim, sizeof(victim), "victim");
    path_in(target, sizeof(target), "out.json");
    write_plain(victim, "precious\n");
    CHECK(symlink(victim, target) == 0);
    int before = entries();

    /* No --force: refused, victim and link untouched, no temporary left. */
    errno = 0;
    CHECK(write_new(target, "{}\n", 0) == -1);
    CHECK(errno == EEXIST);
    CHECK(file_is(victim, "precious\n"));
    CHECK(entries() == before);

    /* --force: the link itself is replaced, the victim still untouched. */
    CHECK(write_new(target, "{\"a\": 1}\n", 1) == 0);
    struct stat st;
    CHECK(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(file_is(target, "{\"a\": 1}\n"));
    CHECK(file_is(victim, "precious\n"));
    CHECK(entries() == before);
    unlink(target);

    /* A dangling link is a name too: refused without --force. */
    char nowhere[300];
    path_in(nowhere, sizeof(nowhere), "nowhere");
    CHECK(symlink(nowhere, target) == 0);
    CHECK(write_new(target, "x", 0) == -1);
    CHECK(!safe_exists(nowhere));
    CHECK(safe_exists(target));
    unlink(target);
    unlink(victim);
}

static void fresh_and_existing(void)
{
    char target[300];
    path_in(target, sizeof(target), "plain.dat");
    CHECK(!safe_exists(target));
    CHECK(write_new(target, "one\n", 0) == 0);
    CHECK(file_is(target, "one\n"));
    CHECK(write_new(target, "two\n", 0) == -1);
    CHECK(file_is(target, "one\n"));
    CHECK(write_new(target, "two\n", 1) == 0);
    CHECK(file_is(target, "two\n"));
    /* The mode is what a plain fopen would give: readable by others. */
    struct stat st;
    mode_t mask = umask(022);
    CHECK(write_new(target, "three\n", 1) == 0);
    umask(mask);
    CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0644);
    unlink(target);

    /* A missing directory: no file, a clear errno. */
    char missing[300];
    path_in(missing, sizeof(missing), "no/such/file");
    char tmp[512];
    errno = 0;
    CHECK(safe_tmp_open(missing, tmp, sizeof(tmp)) == NULL && errno == ENOENT);
}

static void directories(void)
{
    char deep[300], failed[300];
    path_in(deep, sizeof(deep), "a/b//c/");
    CHECK(safe_mkdirs(deep, failed, sizeof(failed)) == 0);
    struct stat st;
    CHECK(stat(deep, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(safe_mkdirs(deep, failed, sizeof(failed)) == 0); /* again: fine */
    CHECK(safe_dir_probe(deep) == 0);
    char c[300];
    path_in(c, sizeof(c), "a/b/c");
    DIR *d = opendir(c);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    CHECK(n == 2); /* the probe left nothing behind */

    /* A file in the way names itself and says ENOTDIR. */
    char file[300], through[300], expect[300];
    path_in(file, sizeof(file), "a/f");
    write_plain(file, "x");
    path_in(through, sizeof(through), "a/f/g/h");
    errno = 0;
    CHECK(safe_mkdirs(through, failed, sizeof(failed)) == -1 && errno == ENOTDIR);
    path_in(expect, sizeof(expect), "a/f");
    CHECK(strcmp(failed, expect) == 0);
    CHECK(safe_mkdirs("", failed, sizeof(failed)) == -1);
    errno = 0;
    CHECK(safe_dir_probe(through) == -1 && errno == ENOTDIR);
    unlink(file);
    rmdir(c);
    path_in(c, sizeof(c), "a/b");
    rmdir(c);
    path_in(c, sizeof(c), "a");
    rmdir(c);
}

/* A pipe, a directory or a link to one is named, never opened: a pipe
 * without a reader would keep an open() waiting (issue 39). */
static void special_files(void)
{
    char pipe[300], sub[300], link_to_pipe[300], plain[300];
    path_in(pipe, sizeof(pipe), "pipe");
    path_in(sub, sizeof(sub), "sub");
    path_in(link_to_pipe, sizeof(link_to_pipe), "to-pipe");
    path_in(plain, sizeof(plain), "plain");
    CHECK(mkfifo(pipe, 0600) == 0 && mkdir(sub, 0700) == 0 && symlink(pipe, link_to_pipe) == 0);
    write_plain(plain, "x");
    CHECK(strcmp(safe_special(pipe) ? safe_special(pipe) : "", "a named pipe") == 0);
    CHECK(strcmp(safe_special(sub) ? safe_special(sub) : "", "a directory") == 0);
    const char *through = safe_special(link_to_pipe);
    CHECK(through && strcmp(through, "a named pipe") == 0);
    CHECK(safe_special(plain) == NULL);
    errno = 0;
    /* Returns at once: no writer is waited for. */
    CHECK(safe_open_regular(pipe, O_RDONLY) == -1 && errno == EINVAL);
    CHECK(safe_open_regular(sub, O_RDONLY) == -1 && errno == EINVAL);
    CHECK(safe_open_regular(link_to_pipe, O_RDWR) == -1);
    int fd = safe_open_regular(plain, O_RDWR);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    unlink(pipe);
    rmdir(sub);
    unlink(link_to_pipe);
    unlink(plain);
}

/* Linux: the file has no name while it is written, so a process killed
 * then (a launcher's SIGKILL) leaves nothing in the directory. */
static void killed_while_writing(void)
{
#ifdef __linux__
    char target[300], tmp[512];
    path_in(target, sizeof(target), "killed.json");
    int before = entries();
    FILE *f = safe_tmp_open(target, tmp, sizeof(tmp));
    CHECK(f != NULL && tmp[0] == '\0');
    if (f) {
        fputs("{}\n", f);
        fflush(f);
        CHECK(entries() == before); /* written, not named */
        CHECK(safe_tmp_commit(f, tmp, target, 0) == 0 && file_is(target, "{}\n"));
        CHECK(entries() == before + 1);
        /* Replacing: the old file is there until the new one is whole. */
        f = safe_tmp_open(target, tmp, sizeof(tmp));
        fputs("{\"new\": 1}\n", f);
        fflush(f);
        CHECK(file_is(target, "{}\n") && entries() == before + 1);
        CHECK(safe_tmp_commit(f, tmp, target, 1) == 0 && file_is(target, "{\"new\": 1}\n"));
        CHECK(entries() == before + 1);
    }
    pid_t pid = fork();
    if (pid == 0) {
        FILE *g = safe_tmp_open(target, tmp, sizeof(tmp));
        if (g) {
            fputs("half", g);
            fflush(g);
        }
        raise(SIGKILL);
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
    CHECK(entries() == before + 1 && file_is(target, "{\"new\": 1}\n"));
    unlink(target);
#endif
}

int main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/gpcnet-safe-file-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    link_at_target();
    fresh_and_existing();
    directories();
    special_files();
    killed_while_writing();
    rmdir(dir);
    return check_report("safe_file");
}
