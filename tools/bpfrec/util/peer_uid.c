// SPDX-License-Identifier: GPL-2.0
/*
 * The owner of a loopback peer's socket: see peer_uid.h.  The peer's
 * socket is the one whose source is the peer's address and whose
 * destination is ours; inet_diag looks it up by that 4-tuple exactly.
 * Kernels without inet_diag (CONFIG_INET_DIAG=n, as the guests') list it
 * in /proc/net/tcp too, with its uid: read there instead.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include "util/peer_uid.h"

bool addr_is_loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)a;
		const unsigned char *b = in6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127;
	}
	return false;
}

/* Address and port of @a into the diag request's fields. */
static void put(const struct sockaddr *a, __be16 *port, __be32 addr[4])
{
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		*port = in->sin_port;
		addr[0] = in->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *in6 = (const void *)a;

		*port = in6->sin6_port;
		memcpy(addr, &in6->sin6_addr, 16);
	}
}

/* "0100007F:1F90": an address and port as /proc/net/tcp{,6} prints them. */
static void proc_addr(const struct sockaddr *a, char *buf, size_t len)
{
	__be32 addr[4] = {};
	__be16 port;

	put(a, &port, addr);
	if (a->sa_family == AF_INET)
		snprintf(buf, len, "%08X:%04X", addr[0], ntohs(port));
	else
		snprintf(buf, len, "%08X%08X%08X%08X:%04X", addr[0], addr[1], addr[2], addr[3],
			 ntohs(port));
}

static int proc_uid(const struct sockaddr *peer, const struct sockaddr *self, unsigned int *uid)
{
	char want_local[64], want_remote[64], local[64], remote[64], line[512];
	FILE *f = fopen(peer->sa_family == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	proc_addr(peer, want_local, sizeof(want_local));
	proc_addr(self, want_remote, sizeof(want_remote));
	while (fgets(line, sizeof(line), f)) {
		unsigned int u;

		/* sl local rem st tx:rx tr:when retrnsmt uid */
		if (sscanf(line, " %*s %63s %63s %*s %*s %*s %*s %u", local, remote, &u) == 3 &&
		    !strcmp(local, want_local) && !strcmp(remote, want_remote)) {
			*uid = u;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int peer_uid(int fd, const struct sockaddr *peer, unsigned int *uid)
{
	struct sockaddr_storage self;
	socklen_t len = sizeof(self);
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nh = { .nlmsg_len = sizeof(msg), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = peer->sa_family, .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = ~0U,
			 .id = { .idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } } },
	};
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} reply;
	struct inet_diag_msg *m;
	ssize_t n;
	int nl, err;

	if (getsockname(fd, (struct sockaddr *)&self, &len))
		return -errno;
	if (self.ss_family != peer->sa_family)
		return -ENOENT;
	/* the peer's socket: its source is the peer, its destination us */
	put(peer, &msg.req.id.idiag_sport, msg.req.id.idiag_src);
	put((struct sockaddr *)&self, &msg.req.id.idiag_dport, msg.req.id.idiag_dst);
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return proc_uid(peer, (struct sockaddr *)&self, uid);
	if (send(nl, &msg, sizeof(msg), 0) != sizeof(msg)) {
		close(nl);
		return proc_uid(peer, (struct sockaddr *)&self, uid);
	}
	n = recv(nl, &reply, sizeof(reply), 0);
	err = n < 0 ? -errno : 0;
	close(nl);
	if (n < 0)
		return err;
	/* no inet_diag in this kernel: ENOENT from the netlink family */
	if (NLMSG_OK(&reply.nh, (size_t)n) && reply.nh.nlmsg_type == NLMSG_ERROR)
		return proc_uid(peer, (struct sockaddr *)&self, uid);
	if (!NLMSG_OK(&reply.nh, (size_t)n))
		return -ENOENT;
	if (reply.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    reply.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -ENOENT;
	m = NLMSG_DATA(&reply.nh);
	*uid = m->idiag_uid;
	return 0;
}
