/* SPDX-License-Identifier: MIT
 *
 * io_flow.c — what a descriptor reads from and writes into (tally record
 * -i), so that the critical path (model_critical_waits.c) can go from a
 * read that waited to the thread whose write ended the wait, whatever
 * carried the bytes: a pipe or a FIFO, a connected unix or IP socket, an
 * eventfd.  One FD_FLOW record per descriptor, written at its first read
 * or write after it was named (io_record.c calls io_flow_note): a channel
 * for its reads (rx) and one for its writes (tx), hashes that two
 * descriptors share when bytes written into one are read from the other.
 *
 *   a pipe, a FIFO   its inode (fstat): rx = tx, the same for both ends
 *   a unix socket    its inode and its peer's (the kernel's sock_diag,
 *                    one netlink request): tx = (own, peer), rx = (peer, own)
 *   a unix datagram  its name if bound (the bytes of an abstract name,
 *   socket           as the kernel matches them; for a path, the socket
 *                    file it names, however spelled: relative or absolute,
 *                    `./x`, through a link; the bound socket's file from
 *                    sock_diag, a sendto's destination from stat at the
 *                    call, in the sender's working directory), else its
 *                    inode: rx = (own), tx = (its peer's, if it is
 *                    connected: several senders may be connected to one
 *                    bound socket; else the name its latest sendto or
 *                    sendmsg sent to, io_flow_dest; 0 before)
 *   an IP socket     its address and its peer's (getsockname, getpeername;
 *                    IPv4 in IPv6 taken as IPv4): tx = (own, peer), rx
 *                    = (peer, own)
 *   an IP datagram   its port: rx = (port), tx = (the port it sends to:
 *   socket           its peer's if connected, else the destination of its
 *                    latest sendto or sendmsg, io_flow_dest; 0 before)
 *   an eventfd       its id (/proc/self/fdinfo, eventfd-id; before Linux
 *                    6.3 the descriptor's number and the record's time)
 *
 * Called in any thread after a traced read or write returned, and from
 * signal handlers (a program may write in one): raw system calls only, no
 * allocation, and a bit per descriptor taken by one atomic or, so that one
 * caller alone looks a descriptor up.  Anything else (a file, a terminal,
 * a lookup the kernel refuses) gets no record and its reads no waker; a
 * stream socket not yet connected, or a datagram socket not yet bound, is
 * looked up again at its next call.  A datagram channel is a port alone:
 * what is sent to that port on another host would be taken for it.  The cost: one bit test per call, and the look-up
 * once per descriptor.
 */
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "tracers/io.h"

#define FLOW_FDS 65536                 /* descriptors whose flow we track */
#define NOT_YET (-2)                   /* flow_of: look again at the next call */

/* Bit fd: fd's flow was looked up since it was last named or closed. */
static _Atomic uint64_t looked[FLOW_FDS / 64];

/* The channel datagram socket fd last sent to by address (a port's, or a
 * unix socket name's; 0: none). */
static _Atomic uint64_t sent_to[FLOW_FDS];
/* ... and the channel of that unix name as spelled (unix_spelled), so that
 * a sendto to the same spelling looks nothing up. */
static _Atomic uint64_t sent_spelled[FLOW_FDS];

