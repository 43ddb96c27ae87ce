/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is at the other end of a TCP connection on this machine: the uid
 * that owns the peer's socket, from the kernel's socket table
 * (NETLINK_SOCK_DIAG).  `bpfrec serve` answers on loopback only to the
 * users who could read BPF program stats themselves.
 */
#ifndef BPFREC_PEER_UID_H
#define BPFREC_PEER_UID_H

#include <stdbool.h>
#include <sys/socket.h>

/* True for 127.0.0.0/8 and ::1 (and ::ffff:127.x.y.z). */
bool addr_is_loopback(const struct sockaddr *a);
/*
 * The uid owning the local socket connected to our socket @fd from
 * @peer: 0 and *uid set, -ENOENT when it is not on this machine, or a
 * negative errno.
 */
int peer_uid(int fd, const struct sockaddr *peer, unsigned int *uid);

#endif /* BPFREC_PEER_UID_H */
