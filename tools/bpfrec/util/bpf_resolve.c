// SPDX-License-Identifier: GPL-2.0
/*
 * Facts about a BPF object by id, through the BPF syscalls
 * (BPF_*_GET_FD_BY_ID + BPF_OBJ_GET_INFO_BY_FD).  Works only while the
 * object exists: for short-lived objects the in-kernel capture is the
 * source, these add what only the syscalls report (every sub-program,
 * line info, BTF data).  Each returns 0 or a negative errno, -ENOENT
 * when the object is already gone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/bpf_desc.h"
#include "util/bpf_resolve.h"

static int info_by_id(int fd, void *info, __u32 len)
{
	int err = 0;

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		err = -errno;
	close(fd);
	return err;
}

static void *array(__u32 nr, size_t size, __u64 *ptr, int *err)
{
	void *a;

	if (!nr)
		return NULL;
	a = calloc(nr, size);
	if (!a)
		*err = -ENOMEM;
	*ptr = (__u64)(unsigned long)a;
	return a;
}

/* Function names from the program's BTF, one per func_info record. */
static int prog_func_names(struct pd_prog *p)
{
	struct btf *btf;
	__u32 i;

	if (!p->btf_id || !p->nr_func_info)
		return 0;
	btf = btf__load_from_kernel_by_id(p->btf_id);
	if (!btf)
		return -errno;
	p->func_names = calloc(p->nr_func_info, sizeof(*p->func_names));
	if (!p->func_names) {
		btf__free(btf);
		return -ENOMEM;
	}
	for (i = 0; i < p->nr_func_info; i++) {
		const struct btf_type *t = btf__type_by_id(btf, p->func_info[i].type_id);
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

		/* a gap would shift names onto the wrong sub-program: stop */
		if (!name)
			break;
		p->func_names[i] = strdup(name);
		if (!p->func_names[i])
			break;
		p->nr_func_names = i + 1;
	}
	btf__free(btf);
	return 0;
}

int resolve_prog_xlated(__u32 id, size_t max, void **insns, size_t *len)
{
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	void *buf = NULL;
	int fd, err = 0;

	*insns = NULL;
	*len = 0;
	/* as resolve_prog(): the fd is held for the calls only */
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		err = -errno;
	else if (!info.xlated_prog_len || info.xlated_prog_len > max)
		err = -E2BIG;
	else if (!(buf = malloc(info.xlated_prog_len)))
		err = -ENOMEM;
	if (!err) {
		__u32 want = info.xlated_prog_len;

		memset(&info, 0, sizeof(info));
		info.xlated_prog_len = want;
		info.xlated_prog_insns = (__u64)(uintptr_t)buf;
		ilen = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
			err = -errno;
		/* a program's instructions do not change once it is loaded */
		else if (info.xlated_prog_len != want)
			err = -EAGAIN;
		*len = want;
	}
	close(fd);
	if (err) {
		free(buf);
		*len = 0;
		return err;
	}
	*insns = buf;
	return 0;
}

int resolve_prog(__u32 id, struct pd_prog *p)
{
	struct bpf_prog_info info = {}, arr = {};
	__u32 len = sizeof(info);
	int fd, err = 0;

	/*
	 * Held for the two calls only: as long as it is, the loader's close
	 * is not the last reference, and the unload would happen in the
	 * recorder.  The BTF is read after it is closed.
	 */
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	/* second pass for the arrays; a program's are immutable once loaded */
	arr.nr_map_ids = info.nr_map_ids;
	arr.nr_jited_ksyms = info.nr_jited_ksyms;
	arr.nr_jited_func_lens = info.nr_jited_func_lens;
	arr.nr_prog_tags = info.nr_prog_tags;
	arr.nr_func_info = info.nr_func_info;
	arr.func_info_rec_size = sizeof(struct bpf_func_info);
	arr.nr_line_info = info.nr_line_info;
	arr.line_info_rec_size = sizeof(struct bpf_line_info);
	p->map_ids = array(arr.nr_map_ids, sizeof(__u32), &arr.map_ids, &err);
	p->ksym_addrs = array(arr.nr_jited_ksyms, sizeof(__u64), &arr.jited_ksyms, &err);
	p->ksym_lens = array(arr.nr_jited_func_lens, sizeof(__u32), &arr.jited_func_lens, &err);
	p->sub_tags = array(arr.nr_prog_tags, BPF_TAG_SIZE, &arr.prog_tags, &err);
	p->func_info = array(arr.nr_func_info, sizeof(struct bpf_func_info), &arr.func_info, &err);
	p->line_info = array(arr.nr_line_info, sizeof(struct bpf_line_info), &arr.line_info, &err);
	len = sizeof(arr);
	if (!err && bpf_obj_get_info_by_fd(fd, &arr, &len))
		err = -errno;
out:
	close(fd);
	if (err) {
		pd_prog_free_arrays(p);
		return err;
	}
	p->nr_map_ids = arr.nr_map_ids;
	/* the three ksym arrays describe the same sub-programs */
	if (arr.nr_jited_ksyms == arr.nr_jited_func_lens && arr.nr_jited_ksyms == arr.nr_prog_tags)
		p->nr_ksyms = arr.nr_jited_ksyms;
	p->nr_func_info = arr.nr_func_info;
	p->nr_line_info = arr.nr_line_info;
	p->nr_lines = info.nr_line_info;

	p->id = info.id;
	p->type = info.type;
	memcpy(p->tag, info.tag, sizeof(p->tag));
	memcpy(p->name, info.name, sizeof(p->name));
	p->load_time = info.load_time;
	p->origin.uid = info.created_by_uid;
	p->jited_len = info.jited_prog_len;
	p->xlated_len = info.xlated_prog_len;
	p->btf_id = info.btf_id;
	p->flags |= PD_F_SYSCALL;
	/* names are a bonus: the BTF may be gone while the program lives on */
	prog_func_names(p);
	return 0;
}

