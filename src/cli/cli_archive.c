/* SPDX-License-Identifier: MIT
 *
 * cli_archive.c — after a run, keep what the analysis needs if binaries
 * change or vanish: a copy of each load object the experiment mapped, named
 * by its build-id in the founder's archive/ directory (where the symbolizer
 * looks when a file is missing or its build-id differs, see sym.h).
 *
 * Always a copy of its own, never a hard link: a link shares the inode, so
 * `truncate prog` or `cp new-build prog` (which rewrites the file in place)
 * would change the old experiment too.  A copy-on-write clone (FICLONE) where
 * the file system offers one (btrfs, XFS: no space until either side
 * changes), else an in-kernel copy (copy_file_range), else read and write.
 * The copy is written under a temporary name and renamed when complete (a
 * full disk never leaves half an object under a build-id), and is read-only:
 * the original's read bits (a private 0700 program gives 0400, never 0444),
 * less the umask.  System libraries (/usr, /lib*) are left out: they are identified
 * by build-id, have debug packages, and would cost megabytes per experiment;
 * tally's own libraries and the vDSO (archived by the collector) too.  An
 * object whose file no longer has the recorded build-id is not archived (it
 * changed during the run): a warning says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/elf_peek.h"
#include "format/exp_launch.h"
#include "format/exp_read.h"

/* Is the file open as `fd` the one mapped: the same build-id, as far as
 * the map record kept it (EXP_BUILD_ID_MAX bytes)? */
static bool same_build_id(int fd, const uint8_t *id, size_t len)
{
	struct elf_peek p;

	if (elf_peek_fd(fd, NULL, &p) != 0)
		return false;
	size_t n = p.build_id_len < EXP_BUILD_ID_MAX ? p.build_id_len : EXP_BUILD_ID_MAX;
	return n == len && !memcmp(p.build_id, id, n);
}

static bool system_path(const char *p)
{
	return !strncmp(p, "/usr/", 5) || !strncmp(p, "/lib", 4) || !strncmp(p, "/opt/", 5) ||
	       !strncmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, "libtally", 8);
}

/* Copy the whole file `from` into the new file `to`: a clone where the file
 * system can, else copy_file_range, else read/write.  Returns 0, or -1 with
 * errno (`to` removed). */
static int copy_file(int from, const char *to)
{
	struct stat st;

	if (fstat(from, &st) != 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 0444);
	if (out < 0)
		return -1;
	int rc = 0;
	if (ioctl(out, FICLONE, from) != 0) {
		off_t in_off = 0;
		while (rc == 0 && in_off < st.st_size) {
			ssize_t n = copy_file_range(from, &in_off, out, NULL, (size_t)(st.st_size - in_off), 0);
			if (n > 0)
				continue;
			if (n == 0 || (errno != EXDEV && errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL))
				rc = -1;
			else
				break;              /* not here: plain reads and writes */
		}
		char buf[65536];
		while (rc == 0 && in_off < st.st_size) {
			ssize_t n = pread(from, buf, sizeof(buf), in_off);
			if (n <= 0 || write(out, buf, (size_t)n) != n)
				rc = -1;
			else
				in_off += n;
		}
		if (rc == 0 && in_off != st.st_size)
			rc = -1;
	}
	int e = errno;
	if (close(out) != 0 && rc == 0) {
		e = errno;
		rc = -1;
	}
	if (rc) {
		unlink(to);
		errno = e ? e : EIO;
	}
	return rc;
}

/* True if `name` was seen before (one warning per object, however many
 * processes mapped it). */
static bool once(const char *name)
{
	static char seen[64][PATH_MAX / 16];
	static unsigned nseen;
	const char *id = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	for (unsigned i = 0; i < nseen && i < 64; i++)
		if (!strcmp(seen[i], id))
			return true;
	if (nseen < 64)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", id);
	return false;
}

/* Archive the objects named by the MAP records of one maps.dat. */
static void archive_maps(const char *maps, const char *archive)
{
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;

	if (exp_file_open(&f, maps, EXP_FILE_MAPS, &err) != 0)
		return;
	while (exp_file_next(&f, &r, &err) > 0) {
		struct exp_map m;
		if (r.type != EXP_REC_MAP || r.len < sizeof(m) + 8 ||
		    !memchr((const char *)r.p + sizeof(m), 0, r.len - sizeof(m)))
			continue;
		memcpy(&m, r.p, sizeof(m));
		const char *path = (const char *)r.p + sizeof(m);
		if (!m.build_id_len || m.build_id_len > EXP_BUILD_ID_MAX || path[0] != '/' ||
		    system_path(path))
			continue;
		char to[PATH_MAX], hex[2 * EXP_BUILD_ID_MAX + 1];
		exp_build_id_hex(m.build_id, m.build_id_len, hex);
		snprintf(to, sizeof(to), "%s/%s", archive, hex);
		if (access(to, F_OK) == 0)
			continue;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (!once(to))
				cli_warn("record", "%s: not archived: %s", path, strerror(errno));
			continue;
		}
		if (!same_build_id(fd, m.build_id, m.build_id_len)) {
			if (!once(to))
				cli_warn("record", "%s changed during the run (its build-id differs): not "
					 "archived, the report may name its functions wrongly", path);
		} else {
			char tmp[PATH_MAX + 16];
			snprintf(tmp, sizeof(tmp), "%s.part", to);
			mkdir(archive, 0755);
			unlink(tmp);
			if (copy_file(fd, tmp) != 0 || rename(tmp, to) != 0) {
				int e = errno;
				unlink(tmp);
				if (!once(to))
					cli_warn("record", "%s: not archived in %s: %s", path, archive, strerror(e));
			}
		}
		close(fd);
	}
	exp_file_close(&f);
}

void cli_archive(const char *expdir)
{
	char archive[PATH_MAX], maps[PATH_MAX + 64];
	DIR *d = opendir(expdir);
	struct dirent *de;

	snprintf(archive, sizeof(archive), "%s/%s", expdir, EXP_ARCHIVE_DIR);
	snprintf(maps, sizeof(maps), "%s/%s", expdir, exp_file_name(EXP_FILE_MAPS));
	archive_maps(maps, archive);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] != '_' || n < 5 || strcmp(de->d_name + n - 4, ".exp"))
			continue;
		snprintf(maps, sizeof(maps), "%s/%s/%s", expdir, de->d_name, exp_file_name(EXP_FILE_MAPS));
		archive_maps(maps, archive);
	}
	if (d)
		closedir(d);
}
