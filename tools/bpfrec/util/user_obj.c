// SPDX-License-Identifier: GPL-2.0
/*
 * The user's BPF objects: open, check, load, attach by section, close.
 *
 * libbpf speaks through its print callback, line by line and on its own
 * terms; bpfrec keeps its last warnings while it calls libbpf and says in
 * one line of its own what failed, with libbpf's reason.  A verifier
 * rejection is the exception: the program's name, then the tail of its
 * verifier log, which is the reason.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/bpf_resolve.h"
#include "util/debug.h"
#include "util/facts.h"
#include "util/user_obj.h"

/* The verifier log of each program; a rejection is shown from its tail. */
#define LOG_SIZE	(1 << 20)
#define LOG_TAIL_LINES	12
/* How long the kernel may take to free what was closed (maps: a work item). */
#define GONE_WAIT_MS	2000

/* ---- libbpf's messages ---------------------------------------------- */

#define NR_WARN		8

/* libbpf's last warnings, oldest first, without "libbpf: " */
static char last_warn[NR_WARN][512];

static int keep_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];
	va_list copy;
	size_t n;

	/* -v shows everything libbpf says, the verifier's log too */
	va_copy(copy, ap);
	debug_libbpf_verbose(level, fmt, copy);
	va_end(copy);
	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = 0;
	/* the verifier log comes through here too: it has its own channel */
	if (!n || strstr(line, "PROG LOAD LOG"))
		return 0;
	memmove(last_warn[0], last_warn[1], sizeof(last_warn[0]) * (NR_WARN - 1));
	snprintf(last_warn[NR_WARN - 1], sizeof(last_warn[0]), "%s",
		 strncmp(line, "libbpf: ", 8) ? line : line + 8);
	return 0;
}

static libbpf_print_fn_t quiet(void)
{
	memset(last_warn, 0, sizeof(last_warn));
	return libbpf_set_print(keep_warnings);
}

/* libbpf's last word, or strerror when it said nothing. */
static const char *reason(int err)
{
	return last_warn[NR_WARN - 1][0] ? last_warn[NR_WARN - 1] : strerror(err < 0 ? -err : err);
}

/*
 * Why a load failed: libbpf ends with "failed to load object", after the
 * line that says why (a program refused, a relocation or a BTF target
 * not found).  The first of its recent lines that is more than a summary.
 */
static const char *load_reason(int err)
{
	static const char *const summaries[] = {
		"failed to load object", "failed to load: ", "permission error while running",
	};
	size_t i, j;

	for (i = 0; i < NR_WARN; i++) {
		if (!last_warn[i][0])
			continue;
		for (j = 0; j < sizeof(summaries) / sizeof(*summaries); j++)
			if (strstr(last_warn[i], summaries[j]))
				break;
		if (j == sizeof(summaries) / sizeof(*summaries))
			return last_warn[i];
	}
	return reason(err);
}

/* ---- options ---------------------------------------------------------- */

int user_objs_add(struct user_objs *u, const char *path)
{
	if (array_room(&u->paths, &u->cap, u->nr, sizeof(*u->paths)))
		return -ENOMEM;
	u->paths[u->nr++] = path;
	return 0;
}

int user_objs_add_set(struct user_objs *u, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;

	if (!eq || eq == arg || !eq[1])
		return errmsg_set(-EINVAL, "--set wants NAME=VALUE, not '%s' (see bpfrec record --help)",
				  arg);
	name = strndup(arg, eq - arg);
	if (!name || array_room(&u->sets, &u->cap_sets, u->nr_sets, sizeof(*u->sets))) {
		free(name);
		return -ENOMEM;
	}
	u->sets[u->nr_sets++] = (struct uobj_set){ .name = name, .value = eq + 1 };
	return 0;
}

/* ---- open and check ---------------------------------------------------- */

/*
 * Sections newer libbpf versions know and 1.1 does not: the object is
 * fine, this libbpf is too old.
 */
static const struct {
	const char *prefix;
	const char *version;
} newer_sections[] = {
	{ "uprobe.multi", "1.3" }, { "uretprobe.multi", "1.3" },
	{ "netfilter", "1.2" }, { "tcx/", "1.3" }, { "tcx_", "1.3" },
	{ "netkit/", "1.4" }, { "kprobe.session", "1.5" },
	{ "uprobe.session", "1.6" }, { "struct_ops.s", "1.3" },
};

/*
 * What bpf_program__attach() attaches from the section alone.  Other
 * programs (xdp, tc, socket filters, ...) need a target bpfrec is not
 * told, and a kprobe or uprobe section without one cannot be attached.
 */