int resolve_map(__u32 id, struct pd_map *m)
{
	struct bpf_map_info info = {};
	int err;

	err = info_by_id(bpf_map_get_fd_by_id(id), &info, sizeof(info));
	if (err)
		return err;
	m->id = info.id;
	m->type = info.type;
	m->key_size = info.key_size;
	m->value_size = info.value_size;
	m->max_entries = info.max_entries;
	m->map_flags = info.map_flags;
	m->btf_id = info.btf_id;
	m->btf_key_type_id = info.btf_key_type_id;
	m->btf_value_type_id = info.btf_value_type_id;
	m->map_extra = info.map_extra;
	memcpy(m->name, info.name, sizeof(m->name));
	m->flags |= PD_F_SYSCALL;
	return 0;
}

/*
 * The attach target, for the link types whose info reports one: named as
 * the kernel's records name it (util/bpf_desc.c), and the two named by a
 * string, which records do not carry.
 */
static void link_target(const struct bpf_link_info *info, char *buf, size_t len)
{
	union perf_bpf_event_link_target t = {};

	switch (info->type) {
	case BPF_LINK_TYPE_RAW_TRACEPOINT:
		snprintf(buf, len, "raw_tp %s", (const char *)(unsigned long)info->raw_tracepoint.tp_name);
		return;
	case BPF_LINK_TYPE_ITER:
		snprintf(buf, len, "iter %s", (const char *)(unsigned long)info->iter.target_name);
		return;
	case BPF_LINK_TYPE_TRACING:
		t.tracing.btf_id = info->tracing.target_btf_id;
		t.tracing.obj_id = info->tracing.target_obj_id;
		break;
	case BPF_LINK_TYPE_CGROUP:
		t.cgroup_id = info->cgroup.cgroup_id;
		break;
	case BPF_LINK_TYPE_NETNS:
		t.netns_ino = info->netns.netns_ino;
		break;
	case BPF_LINK_TYPE_XDP:
		t.ifindex = info->xdp.ifindex;
		break;
	case BPF_LINK_TYPE_STRUCT_OPS:
		/* struct_ops.map_id, newer than our headers, opens the union */
		memcpy(&t.map_id, &info->raw_tracepoint, sizeof(t.map_id));
		break;
	}
	link_target_name(info->type, &t, buf, len);
}

int resolve_link(__u32 id, struct pd_link *l)
{
	char name[PD_TARGET_LEN] = "";
	struct bpf_link_info info = {};
	int err;

	/* raw_tp's and iter's names: their union members share these two fields */
	info.raw_tracepoint.tp_name = (__u64)(unsigned long)name;
	info.raw_tracepoint.tp_name_len = sizeof(name);
	err = info_by_id(bpf_link_get_fd_by_id(id), &info, sizeof(info));
	if (err)
		return err;
	l->id = info.id;
	l->type = info.type;
	l->prog_id = info.prog_id;
	if (info.type == BPF_LINK_TYPE_TRACING)
		l->attach_type = info.tracing.attach_type;
	else if (info.type == BPF_LINK_TYPE_CGROUP)
		l->attach_type = info.cgroup.attach_type;
	else if (info.type == BPF_LINK_TYPE_NETNS)
		l->attach_type = info.netns.attach_type;
	link_target(&info, l->target, sizeof(l->target));
	l->flags |= PD_F_SYSCALL;
	return 0;
}

static int btf_data(int fd, struct pd_btf *b, __u32 size)
{
	struct bpf_btf_info raw = {};
	__u32 len = sizeof(raw);

	b->data = malloc(size);
	if (!b->data)
		return -ENOMEM;
	raw.btf = (__u64)(unsigned long)b->data;
	raw.btf_size = size;
	if (bpf_obj_get_info_by_fd(fd, &raw, &len)) {
		int err = -errno;

		free(b->data);
		b->data = NULL;
		return err;
	}
	b->data_len = size;
	return 0;
}

int resolve_btf(__u32 id, struct pd_btf *b, bool with_data)
{
	struct bpf_btf_info info = {};
	char name[PD_BTF_NAME_LEN] = "";
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = bpf_btf_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	info.name = (__u64)(unsigned long)name;
	info.name_len = sizeof(name);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	b->id = info.id;
	b->size = info.btf_size;
	b->kernel = info.kernel_btf;
	memcpy(b->name, name, sizeof(b->name));
	b->flags |= PD_F_SYSCALL;
	if (with_data && info.btf_size && !b->data)
		err = btf_data(fd, b, info.btf_size);
out:
	close(fd);
	return err;
}
