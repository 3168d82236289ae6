/* SPDX-License-Identifier: MIT
 *
 * test_elf_peek.c — the ELF peek (format/elf_peek.h) on real binaries
 * (this program, every shared library it has loaded, a static executable
 * built for the test: build-ids checked against the ones in memory) and on
 * files that lie: not ELF, 32-bit, truncated at every interesting length,
 * headers that disagree, notes whose sizes run off the end, and thousands
 * of random byte flips (run under AddressSanitizer by make check).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/elf_peek.h"
#include "testhelp.h"

static char dir[64];
static uint8_t *self_bytes;
static size_t self_len;

/* The build-id of a loaded object, from its notes in memory. */
struct mem_id {
	const char *want;          /* dlpi_name to find; "" the executable */
	size_t len;
	uint8_t id[ELF_PEEK_BUILD_ID_MAX];
	char path[512];
};

static int find_mem_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mem_id *m = arg;
	(void)size;
	if (strcmp(info->dlpi_name, m->want))
		return 0;
	snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	for (int i = 0; i < info->dlpi_phnum && !m->len; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE)
			m->len = elf_notes_build_id((const uint8_t *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr),
						    info->dlpi_phdr[i].p_memsz, m->id, sizeof(m->id));
	return 1;
}

static int peek_path(const char *path, struct elf_peek *p)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = elf_peek_fd(fd, NULL, p);
	close(fd);
	return rc;
}

static int peek_bytes(const void *buf, size_t len, struct elf_peek *p)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/bytes", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	int rc = elf_peek_fd(fd, NULL, p);
	close(fd);
	return rc;
}

static void this_program(void)
{
	struct elf_peek p;
	struct mem_id m = { .want = "" };

	CHECK(peek_path("/proc/self/exe", &p) == 0);
	CHECK(p.elf_class == ELFCLASS64 && p.has_interp && !elf_peek_is_static(&p));
	CHECK(p.machine == EM_X86_64 && !strcmp(p.interp, "/lib64/ld-linux-x86-64.so.2"));
	CHECK(p.type == ET_DYN || p.type == ET_EXEC);
	dl_iterate_phdr(find_mem_id, &m);
	CHECKF(m.len > 0, "no build-id in memory");
	CHECK(p.build_id_len == m.len && !memcmp(p.build_id, m.id, m.len));
}

static int each_library(struct dl_phdr_info *info, size_t size, void *arg)
{
	int *checked = arg;
	struct mem_id m = { .want = info->dlpi_name };
	struct elf_peek p;
	(void)size;

	if (info->dlpi_name[0] != '/')
		return 0;               /* the executable, the vDSO */
	find_mem_id(info, size, &m);
	CHECKF(peek_path(info->dlpi_name, &p) == 0, "%s", info->dlpi_name);
	CHECKF(p.type == ET_DYN, "%s: type %d", info->dlpi_name, p.type);
	CHECKF(p.build_id_len == m.len && !memcmp(p.build_id, m.id, m.len), "%s", info->dlpi_name);
	(*checked)++;
	return 0;
}

static void loaded_libraries(void)
{
	int checked = 0;

	dl_iterate_phdr(each_library, &checked);
	CHECKF(checked >= 3, "%d libraries", checked);    /* libc, libelf, libdw at least */
}

static void static_executable(void)
{
	char cmd[512], src[128], exe[128];
	struct elf_peek p;

	snprintf(src, sizeof(src), "%s/st.c", dir);
	snprintf(exe, sizeof(exe), "%s/st", dir);
	FILE *f = fopen(src, "w");
	if (!f)
		abort();
	fputs("int main(void) { return 0; }\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -static -o %s %s 2>/dev/null", exe, src);
	if (system(cmd) != 0)
		SKIP("cc -static failed (libc6-dev's libc.a?)");
	CHECK(peek_path(exe, &p) == 0);
	CHECK(p.elf_class == ELFCLASS64 && !p.has_interp && elf_peek_is_static(&p));
	CHECK(p.build_id_len > 0 && p.interp[0] == 0);
}

static void not_elf_and_32_bit(void)
{
	struct elf_peek p;
	Elf32_Ehdr e32;

	CHECK(peek_bytes("", 0, &p) == -ENOEXEC && p.elf_class == 0);
	CHECK(peek_bytes("#!/bin/sh\necho hi\n", 18, &p) == -ENOEXEC && p.elf_class == 0);
	CHECK(peek_bytes("\177ELF", 4, &p) == -ENOEXEC && p.elf_class == 0);
	memset(&e32, 0, sizeof(e32));
	memcpy(e32.e_ident, ELFMAG, SELFMAG);
	e32.e_ident[EI_CLASS] = ELFCLASS32;
	e32.e_machine = EM_386;
	CHECK(peek_bytes(&e32, sizeof(e32), &p) == -ENOEXEC && p.elf_class == ELFCLASS32 &&
	      p.machine == EM_386);
	e32.e_ident[EI_CLASS] = 7;
	CHECK(peek_bytes(&e32, sizeof(e32), &p) == -ENOEXEC && p.elf_class == 0);
}