static const char *const attachable[] = {
	"kprobe/", "kretprobe/", "ksyscall/", "kretsyscall/", "kprobe.multi/",
	"kretprobe.multi/", "uprobe/", "uretprobe/", "uprobe.s/", "uretprobe.s/",
	"usdt/", "tracepoint/", "tp/", "raw_tracepoint/", "raw_tp/",
	"raw_tracepoint.w/", "raw_tp.w/", "tp_btf/", "fentry/", "fexit/",
	"fmod_ret/", "fentry.s/", "fexit.s/", "fmod_ret.s/", "lsm/", "lsm.s/",
};

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int check_prog(const char *path, struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	size_t i;

	if (!bpf_program__autoload(prog))
		return 0;
	for (i = 0; i < sizeof(newer_sections) / sizeof(*newer_sections); i++) {
		if (has_prefix(sec, newer_sections[i].prefix))
			return errmsg_set(-EOPNOTSUPP, "%s: program '%s': section '%s' needs libbpf >= %s, this is libbpf %s",
					  path, bpf_program__name(prog), sec, newer_sections[i].version, libbpf_version_string() + (libbpf_version_string()[0] == 'v'));
	}
	if (bpf_program__type(prog) == BPF_PROG_TYPE_UNSPEC)
		return errmsg_set(-EINVAL, "%s: program '%s': unknown section '%s'",
				  path, bpf_program__name(prog), sec);
	for (i = 0; i < sizeof(attachable) / sizeof(*attachable); i++)
		if (has_prefix(sec, attachable[i]) && sec[strlen(attachable[i])])
			return 0;
	return errmsg_set(-EOPNOTSUPP, "%s: program '%s': bpfrec cannot attach section '%s' (it attaches kprobe/FUNC, uprobe/PATH:FUNC, tracepoint/CAT/NAME, raw_tp/NAME, tp_btf/NAME, fentry/FUNC, fexit/FUNC, lsm/HOOK, usdt/...)",
			  path, bpf_program__name(prog), sec);
}

static int open_one(struct user_objs *u, size_t i)
{
	const char *path = u->paths[i];
	struct bpf_program *prog;
	char name[64];
	int err, n = 0;
	FILE *f;

	/* libbpf's "failed to open": say which of the usual it is */
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		return errmsg_set(err, "--object %s: %s", path, strerror(-err));
	}
	err = fread(name, 1, 4, f) != 4 || memcmp(name, "\177ELF", 4);
	fclose(f);
	if (err)
		return errmsg_set(-ENOEXEC, "--object %s: not an ELF file (a BPF object is built with clang -target bpf)",
				  path);
	/* the name the kernel shows for its maps: the file's base name */
	snprintf(name, sizeof(name), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	u->objs[i] = bpf_object__open_file(path, NULL);
	if (!u->objs[i]) {
		err = -errno;
		return errmsg_set(err, "--object %s: %s", path, reason(err));
	}
	bpf_object__for_each_program(prog, u->objs[i]) {
		err = check_prog(path, prog);
		if (err)
			return err;
		n += bpf_program__autoload(prog);
	}
	if (!n)
		return errmsg_set(-ENOENT, "--object %s: no program to load", path);
	return 0;
}

int user_objs_open(struct user_objs *u)
{
	libbpf_print_fn_t old = quiet();
	size_t i;
	int err = 0;

	u->objs = calloc(u->nr, sizeof(*u->objs));
	if (!u->objs)
		err = -ENOMEM;
	for (i = 0; !err && i < u->nr; i++)
		err = open_one(u, i);
	if (!err)
		err = uobj_apply_sets(u);
	if (!err)
		err = uobj_find_chans(u);
	libbpf_set_print(old);
	return err;
}

/* ---- load and attach ----------------------------------------------------- */

/*
 * The last @n lines of @log, indented: where the verifier stopped and
 * why.  Its closing statistics ("processed N insns ...") say neither.
 */
