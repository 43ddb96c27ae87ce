/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the PERF_RECORD_BPF_EVENT selftests: raw bpf() and
 * perf_event_open() wrappers, a per-CPU side-band recorder and small BPF
 * objects (program, map, link, BTF) created without libbpf, with the
 * targets links attach to: cgroups and dummy network devices.
 */
#ifndef __BPF_EVENTS_H
#define __BPF_EVENTS_H

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/vfs.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static inline int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				      int cpu, int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static inline pid_t gettid_raw(void)
{
	return syscall(__NR_gettid);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- recorder -------------------------------------------------------- */

#define REC_SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define REC_MAX_CPUS	256

/* The fixed part of a PERF_RECORD_BPF_EVENT */
struct bpf_event_head {
	struct perf_event_header header;
	uint16_t type;
	uint16_t flags;
	uint32_t id;
	uint8_t tag[BPF_TAG_SIZE];
};

/* The sample_id that ends every record with REC_SAMPLE_TYPE */
struct rec_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t identifier;
};

/* What describes each kind of object after the fixed part */
union bpf_event_desc {
	struct perf_bpf_event_map map;
	struct perf_bpf_event_link link;
	struct perf_bpf_event_btf btf;
};

struct rec {
	uint16_t type;
	uint16_t flags;
	uint32_t id;
	uint8_t tag[BPF_TAG_SIZE];
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	union bpf_event_desc desc;
};

/* The size of the description this kernel gives a record of @type. */
static inline size_t bpf_event_desc_size(int type)
{
	switch (type) {
	case PERF_BPF_EVENT_MAP_CREATE:
	case PERF_BPF_EVENT_MAP_FREE:
		return sizeof(struct perf_bpf_event_map);
	case PERF_BPF_EVENT_LINK_ATTACH:
	case PERF_BPF_EVENT_LINK_RELEASE:
	case PERF_BPF_EVENT_LINK_DETACH:
	case PERF_BPF_EVENT_LINK_UPDATE:
		return sizeof(struct perf_bpf_event_link);
	case PERF_BPF_EVENT_BTF_LOAD:
	case PERF_BPF_EVENT_BTF_UNLOAD:
		return sizeof(struct perf_bpf_event_btf);
	default:
		return 0;
	}
}

struct recorder {
	int nr;			/* events opened, one per CPU */
	int fd[REC_MAX_CPUS];
	void *base[REC_MAX_CPUS];
	size_t data_size;	/* ring size in bytes, a power of two */
	struct rec *recs;
	size_t nr_recs, cap;
	uint64_t lost;		/* sum of PERF_RECORD_LOST.lost */
	uint64_t nr_lost_records;
	uint64_t corrupt;	/* records with an unexpected size or type */
	uint64_t other;		/* records of any other type */
};

/*
 * Open one side-band event per possible CPU. @obj asks for the object
 * records; @data_pages is the ring size in pages (a power of two).
 * Returns 0 or -errno of the first failing open.
 */
static inline int recorder_open(struct recorder *r, bool prog, bool obj,
				int data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	int cpu, ncpus = get_nprocs_conf();
	struct perf_event_attr attr;

	memset(r, 0, sizeof(*r));
	if (ncpus > REC_MAX_CPUS)
		ncpus = REC_MAX_CPUS;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = REC_SAMPLE_TYPE;
	attr.sample_id_all = 1;
	/* Records from different CPUs are compared by time. */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.bpf_event = prog;
	attr.watermark = 1;
	attr.wakeup_watermark = 1;
	attr.bpf_obj_event = obj;
	r->data_size = data_pages * page;
	for (cpu = 0; cpu < ncpus; cpu++) {
		int fd = sys_perf_event_open(&attr, -1, cpu, -1,
					     PERF_FLAG_FD_CLOEXEC);
		void *base;

		if (fd < 0) {
			int err = -errno;

			/* An offline CPU is not an error. */
			if (err == -ENODEV)
				continue;
			while (r->nr)
				close(r->fd[--r->nr]);
			return err;
		}
		base = mmap(NULL, (data_pages + 1) * page,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			int err = -errno;

			close(fd);
			while (r->nr)
				close(r->fd[--r->nr]);
			return err;
		}
		r->fd[r->nr] = fd;
		r->base[r->nr] = base;
		r->nr++;
	}
	return r->nr ? 0 : -ENODEV;
}

/*
 * Keep the record in @buf, @size bytes: the fixed part, the description
 * of its type, and the sample_id. Any other size is corrupt.
 */
static inline void recorder_push(struct recorder *r, const void *buf,
				 size_t size)
{
	const struct bpf_event_head *e = buf;
	const struct rec_sample_id *sid;
	size_t desc_size = bpf_event_desc_size(e->type);
	struct rec *x;

	if (size != sizeof(*e) + desc_size + sizeof(*sid)) {
		r->corrupt++;
		return;
	}
	sid = (const void *)((const char *)buf + sizeof(*e) + desc_size);

	if (r->nr_recs == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->recs = realloc(r->recs, r->cap * sizeof(*r->recs));
		if (!r->recs)
			abort();
	}
	x = &r->recs[r->nr_recs++];
	x->type = e->type;
	x->flags = e->flags;
	x->id = e->id;
	memcpy(x->tag, e->tag, sizeof(x->tag));
	x->pid = sid->pid;
	x->tid = sid->tid;
	x->time = sid->time;
	x->cpu = sid->cpu;
	memset(&x->desc, 0, sizeof(x->desc));
	memcpy(&x->desc, e + 1, desc_size);
}

