/* Every file the programs write goes through here.
 *
 * The programs run as root in output directories that other users may be
 * able to write to, so a name in that directory can be a link planted by
 * someone else. Nothing here ever opens an existing name for writing: a
 * file is created fresh (O_CREAT|O_EXCL, which fails on any existing name,
 * a link included, dangling or not) and then put in place by link() (which
 * refuses an existing name) or rename() (which replaces the name itself,
 * never what a link there points to). An existing file is replaced only
 * when the caller says so (--force, or a file this run wrote itself).
 * A named pipe, device or directory at a name is never opened (a pipe
 * nobody reads would block the opener for ever): the only existing name
 * opened at all is the results file of the run, by safe_open_regular,
 * which checks it is a regular file.
 *
 * Pure POSIX, no MPI. */
#ifndef GPCNET_SAFE_FILE_H
#define GPCNET_SAFE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Create `dir` and any missing parents (mode 0777 less the umask), as
 * `mkdir -p` does. 0, or -1 with errno set and, in `failed` (may be NULL,
 * `failed_len` bytes), the component that could not be made. */
int safe_mkdirs(const char *dir, char *failed, size_t failed_len);

/* Can files be created in `dir`? Creates and removes a fresh file with a
 * random name. 0, or -1 with errno set. */
int safe_dir_probe(const char *dir);

/* A new, empty temporary file beside `path` (same directory, so that the
 * later rename is atomic). On Linux it has no name until safe_tmp_commit
 * (O_TMPFILE; tmp is then ""), so a process killed while writing leaves
 * nothing; elsewhere it is named `path` + "." + a random suffix, which goes
 * to tmp (tmp_len bytes). Returns the stream, or NULL with errno set. */
FILE *safe_tmp_open(const char *path, char *tmp, size_t tmp_len);

/* Close the stream of safe_tmp_open and put the file in place of `path`.
 * replace = 0: refuse (EEXIST) when `path` exists in any form; replace = 1:
 * replace whatever name is at `path` (never writing through it). On any
 * failure the temporary is removed and -1 returned with errno set (an
 * unnamed one goes with the stream). */
int safe_tmp_commit(FILE *f, const char *tmp, const char *path, int replace);

/* Does anything (a file, a directory, a link, dangling or not) have this
 * name? */
int safe_exists(const char *path);

/* What a stat mode is, in words: "a named pipe", "a directory", ... */
const char *safe_kind(unsigned mode);

/* Is something other than a regular file at `path` (a named pipe, a
 * device, a socket, a directory, or a link to one of these)? Its kind in
 * words, or NULL for a regular file, a link to one, a dangling link or
 * nothing. Nothing is opened: a pipe nobody reads would block the opener,
 * and writing into one someone planted would hand them the data. */
const char *safe_special(const char *path);

/* An existing regular file opened with `flags` (O_RDONLY, O_RDWR), never
 * waiting and never through a link: lstat first, so that a pipe or device
 * is not even opened, then O_NONBLOCK|O_NOFOLLOW and fstat, for one put
 * there in between. The descriptor, or -1 with errno (EINVAL: something
 * other than a regular file is there). Async-signal-safe (the watchdog's
 * handlers use it). */
int safe_open_regular(const char *path, int flags);

#endif