static void print_tail(const char *log, int n)
{
	const char *end = log + strlen(log), *p = end, *stats;

	while (p > log && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	stats = p;
	while (stats > log && stats[-1] != '\n')
		stats--;
	if (!strncmp(stats, "processed ", 10) && stats > log)
		p = stats - 1;
	end = p;
	while (p > log && n) {
		p--;
		if (*p == '\n' && --n == 0) {
			p++;
			break;
		}
	}
	if (p == log && n)
		fprintf(stderr, "  (whole log)\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		int len = nl ? nl - p : end - p;

		fprintf(stderr, "  | %.*s\n", len, p);
		p += len + 1;
	}
}

/*
 * Maps declared LIBBPF_PIN_BY_NAME would be pinned in /sys/fs/bpf/NAME,
 * left there after exit, and a map someone else pinned at that name
 * would be used instead of the object's.  They are pinned in a private
 * directory instead, made here (mode 0700) and removed at close.
 */
static int private_pins(struct user_objs *u, size_t i)
{
	char tmpl[] = "/sys/fs/bpf/bpfrec-pins-XXXXXX", path[PATH_MAX];
	struct bpf_map *map;
	int err;

	bpf_object__for_each_map(map, u->objs[i]) {
		if (!bpf_map__pin_path(map))
			continue;
		if (!u->pin_dir) {
			if (!mkdtemp(tmpl)) {
				err = -errno;
				return errmsg_set(err, "%s: map '%s' is pinned by name, and no private directory could be made for it in /sys/fs/bpf: %s",
						  u->paths[i], bpf_map__name(map), strerror(-err));
			}
			u->pin_dir = strdup(tmpl);
			if (!u->pin_dir) {
				rmdir(tmpl);
				return -ENOMEM;
			}
		}
		snprintf(path, sizeof(path), "%s/%s", u->pin_dir, bpf_map__name(map));
		err = bpf_map__set_pin_path(map, path);
		if (err)
			return err;
	}
	return 0;
}

/* The private pins go with the objects. */
static void remove_pins(struct user_objs *u, struct bpf_object *obj)
{
	struct bpf_map *map;

	if (!u->pin_dir || !obj)
		return;
	bpf_object__for_each_map(map, obj)
		if (bpf_map__is_pinned(map))
			bpf_map__unpin(map, NULL);
}

static int load_one(struct user_objs *u, size_t i, char **logs)
{
	struct bpf_object *obj = u->objs[i];
	struct bpf_program *prog;
	int err, n = 0;

	/* log_level 0 with a buffer: libbpf asks the log only on failure */
	bpf_object__for_each_program(prog, obj) {
		logs[n][0] = 0;
		bpf_program__set_log_buf(prog, logs[n], LOG_SIZE);
		n++;
	}
	err = private_pins(u, i);
	if (err)
		return err;
	err = bpf_object__load(obj);
	if (!err)
		return 0;
	n = 0;
	bpf_object__for_each_program(prog, obj) {
		if (logs[n][0]) {
			/* an error of several lines, the log's: said here, in order */
			pr_warning("%s: the verifier rejected program '%s' (section '%s'): %s; its log ends:\n",
				   u->paths[i], bpf_program__name(prog),
				   bpf_program__section_name(prog), strerror(-err));
			print_tail(logs[n], LOG_TAIL_LINES);
			return err;
		}
		n++;
	}
	return errmsg_set(err, "%s: loading failed: %s", u->paths[i], load_reason(err));
}

/*
 * Why an attachment found nothing: the target is missing, or the kernel
 * has no probes of that kind at all (neither the PMU nor tracefs' file).
 */
static const char *no_target(const char *sec)
{
	static const char *const kinds[][3] = {
		{ "kprobe", "kretprobe", "kprobe_events" },
		{ "uprobe", "uretprobe", "uprobe_events" },
	};
	char pmu[64], tracefs[64], debugfs[80];
	size_t k;

	for (k = 0; k < 2; k++) {
		if (!has_prefix(sec, kinds[k][0]) && !has_prefix(sec, kinds[k][1]))
			continue;
		snprintf(pmu, sizeof(pmu), "/sys/bus/event_source/devices/%s", kinds[k][0]);
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/tracing/%s", kinds[k][2]);
		snprintf(debugfs, sizeof(debugfs), "/sys/kernel/debug/tracing/%s", kinds[k][2]);
		if (access(pmu, F_OK) && access(tracefs, F_OK) && access(debugfs, F_OK))
			return k ? "this kernel has no uprobes (CONFIG_UPROBE_EVENTS)" :
				   "this kernel has no kprobes (CONFIG_KPROBE_EVENTS)";
	}
	return "no such target";
}

static int attach_one(struct user_objs *u, size_t i)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	bpf_object__for_each_program(prog, u->objs[i]) {
		if (!bpf_program__autoload(prog))
			continue;
		if (array_room(&u->links, &u->cap_links, u->nr_links, sizeof(*u->links)))
			return -ENOMEM;
		memset(last_warn, 0, sizeof(last_warn));
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			return errmsg_set(err, "%s: program '%s': cannot attach to '%s': %s",
					  u->paths[i], bpf_program__name(prog), bpf_program__section_name(prog), err == -ENOENT ? no_target(bpf_program__section_name(prog)) : reason(err));
		}
		u->links[u->nr_links++] = link;
	}
	return 0;
}