static void truncated(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self_bytes;
	size_t end_ph = eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
	size_t cuts[] = { 1, 4, 16, EI_NIDENT, sizeof(Elf64_Ehdr) - 1, sizeof(Elf64_Ehdr),
			  eh->e_phoff + 1, end_ph - sizeof(Elf64_Phdr) - 1, end_ph - 1, end_ph,
			  end_ph + 1, 4096 };
	struct elf_peek p;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t len = cuts[i];
		int rc = peek_bytes(self_bytes, len, &p);
		if (len < offsetof(Elf64_Ehdr, e_version))     /* ident, type, machine */
			CHECKF(rc == -ENOEXEC, "cut at %zu: %d", len, rc);
		else if (len < end_ph)
			CHECKF(rc == -EINVAL, "cut at %zu: %d", len, rc);
		else
			CHECKF(rc == 0 && p.has_interp && p.nphdrs == eh->e_phnum, "cut at %zu: %d", len, rc);
	}
}

static void headers_that_disagree(void)
{
	uint8_t *b = malloc(self_len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	struct elf_peek p;

	memcpy(b, self_bytes, self_len);
	eh->e_phentsize = 32;
	CHECK(peek_bytes(b, self_len, &p) == -EINVAL);
	memcpy(b, self_bytes, self_len);
	eh->e_phnum = ELF_PEEK_MAX_PHDRS + 1;
	CHECK(peek_bytes(b, self_len, &p) == -EINVAL);
	memcpy(b, self_bytes, self_len);
	eh->e_phoff = 0xffffffffffff0000ull;
	CHECK(peek_bytes(b, self_len, &p) == -EINVAL);
	memcpy(b, self_bytes, self_len);
	eh->e_phoff = self_len - 8;
	CHECK(peek_bytes(b, self_len, &p) == -EINVAL);
	/* Notes that lie: offsets beyond the file, sizes running off the end. */
	memcpy(b, self_bytes, self_len);
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + eh->e_phoff);
	int notes = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_NOTE) {
			ph[i].p_offset = self_len + 100;
			notes++;
		}
	CHECK(notes > 0);
	CHECK(peek_bytes(b, self_len, &p) == 0 && p.build_id_len == 0 && p.has_interp);
	memcpy(b, self_bytes, self_len);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_NOTE) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(b + ph[i].p_offset);
			nh->n_namesz = 0xfffffff0u;
		}
	CHECK(peek_bytes(b, self_len, &p) == 0 && p.build_id_len == 0);
	free(b);
}

static void notes_in_memory(void)
{
	uint8_t buf[64], id[8];
	Elf64_Nhdr nh = { 4, 20, NT_GNU_BUILD_ID };

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + 12, "GNU", 4);
	for (int i = 0; i < 20; i++)
		buf[16 + i] = (uint8_t)(i + 1);
	CHECK(elf_notes_build_id(buf, 36, id, sizeof(id)) == 20 && id[0] == 1 && id[7] == 8);
	CHECK(elf_notes_build_id(buf, 35, id, sizeof(id)) == 0);     /* cut */
	CHECK(elf_notes_build_id(buf, 11, id, sizeof(id)) == 0);
	CHECK(elf_notes_build_id(buf, 0, id, sizeof(id)) == 0);
	nh.n_descsz = 0xffffffffu;
	memcpy(buf, &nh, sizeof(nh));
	CHECK(elf_notes_build_id(buf, sizeof(buf), id, sizeof(id)) == 0);
}

static void random_flips(void)
{
	size_t len = self_len < 8192 ? self_len : 8192;
	uint8_t *b = malloc(len);
	uint64_t x = 0x2545f4914f6cdd1dull;
	struct elf_peek p;
	int ok = 0;

	for (int round = 0; round < 3000; round++) {
		memcpy(b, self_bytes, len);
		for (int k = 0; k < 1 + round % 8; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			b[(x >> 16) % (round % 2 ? 64 + 16 * 56 : len)] ^= (uint8_t)(1u << (x % 8));
		}
		int rc = peek_bytes(b, len, &p);
		CHECKF(rc == 0 || rc == -EINVAL || rc == -ENOEXEC, "round %d: %d", round, rc);
		CHECK(p.nphdrs <= ELF_PEEK_MAX_PHDRS && p.build_id_len <= ELF_PEEK_BUILD_ID_MAX &&
		      memchr(p.interp, 0, sizeof(p.interp)));
		ok += rc == 0;
		if (th_case_failed)
			break;
	}
	CHECKF(ok > 100, "%d peeks succeeded", ok);
	free(b);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-elf.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return 1;
	self_len = (size_t)st.st_size;
	self_bytes = malloc(self_len);
	if (!self_bytes || read(fd, self_bytes, self_len) != (ssize_t)self_len)
		return 1;
	close(fd);

	RUN(this_program);
	RUN(loaded_libraries);
	RUN(static_executable);
	RUN(not_elf_and_32_bit);
	RUN(truncated);
	RUN(headers_that_disagree);
	RUN(notes_in_memory);
	RUN(random_flips);

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	free(self_bytes);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