/* Copy everything available out of every ring and parse it. */
static inline void recorder_drain(struct recorder *r)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < r->nr; i++) {
		struct perf_event_mmap_page *pc = r->base[i];
		unsigned char *data = (unsigned char *)r->base[i] + page;
		uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pc->data_tail;
		uint64_t mask = r->data_size - 1;

		while (tail < head) {
			uint64_t buf64[32];
			unsigned char *buf = (unsigned char *)buf64;
			struct perf_event_header hdr;
			uint64_t k;

			for (k = 0; k < sizeof(hdr); k++)
				((unsigned char *)&hdr)[k] = data[(tail + k) & mask];
			if (hdr.size < sizeof(hdr) || tail + hdr.size > head) {
				/* The stream cannot be resynchronised. */
				r->corrupt++;
				tail = head;
				break;
			}
			if (hdr.type == PERF_RECORD_BPF_EVENT) {
				if (hdr.size > sizeof(buf64) ||
				    hdr.size < sizeof(struct bpf_event_head)) {
					r->corrupt++;
				} else {
					for (k = 0; k < hdr.size; k++)
						buf[k] = data[(tail + k) & mask];
					recorder_push(r, buf, hdr.size);
				}
			} else if (hdr.type == PERF_RECORD_LOST) {
				uint64_t lost[2];

				for (k = 0; k < sizeof(lost); k++)
					((unsigned char *)lost)[k] =
						data[(tail + sizeof(hdr) + k) & mask];
				r->lost += lost[1];
				r->nr_lost_records++;
			} else {
				r->other++;
			}
			tail += hdr.size;
		}
		__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	}
}

static inline void recorder_close(struct recorder *r)
{
	long page = sysconf(_SC_PAGESIZE);

	recorder_drain(r);
	while (r->nr) {
		r->nr--;
		munmap(r->base[r->nr], r->data_size + page);
		close(r->fd[r->nr]);
	}
}

static inline void recorder_free(struct recorder *r)
{
	free(r->recs);
	r->recs = NULL;
	r->nr_recs = 0;
	r->cap = 0;
}

/* The first record of @type for @id, or NULL. */
static inline struct rec *recorder_find(struct recorder *r, int type, uint32_t id)
{
	size_t i;

	for (i = 0; i < r->nr_recs; i++)
		if (r->recs[i].type == type && r->recs[i].id == id)
			return &r->recs[i];
	return NULL;
}

static inline size_t recorder_count(struct recorder *r, int type, uint32_t id)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_recs; i++)
		if (r->recs[i].type == type && r->recs[i].id == id)
			n++;
	return n;
}

/*
 * Drain until a record of @type for @id shows up or @timeout_ms passes:
 * some releases are deferred to a workqueue.
 */
static inline struct rec *recorder_wait(struct recorder *r, int type,
					uint32_t id, int timeout_ms)
{
	uint64_t end = now_ns() + timeout_ms * 1000000ULL;
	struct rec *x;

	for (;;) {
		recorder_drain(r);
		x = recorder_find(r, type, id);
		if (x || now_ns() > end)
			return x;
		usleep(10000);
	}
}

/* ---- BPF objects ----------------------------------------------------- */

/* "return 0" as a program of @type, loaded for @attach (0: none said). */
static inline int prog_load_for(enum bpf_prog_type type,
				enum bpf_attach_type attach)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.expected_attach_type = attach;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (uintptr_t)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static inline int prog_load(enum bpf_prog_type type)
{
	return prog_load_for(type, 0);
}

/* The name of every map the tests create: records must carry it. */
#define MAP_NAME "bpf_events_map"

/* A map of @type with one entry of 4-byte key and value; @inner_fd for a map of maps. */
static inline int map_create_with(enum bpf_map_type type, int inner_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	attr.inner_map_fd = inner_fd;
	snprintf(attr.map_name, sizeof(attr.map_name), "%s", MAP_NAME);
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

static inline int map_create(enum bpf_map_type type)
{
	return map_create_with(type, 0);
}

/*
 * A raw tracepoint link, on a tracepoint that every kernel has and that
 * rarely fires: attaching and detaching rewrites the tracepoint's call
 * site, and the stress test does that thousands of times a second. On
 * sched_switch, which the other CPU runs all the time, a QEMU TCG guest
 * now and then executed the temporary int3 of that rewrite after it was
 * gone ("Oops: int3" in __schedule).
 */
static inline int link_create(int prog_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (uintptr_t)"task_rename";
	attr.raw_tracepoint.prog_fd = prog_fd;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
}

/* The smallest valid BTF: one 32-bit int. */
static inline int btf_load(void)
{
	static const char strs[] = "\0int";
	struct {
		struct btf_header hdr;
		struct btf_type t;
		uint32_t enc;
		char strs[sizeof(strs)];
	} blob;
	union bpf_attr attr;

	memset(&blob, 0, sizeof(blob));
	blob.hdr.magic = BTF_MAGIC;
	blob.hdr.version = BTF_VERSION;
	blob.hdr.hdr_len = sizeof(blob.hdr);
	blob.hdr.type_off = 0;
	blob.hdr.type_len = sizeof(blob.t) + sizeof(blob.enc);
	blob.hdr.str_off = blob.hdr.type_len;
	blob.hdr.str_len = sizeof(strs);
	blob.t.name_off = 1;
	blob.t.info = BTF_KIND_INT << 24;
	blob.t.size = 4;
	blob.enc = 32;
	memcpy(blob.strs, strs, sizeof(strs));

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)&blob;
	/* Without the tail padding of the struct */
	attr.btf_size = offsetof(typeof(blob), strs) + sizeof(strs);
	return sys_bpf(BPF_BTF_LOAD, &attr);
}