/*
 * The id of a program's, map's or link's fd (each *_info has it after
 * the type), or 0.
 */
static __u32 obj_id(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

/* A BTF's info has the id after the data pointer and size. */
static __u32 btf_id(int fd)
{
	struct bpf_btf_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

static int add_id(__u32 **ids, size_t *nr, size_t *cap, __u32 id)
{
	if (!id)
		return 0;
	if (array_room(ids, cap, *nr, sizeof(**ids)))
		return -ENOMEM;
	(*ids)[(*nr)++] = id;
	return 0;
}

/* The ids, while the fds are open: to mark the facts, and to see them go. */
static int note_ids(struct user_objs *u)
{
	struct uobj_ids *d = &u->ids;
	struct bpf_program *prog;
	struct bpf_map *map;
	const struct btf *btf;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < u->nr; i++) {
		bpf_object__for_each_program(prog, u->objs[i])
			if (!err)
				err = add_id(&d->progs, &d->nr_progs, &d->cap_progs,
					     obj_id(bpf_program__fd(prog)));
		bpf_object__for_each_map(map, u->objs[i])
			if (!err)
				err = add_id(&d->maps, &d->nr_maps, &d->cap_maps,
					     obj_id(bpf_map__fd(map)));
		btf = bpf_object__btf(u->objs[i]);
		if (!err && btf)
			err = add_id(&d->btfs, &d->nr_btfs, &d->cap_btfs, btf_id(btf__fd(btf)));
	}
	for (i = 0; !err && i < u->nr_links; i++)
		err = add_id(&d->links, &d->nr_links, &d->cap_links,
			     obj_id(bpf_link__fd(u->links[i])));
	if (err)
		return err;
	d->map_facts = calloc(d->nr_maps ?: 1, sizeof(*d->map_facts));
	d->link_facts = calloc(d->nr_links ?: 1, sizeof(*d->link_facts));
	if (!d->map_facts || !d->link_facts)
		return -ENOMEM;
	/* they exist: bpfrec holds their fds */
	for (i = 0; i < d->nr_maps; i++)
		resolve_map(d->maps[i], &d->map_facts[i]);
	for (i = 0; i < d->nr_links; i++)
		resolve_link(d->links[i], &d->link_facts[i]);
	return 0;
}

/*
 * The objects' BTF goes into the recording whole: script decodes their
 * output with it (the capture only knows its size).  Copied while the
 * objects are open, stored at the end.
 */
static int keep_btf(struct user_objs *u)
{
	const struct btf *btf;
	const void *raw;
	__u32 len;
	size_t i;

	u->btfs = calloc(u->nr, sizeof(*u->btfs));
	if (!u->btfs)
		return -ENOMEM;
	for (i = 0; i < u->nr; i++) {
		btf = bpf_object__btf(u->objs[i]);
		u->btfs[i].id = btf ? btf_id(btf__fd(btf)) : 0;
		raw = u->btfs[i].id ? btf__raw_data(btf, &len) : NULL;
		if (raw && (u->btfs[i].data = malloc(len))) {
			memcpy(u->btfs[i].data, raw, len);
			u->btfs[i].len = len;
		}
	}
	return 0;
}

int user_objs_load(struct user_objs *u, struct pd_writer *w)
{
	libbpf_print_fn_t old = quiet();
	char *logs[64] = {};
	size_t i, j, nr_progs;
	struct bpf_program *prog;
	int err = 0;

	u->w = w;
	for (i = 0; !err && i < u->nr; i++) {
		nr_progs = 0;
		bpf_object__for_each_program(prog, u->objs[i])
			nr_progs++;
		if (nr_progs > sizeof(logs) / sizeof(*logs)) {
			err = errmsg_set(-E2BIG, "%s: more than %zu programs", u->paths[i],
					 sizeof(logs) / sizeof(*logs));
			break;
		}
		for (j = 0; j < nr_progs && !err; j++)
			if (!logs[j] && !(logs[j] = malloc(LOG_SIZE)))
				err = -ENOMEM;
		if (!err)
			err = load_one(u, i, logs);
	}
	for (j = 0; j < sizeof(logs) / sizeof(*logs); j++)
		free(logs[j]);
	if (!err)
		err = uobj_wire_chans(u);
	for (i = 0; !err && i < u->nr; i++)
		err = attach_one(u, i);
	/* even after a failure: what was loaded is bpfrec's, and is shown so */
	if ((note_ids(u) || keep_btf(u)) && !err)
		err = -ENOMEM;
	libbpf_set_print(old);
	return err;
}

/* ---- the end ------------------------------------------------------------- */

static void mark(struct facts *f, enum pd_kind kind, const __u32 *ids, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		switch (kind) {
		case PD_PROG:
			facts_prog(f, ids[i], NULL)->flags |= PD_F_OBJECT;
			break;
		case PD_MAP:
			facts_map(f, ids[i], NULL)->flags |= PD_F_OBJECT;
			break;
		case PD_LINK:
			facts_link(f, ids[i], NULL)->flags |= PD_F_OBJECT;
			break;
		default:
			facts_btf(f, ids[i], NULL)->flags |= PD_F_OBJECT;
			break;
		}
	}
}