void io_flow_forget(int first, int last)
{
	if (first < 0)
		return;
	for (int fd = first; fd <= last && fd < FLOW_FDS; fd++) {
		atomic_store_explicit(&sent_to[fd], 0, memory_order_relaxed);
		atomic_store_explicit(&sent_spelled[fd], 0, memory_order_relaxed);
		if (fd % 64 == 0 && last - fd >= 63) {
			for (int k = 1; k < 64; k++) {
				atomic_store_explicit(&sent_to[fd + k], 0, memory_order_relaxed);
				atomic_store_explicit(&sent_spelled[fd + k], 0, memory_order_relaxed);
			}
			atomic_store_explicit(&looked[fd / 64], 0, memory_order_relaxed);
			fd += 63;
		} else {
			atomic_fetch_and_explicit(&looked[fd / 64], ~(1ull << (fd % 64)), memory_order_relaxed);
		}
	}
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The channel from `from` to `to` (never 0): not the one from `to` to `from`. */
static uint64_t way(uint64_t from, uint64_t to)
{
	return mix(mix(from) + 0x9e3779b97f4a7c15ull * to) | 1;
}

static atomic_flag diag_logged = ATOMIC_FLAG_INIT;

/* The kernel did not say who a unix socket's peer is: say so once. */
static void no_diag(void)
{
	if (!atomic_flag_test_and_set(&diag_logged))
		tally__log("io.flows", "unix sockets' peers not known (no sock_diag for unix sockets "
				       "here): reads of unix sockets have no waker");
}

/* A socket file's identity: its device's numbers and its inode. */
static uint64_t file_id(unsigned maj, unsigned min, uint64_t ino)
{
	return mix(((uint64_t)maj << 32 | min) + 0x9e3779b97f4a7c15ull * ino) | 1;
}

/* What the kernel's sock_diag says of unix socket `ino` (one netlink
 * request): its peer's inode (`peer`, if not NULL; 0: not connected) and,
 * if it is bound to a path, that socket file's identity (`file`, if not
 * NULL; 0: none).  No answer (no sock_diag for unix sockets here: logged
 * once) leaves both 0. */
static void unix_diag(uint32_t ino, uint64_t *peer, uint64_t *file)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req r;
	} req = { .nh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			  .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 },
		  .r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_ino = ino,
			 .udiag_show = (peer ? UDIAG_SHOW_PEER : 0) | (file ? UDIAG_SHOW_VFS : 0),
			 .udiag_cookie = { ~0u, ~0u } } };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr nh;
		char bytes[512];
	} ans;
	long s = syscall(SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (peer)
		*peer = 0;
	if (file)
		*file = 0;
	if (s < 0) {
		no_diag();
		return;
	}
	long n = -1;
	if (syscall(SYS_sendto, s, &req, sizeof(req), 0, &kernel, sizeof(kernel)) == (long)sizeof(req))
		n = syscall(SYS_recvfrom, s, &ans, sizeof(ans), MSG_DONTWAIT, NULL, NULL);
	syscall(SYS_close, s);
	if (n < (long)(NLMSG_HDRLEN + sizeof(struct unix_diag_msg)) || !NLMSG_OK(&ans.nh, (size_t)n) ||
	    ans.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY) {
		no_diag();
		return;
	}
	const struct unix_diag_msg *m = NLMSG_DATA(&ans.nh);
	if (m->udiag_ino != ino)
		return;
	int len = (int)(ans.nh.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (const struct rtattr *a = (const struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (peer && a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= (int)sizeof(uint32_t)) {
			uint32_t v;
			memcpy(&v, RTA_DATA(a), sizeof(v));
			*peer = v;
		}
		if (file && a->rta_type == UNIX_DIAG_VFS && RTA_PAYLOAD(a) >= (int)sizeof(struct unix_diag_vfs)) {
			struct unix_diag_vfs v;
			memcpy(&v, RTA_DATA(a), sizeof(v));
			/* the kernel's device number: major above bit 20 */
			*file = file_id(v.udiag_vfs_dev >> 20, v.udiag_vfs_dev & 0xfffff, v.udiag_vfs_ino);
		}
	}
}

/* The port of an IP socket address (0: none, or not IP). */
static uint16_t inet_port(const struct sockaddr *a, socklen_t len)
{
	if (a && a->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		return ((const struct sockaddr_in *)a)->sin_port;
	if (a && a->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		return ((const struct sockaddr_in6 *)a)->sin6_port;
	return 0;
}

/* The channel of datagrams to `port` (never 0). */
static uint64_t dgram(uint16_t port)
{
	return way(0xd6a, port);
}

/* The bytes of unix socket address a's name (an abstract name's, from
 * its leading 0; a path's up to its end) and their count in *n; NULL: not
 * unix, or unnamed. */
static const char *unix_spelling(const struct sockaddr *a, socklen_t len, size_t *n)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	const size_t most = sizeof(((struct sockaddr_un *)0)->sun_path);

	if (!a || a->sa_family != AF_UNIX || len <= off)
		return NULL;
	const char *p = ((const struct sockaddr_un *)a)->sun_path;
	*n = len - off > most ? most : len - off;
	if (p[0])             /* a path: up to its end */
		*n = strnlen(p, *n);
	return *n ? p : NULL;
}

/* The channel of datagrams to a name as spelled (its bytes hashed), or 0:
 * unnamed, not unix. */
static uint64_t unix_spelled(const struct sockaddr *a, socklen_t len)
{
	size_t n;
	const char *p = unix_spelling(a, len, &n);
	uint64_t h = 0xcbf29ce484222325ull;

	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return way(0xd6c, h);
}

/* The channel of datagrams to the unix socket named by address a: an
 * abstract name by its bytes (the kernel matches them exactly); a path by
 * the socket file it names, whatever the spelling (relative or absolute,
 * `./x`, through a link): `file`, its identity from sock_diag when the
 * socket's inode is known, else the file the path names now, relative to
 * this process's working directory (stat: as the kernel resolves a sendto),
 * else the path as spelled; an unnamed socket by its inode `ino` (0: none
 * known).  0: none. */
static uint64_t unix_name(const struct sockaddr *a, socklen_t len, uint32_t ino, uint64_t file)
{
	size_t n;
	const char *p = unix_spelling(a, len, &n);
	struct stat st;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

	if (!p)
		return ino ? way(0xd6b, ino) : 0;
	if (!p[0])
		return unix_spelled(a, len);
	if (file)
		return way(0xd6c, file);
	memcpy(path, p, n);
	path[n] = 0;
	if (!syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) && S_ISSOCK(st.st_mode))
		return way(0xd6c, file_id(major(st.st_dev), minor(st.st_dev), st.st_ino));
	return unix_spelled(a, len);
}

/* An IP socket address as one number (IPv4 in IPv6 as IPv4), or 0. */
static uint64_t inet_key(const struct sockaddr_storage *a)
{
	uint8_t v6[16];
	uint16_t port;

	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)a;
		memset(v6, 0, 10);
		v6[10] = v6[11] = 0xff;
		memcpy(v6 + 12, &in->sin_addr, 4);
		port = in->sin_port;
	} else if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)a;
		memcpy(v6, &in6->sin6_addr, 16);
		port = in6->sin6_port;
	} else {
		return 0;
	}
	uint64_t hi, lo;
	memcpy(&hi, v6, 8);
	memcpy(&lo, v6 + 8, 8);
	return mix(mix(hi) ^ lo) ^ port;
}