/* Fill @info (bpf_prog_info, bpf_map_info, ...) for @fd; 0 or -errno. */
static inline int obj_info(int fd, void *info, uint32_t len)
{
	union bpf_attr attr;

	memset(info, 0, len);
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = len;
	attr.info.info = (uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) ? -errno : 0;
}

/* ---- links and their targets ---------------------------------------- */

#define CGROUP_ROOT "/sys/fs/cgroup"

/*
 * Make a fresh cgroup v2 directory in @path, mounting cgroup2 first if
 * nothing is mounted there. 0, or -errno.
 */
static inline int cgroup_make(char *path, size_t len)
{
	struct statfs st;

	if (statfs(CGROUP_ROOT, &st) || st.f_type != CGROUP2_SUPER_MAGIC) {
		if (mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
			return -errno;
	}
	snprintf(path, len, CGROUP_ROOT "/bpf_events.%d", getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* A BPF_LINK_CREATE link of @prog to @target; the fd or -1. */
static inline int link_create_attach(int prog, int target, enum bpf_attach_type type)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog;
	attr.link_create.target_fd = target;
	attr.link_create.attach_type = type;
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

static inline int link_update(int link, int new_prog, int old_prog)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_update.link_fd = link;
	attr.link_update.new_prog_fd = new_prog;
	if (old_prog >= 0) {
		attr.link_update.flags = BPF_F_REPLACE;
		attr.link_update.old_prog_fd = old_prog;
	}
	return sys_bpf(BPF_LINK_UPDATE, &attr);
}

static inline int link_detach(int link)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_detach.link_fd = link;
	return sys_bpf(BPF_LINK_DETACH, &attr);
}

static inline uint32_t prog_id_of(int fd)
{
	struct bpf_prog_info info;

	return obj_info(fd, &info, sizeof(info)) ? 0 : info.id;
}

/* An rtnetlink request about a network device, with room for attributes. */
struct rtnl_req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char attrs[128];
};

/* Append attribute @type to @n; nested ones get their rta_len set after. */
static inline struct rtattr *rtnl_attr(struct nlmsghdr *n, int type,
				       const void *data, int len)
{
	struct rtattr *rta = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

/* Send @n to rtnetlink and wait for its ack: 0 or -errno. */
static inline int rtnl_talk(struct nlmsghdr *n)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[1024];
	struct nlmsghdr *h = (void *)buf;
	ssize_t len;
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	n->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	len = sendto(fd, n, n->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa));
	if (len >= 0)
		len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		err = -errno;
	else if (len >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
		 h->nlmsg_type == NLMSG_ERROR)
		err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	else
		err = -EPROTO;
	close(fd);
	return err;
}

/*
 * A network device of @kind named @name, with the kind's defaults (a netkit
 * device gets a peer the kernel names): its ifindex, or -errno.
 */
static inline int netdev_add(const char *name, const char *kind)
{
	struct rtnl_req req = {
		.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.n.nlmsg_type = RTM_NEWLINK,
		.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL,
		.i.ifi_family = AF_UNSPEC,
	};
	struct rtattr *info;
	int err;

	rtnl_attr(&req.n, IFLA_IFNAME, name, strlen(name) + 1);
	info = rtnl_attr(&req.n, IFLA_LINKINFO, NULL, 0);
	rtnl_attr(&req.n, IFLA_INFO_KIND, kind, strlen(kind));
	info->rta_len = (char *)&req + req.n.nlmsg_len - (char *)info;
	err = rtnl_talk(&req.n);
	if (err)
		return err;
	return if_nametoindex(name) ?: -errno;
}

/* A dummy network device named @name: its ifindex, or -errno. */
static inline int dummy_add(const char *name)
{
	return netdev_add(name, "dummy");
}

static inline int netdev_del(int ifindex)
{
	struct rtnl_req req = {
		.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.n.nlmsg_type = RTM_DELLINK,
		.i.ifi_family = AF_UNSPEC,
		.i.ifi_index = ifindex,
	};

	return rtnl_talk(&req.n);
}

#endif /* __BPF_EVENTS_H */