void user_objs_mark(struct user_objs *u, struct facts *f)
{
	struct uobj_ids *d = &u->ids;

	struct pd_btf *b;
	size_t i;

	for (i = 0; u->btfs && i < u->nr; i++) {
		if (!u->btfs[i].data || !(b = facts_btf(f, u->btfs[i].id, NULL)) || b->data)
			continue;
		/* the facts own it now */
		b->data = u->btfs[i].data;
		b->data_len = u->btfs[i].len;
		u->btfs[i].data = NULL;
	}
	/* what no other source resolved, as bpfrec read it while it held it */
	for (i = 0; d->map_facts && i < d->nr_maps; i++) {
		struct pd_map *m = facts_map(f, d->maps[i], NULL);

		if (m && !(m->flags & PD_F_KNOWN) &&
		    (d->map_facts[i].flags & PD_F_SYSCALL)) {
			d->map_facts[i].flags |= m->flags;
			/* bpfrec's main thread created them */
			facts_self_origin(&d->map_facts[i].origin);
			*m = d->map_facts[i];
		}
	}
	for (i = 0; d->link_facts && i < d->nr_links; i++) {
		struct pd_link *l = facts_link(f, d->links[i], NULL);

		if (l && !(l->flags & PD_F_KNOWN) &&
		    (d->link_facts[i].flags & PD_F_SYSCALL)) {
			d->link_facts[i].flags |= l->flags;
			facts_self_origin(&d->link_facts[i].origin);
			*l = d->link_facts[i];
		}
	}
	mark(f, PD_PROG, d->progs, d->nr_progs);
	mark(f, PD_MAP, d->maps, d->nr_maps);
	mark(f, PD_LINK, d->links, d->nr_links);
	mark(f, PD_BTF, d->btfs, d->nr_btfs);
}

static bool any_left(const struct uobj_ids *d)
{
	size_t i;
	int fd;

	for (i = 0; i < d->nr_progs; i++)
		if ((fd = bpf_prog_get_fd_by_id(d->progs[i])) >= 0)
			return close(fd), true;
	for (i = 0; i < d->nr_maps; i++)
		if ((fd = bpf_map_get_fd_by_id(d->maps[i])) >= 0)
			return close(fd), true;
	for (i = 0; i < d->nr_links; i++)
		if ((fd = bpf_link_get_fd_by_id(d->links[i])) >= 0)
			return close(fd), true;
	return false;
}

void user_objs_close(struct user_objs *u)
{
	struct timespec ms = { .tv_nsec = 10 * 1000 * 1000 };
	int waited;
	size_t i;

	/* links first: nothing runs the programs any more */
	for (i = 0; i < u->nr_links; i++)
		bpf_link__destroy(u->links[i]);
	u->nr_links = 0;
	/* what the programs sent before they were detached */
	if (u->rb && u->w)
		ring_buffer__consume(u->rb);
	ring_buffer__free(u->rb);
	u->rb = NULL;
	for (i = 0; u->objs && i < u->nr; i++) {
		remove_pins(u, u->objs[i]);
		bpf_object__close(u->objs[i]);
		u->objs[i] = NULL;
	}
	if (u->pin_dir) {
		rmdir(u->pin_dir);
		free(u->pin_dir);
		u->pin_dir = NULL;
	}
	for (waited = 0; waited < GONE_WAIT_MS && any_left(&u->ids); waited += 10)
		nanosleep(&ms, NULL);
}

void user_objs_free(struct user_objs *u)
{
	size_t i;

	user_objs_close(u);
	for (i = 0; i < u->nr_sets; i++)
		free((char *)u->sets[i].name);
	free(u->sets);
	free(u->paths);
	free(u->objs);
	free(u->links);
	free(u->chans);
	for (i = 0; u->btfs && i < u->nr; i++)
		free(u->btfs[i].data);
	free(u->btfs);
	free(u->ids.progs);
	free(u->ids.maps);
	free(u->ids.links);
	free(u->ids.btfs);
	free(u->ids.map_facts);
	free(u->ids.link_facts);
	memset(u, 0, sizeof(*u));
}