/* `dir` and fd's number, in path[48] (no stdio: sigsafe). */
static void fd_path(char *path, const char *dir, int fd)
{
	char digits[12];
	int n = 0;
	size_t at = strlen(dir);

	memcpy(path, dir, at);
	for (int v = fd; n == 0 || v; v /= 10)
		digits[n++] = (char)('0' + v % 10);
	while (n)
		path[at++] = digits[--n];
	path[at] = 0;
}

/* An eventfd's id from /proc/self/fdinfo, or 0 (a kernel before 6.3). */
static uint64_t eventfd_id(int fd)
{
	char path[48], buf[512];

	fd_path(path, "/proc/self/fdinfo/", fd);
	long f = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	long got = syscall(SYS_read, f, buf, sizeof(buf) - 1);
	syscall(SYS_close, f);
	if (got <= 0)
		return 0;
	buf[got] = 0;
	const char *p = strstr(buf, "eventfd-id:");
	if (!p)
		return 0;
	uint64_t id = 0;
	for (p += 11; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		id = id * 10 + (uint64_t)(*p - '0');
	return id + 1;
}

/* Fill r's kind, rx and tx for descriptor fd: 0, or -1 if it is none of
 * the kinds we follow, NOT_YET if it may become one (a socket not yet
 * connected or bound). */
static int flow_of(int fd, struct exp_fd_flow *r)
{
	struct stat st;

	if (syscall(SYS_fstat, fd, &st))
		return -1;
	if (S_ISFIFO(st.st_mode)) {
		r->kind = EXP_FLOW_PIPE;
		r->rx = r->tx = way(st.st_dev, st.st_ino);
		return 0;
	}
	if (S_ISSOCK(st.st_mode)) {
		struct sockaddr_storage me, peer;
		socklen_t mlen = sizeof(me), plen = sizeof(peer);
		if (syscall(SYS_getsockname, fd, &me, &mlen))
			return -1;
		int type = 0;
		socklen_t tlen = sizeof(type);
		if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &tlen))
			return -1;
		if (me.ss_family == AF_UNIX) {
			uint64_t other, own_file;
			unix_diag((uint32_t)st.st_ino, &other, type == SOCK_DGRAM ? &own_file : NULL);
			if (type == SOCK_DGRAM) {
				/* its name, if bound (unix_name); to whatever
				 * socket it is connected to (by its name, if it
				 * has one), or else the name it last sent to */
				uint64_t to, peer_file = 0;
				if (other) {
					if (syscall(SYS_getpeername, fd, &peer, &plen))
						plen = 0;
					else if (plen > offsetof(struct sockaddr_un, sun_path) + 1 &&
						 ((struct sockaddr_un *)&peer)->sun_path[0])
						unix_diag((uint32_t)other, NULL, &peer_file);
					to = unix_name((struct sockaddr *)&peer, plen, (uint32_t)other, peer_file);
				} else {
					to = atomic_load_explicit(&sent_to[fd], memory_order_relaxed);
				}
				r->kind = EXP_FLOW_UNIX;
				r->rx = unix_name((struct sockaddr *)&me, mlen, (uint32_t)st.st_ino, own_file);
				r->tx = to;
				return 0;
			}
			if (!other)
				return -1;
			r->kind = EXP_FLOW_UNIX;
			r->tx = way(st.st_ino, other);
			r->rx = way(other, st.st_ino);
			return 0;
		}
		if (type == SOCK_DGRAM) {
			uint16_t port = inet_port((struct sockaddr *)&me, mlen), peer_port = 0;
			uint64_t to = atomic_load_explicit(&sent_to[fd], memory_order_relaxed);
			if (!port)
				return me.ss_family == AF_INET || me.ss_family == AF_INET6 ? NOT_YET : -1;
			if (!to && !syscall(SYS_getpeername, fd, &peer, &plen))
				peer_port = inet_port((struct sockaddr *)&peer, plen);
			r->kind = EXP_FLOW_DGRAM;
			r->rx = dgram(port);
			r->tx = to ? to : peer_port ? dgram(peer_port) : 0;
			return 0;
		}
		if (syscall(SYS_getpeername, fd, &peer, &plen))
			return type == SOCK_STREAM ? NOT_YET : -1;
		uint64_t a = inet_key(&me), b = inet_key(&peer);
		if (!a || !b)
			return -1;
		r->kind = EXP_FLOW_INET;
		r->tx = way(a, b);
		r->rx = way(b, a);
		return 0;
	}
	char link[48], name[32];
	fd_path(link, "/proc/self/fd/", fd);
	long len = syscall(SYS_readlink, link, name, sizeof(name) - 1);
	if (len <= 0)
		return -1;
	name[len] = 0;
	if (strcmp(name, "anon_inode:[eventfd]"))
		return -1;
	uint64_t id = eventfd_id(fd);
	r->kind = EXP_FLOW_EVENTFD;
	/* Without an id: this descriptor as it is now (a copy by dup is another). */
	r->rx = r->tx = id ? way(0xefd, id) : way(((uint64_t)fd << 32) ^ st.st_ino, r->time_ns);
	return 0;
}

void io_flow_note(int fd, uint64_t since_ns)
{
	if (fd < 0 || fd >= FLOW_FDS)
		return;
	uint64_t bit = 1ull << (fd % 64);
	if (atomic_load_explicit(&looked[fd / 64], memory_order_relaxed) & bit)
		return;
	if (atomic_fetch_or_explicit(&looked[fd / 64], bit, memory_order_relaxed) & bit)
		return;
	struct exp_fd_flow r = { .time_ns = since_ns, .fd = fd };
	int rc = flow_of(fd, &r);
	if (rc == 0)
		tally__trace_event(EXP_FILE_IO, EXP_REC_FD_FLOW, &r, sizeof(r), 0, 0, 0);
	else if (rc == NOT_YET)
		atomic_fetch_and_explicit(&looked[fd / 64], ~bit, memory_order_relaxed);
}

void io_flow_dest(int fd, const struct sockaddr *to, socklen_t len)
{
	uint16_t port = inet_port(to, len);
	uint64_t chan = port ? dgram(port) : unix_spelled(to, len);

	if (fd < 0 || fd >= FLOW_FDS || !chan)
		return;
	if (!port) {
		/* a unix name: the file a path names is looked up once per
		 * new spelling (one stat), not at every call */
		if (atomic_exchange_explicit(&sent_spelled[fd], chan, memory_order_relaxed) == chan)
			return;
		chan = unix_name(to, len, 0, 0);
	}
	if (atomic_exchange_explicit(&sent_to[fd], chan, memory_order_relaxed) == chan)
		return;
	/* A new destination: the flow is looked up again at this call's note. */
	atomic_fetch_and_explicit(&looked[fd / 64], ~(1ull << (fd % 64)), memory_order_relaxed);
}
