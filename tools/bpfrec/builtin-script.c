// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec script: one line per BPF lifecycle, KSYMBOL and LOST record and
 * per sample of a perf.data, in time order, as text or as JSON lines.
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <bpf/libbpf.h>
#include "builtin.h"
#include "util/fit.h"
#include "util/intern.h"
#include "util/json.h"
#include "util/output_decode.h"
#include "util/perf_data/oversized.h"
#include "util/printable.h"
#include "util/sample_view.h"
#include "util/timeline.h"
#include "util/user_syms.h"

/*
 * What a row is about, for --kinds: a BPF object of a kind (enum
 * pd_kind), or one of the other records, numbered after the kinds.
 */
enum { K_KSYMBOL = PD_NR_KINDS, K_LOST, K_OUTPUT, K_NR };

static const char *kind_name(int k)
{
	static const char *const others[K_NR - PD_NR_KINDS] = { "ksymbol", "lost", "output" };

	return k < PD_NR_KINDS ? pd_kind_name(k) : others[k - PD_NR_KINDS];
}

#define MAX_FILTER	16
#define DEFAULT_WIDTH	160

/* The columns of a text line (-F), as bits. */
enum field {
	F_TIME, F_CPU, F_PID, F_TID, F_COMM, F_EVENT, F_ID, F_NAME, F_TYPE, F_TAG, F_DETAILS,
	F_CALLCHAIN, NR_FIELDS
};
#define ALL_FIELDS	((1U << NR_FIELDS) - 1)

/* -F's names, perf script's first: each the columns it shows. */
static const struct {
	const char *name;
	unsigned int fields;
} field_names[] = {
	{ "comm", 1U << F_COMM }, { "tid", 1U << F_TID }, { "pid", 1U << F_PID },
	{ "time", 1U << F_TIME }, { "cpu", 1U << F_CPU }, { "event", 1U << F_EVENT },
	{ "trace", 1U << F_DETAILS }, { "period", 1U << F_DETAILS },
	{ "ip", 1U << F_CALLCHAIN }, { "sym", 1U << F_NAME | 1U << F_CALLCHAIN },
	{ "symoff", 1U << F_NAME | 1U << F_CALLCHAIN }, { "dso", 1U << F_CALLCHAIN },
	{ "id", 1U << F_ID }, { "name", 1U << F_NAME }, { "type", 1U << F_TYPE },
	{ "tag", 1U << F_TAG }, { "details", 1U << F_DETAILS },
};

#define NR_FIELD_NAMES	(sizeof(field_names) / sizeof(field_names[0]))

struct script_args {
	const char *input;
	unsigned int fields;		/* -F: enum field bits */
	bool wide;			/* --wide: names never cut */
	char *decode[MAX_FILTER];	/* --decode MAP=STRUCT, split at '=' */
	int nr_decode;
	bool json;
	bool ksymbol;			/* programs' images too */
	const char *kallsyms;		/* --kallsyms: the recording machine's */
	unsigned int kinds;		/* 1 << enum pd_kind or K_*; 0: all */
	__u32 pids[MAX_FILTER];
	int nr_pids;
	char comms[MAX_FILTER][64];
	int nr_comms;
	unsigned long width;		/* --width: 0, lines are never cut */
	bool width_set;
	unsigned long budget;		/* the columns fit this width */
	unsigned long cut;		/* lines are cut there (0: never) */
};

enum { OPT_JSON = 0x100, OPT_KSYMBOL, OPT_KINDS, OPT_PID, OPT_COMM, OPT_WIDTH, OPT_WIDE,
       OPT_DECODE, OPT_KALLSYMS };

static const struct argp_option script_options[] = {
	{ "json", OPT_JSON, NULL, 0, "One JSON object per line, every record whole", 0 },
	{ "kinds", OPT_KINDS, "KIND[,KIND...]", 0,
	  "Only these: prog, map, link, btf, ksymbol, lost, output", 0 },
	{ "pid", OPT_PID, "PID[,PID...]", 0, "Only the records of these processes", 0 },
	{ "comm", OPT_COMM, "COMM[,COMM...]", 0, "Only the records of tasks of these names", 0 },
	{ "ksymbol", OPT_KSYMBOL, NULL, 0,
	  "Also the KSYMBOL lines of programs' JIT images (else folded into PROG_LOAD and "
	  "PROG_UNLOAD)", 0 },
	{ "width", OPT_WIDTH, "COLUMNS", 0,
	  "Fit text lines to COLUMNS: names cut in the middle ('" FIT_MARK "'), lines wrapped "
	  "(0: never; default: the terminal's width, 160 columns into a pipe)", 0 },
	{ "wide", OPT_WIDE, NULL, 0, "Names whole, however long, and lines never wrapped", 0 },
	{ "decode", OPT_DECODE, "MAP=STRUCT", 0,
	  "Decode the records of the objects' map MAP as struct STRUCT of their BTF (repeatable)", 0 },
	{ "kallsyms", OPT_KALLSYMS, "FILE", 0,
	  "Kernel symbols of the recording machine, for files that kept none (perf's): a copy of "
	  "its /proc/kallsyms (default: this machine's, if the file was recorded here)", 0 },
	{ "fields", 'F', "FIELD[,FIELD...]", 0,
	  "Only these columns: comm, tid, pid, time, cpu, event, trace, period, ip, sym, symoff, "
	  "dso (perf's), id, name, type, tag, details; +FIELD adds to the default, -FIELD removes", 0 },
	{ 0 }
};

static const struct argp_child script_children[] = {
	{ &input_argp, 0, NULL, 0 },
	{ &cmd_help_argp, 0, NULL, 0 },
	{ 0 }
};

static const char script_doc[] =
	"Print the BPF lifecycle records of a perf.data, in time order.\n"
	"\n"
	"Reads files written by 'bpfrec record' and by 'perf record': without\n"
	"-i, bpfrec.data, or perf.data when there is no bpfrec.data.\n"
	"Columns: time (s.us), cpu, pid/tid, comm, event, id, name, type,\n"
	"tag, details.  A program's name is its full name (its main function's\n"
	"name in BTF) when the file has it; one that perf could not resolve is\n"
	"named from its KSYMBOL record.  The KSYMBOL records of programs' JIT\n"
	"images say what PROG_LOAD and PROG_UNLOAD say: they are shown with\n"
	"--ksymbol (and always in --json).  Into a terminal, lines fit it; into\n"
	"a pipe, the columns fit 160 and the details go on whole (--width).\n"
	"Control characters in comms and names are shown as \\xNN.\n"
	"\n"
	"Maps, links and BTF are shown as their records describe them (kernels\n"
	"with series v2), else as the file's facts do: a map's name, type, key and\n"
	"value sizes, max_entries; a link's program (LINK_UPDATE: old_prog, and\n"
	"'replace' when the caller named it) and attach type; BTF's kind (kernel,\n"
	"module or user), module name and size.\n"
	"\n"
	"What objects loaded by 'bpfrec record --object' sent is shown too: event\n"
	"bpf-output or ringbuf, the map's id and name, and the record's fields\n"
	"when the object's BTF has a struct named after the map (type 'struct\n"
	"M'), else its bytes in hex (data=...).  Their lifecycle lines say\n"
	"'user-object'.\n"
	"\n"
	"Samples of 'bpfrec record -e' and 'perf record' are shown with their\n"
	"stack, one frame a line under them: event cpu-clock (or the event\n"
	"sampled), the symbol hit (name) and where (type: user, kernel or bpf);\n"
	"a tracepoint's fields, decoded from the formats the file keeps (type\n"
	"SUBSYS:NAME); an off-CPU interval's time in ns (event offcpu-time,\n"
	"off_cpu_ns=).  Kernel frames are named from the kallsyms the file kept\n"
	"(perf's keep none: this machine's, or --kallsyms), BPF frames from its\n"
	"KSYMBOL records, user frames from the mapped files' ELF symbols, with\n"
	"the file: 'symbol+0xoff (file)', its full path in --json; an address\n"
	"that nothing names is shown bare.\n"
	"\n"
	"Examples:\n"
	"  bpfrec script\n"
	"  bpfrec script -i /tmp/bpf.data\n"
	"  bpfrec script -i /tmp/bpf.data --json | jq 'select(.event == \"PROG_LOAD\")'\n"
	"  bpfrec script --kinds prog,map --comm execsnoop\n"
	"  perf record -e cpu-clock -o - -- ./loader | bpfrec script -i -\n"
	"\v"
	"Exit status: 0 ok, 1 unreadable or malformed file, 2 usage error.";

/* The next item of a comma-separated @*list into @buf; false at its end. */
static bool next_item(const char **list, char *buf, size_t len)
{
	size_t n;

	if (!**list)
		return false;
	n = strcspn(*list, ",");
	snprintf(buf, len, "%.*s", (int)n, *list);
	*list += n + !!(*list)[n];
	return true;
}

static error_t parse_kinds(struct argp_state *state, struct script_args *a, const char *arg)
{
	char tok[64];
	int k;

	while (next_item(&arg, tok, sizeof(tok))) {
		for (k = 0; k < K_NR && strcmp(tok, kind_name(k)); k++)
			;
		if (k == K_NR)
			return cmd_usage_error(state, "unknown kind '%s': prog, map, link, btf, ksymbol, lost or output", tok);
		a->kinds |= 1U << k;
	}
	return a->kinds ? 0 : cmd_usage_error(state, "%s", "--kinds wants a list of kinds");
}

static error_t parse_pids(struct argp_state *state, struct script_args *a, const char *arg)
{
	char tok[64], *end;
	unsigned long v;

	while (next_item(&arg, tok, sizeof(tok))) {
		v = strtoul(tok, &end, 10);
		if (*tok == '-' || end == tok || *end || v > 0xffffffffUL)
			return cmd_usage_error(state, "--pid wants process ids like 42,43, not '%s'", tok);
		if (a->nr_pids == MAX_FILTER)
			return cmd_usage_error(state, "--pid: at most %d processes", MAX_FILTER);
		a->pids[a->nr_pids++] = v;
	}
	return a->nr_pids ? 0 : cmd_usage_error(state, "%s", "--pid wants process ids");
}

/* -F a,b or -F +a,-b (perf script's form, without the event type). */
static error_t parse_fields(struct argp_state *state, struct script_args *a, const char *arg)
{
	char tok[64];
	bool rel = *arg == '+' || *arg == '-';
	size_t i;

	if (strchr(arg, ':'))
		return cmd_usage_error(state, "-F %s: fields by event type are not taken, -F FIELD,... is", arg);
	a->fields = rel ? ALL_FIELDS : 0;
	while (next_item(&arg, tok, sizeof(tok))) {
		const char *name = tok + (*tok == '+' || *tok == '-');

		for (i = 0; i < NR_FIELD_NAMES && strcmp(name, field_names[i].name); i++)
			;
		if (i == NR_FIELD_NAMES)
			return cmd_usage_error(state, "unknown field '%s': comm, tid, pid, time, cpu, event, trace, period, ip, sym, symoff, dso, id, name, type, tag or details", name);
		if ((*tok == '+' || *tok == '-') != rel)
			return cmd_usage_error(state, "-F %s: all fields with + or -, or none", tok);
		if (*tok == '-')
			a->fields &= ~field_names[i].fields;
		else
			a->fields |= field_names[i].fields;
	}
	return a->fields ? 0 : cmd_usage_error(state, "%s", "-F wants fields");
}

static error_t parse_comms(struct argp_state *state, struct script_args *a, const char *arg)
{
	while (a->nr_comms < MAX_FILTER &&
	       next_item(&arg, a->comms[a->nr_comms], sizeof(a->comms[0])))
		a->nr_comms++;
	if (*arg)
		return cmd_usage_error(state, "--comm: at most %d names", MAX_FILTER);
	return a->nr_comms ? 0 : cmd_usage_error(state, "%s", "--comm wants task names");
}

static error_t script_parse(int key, char *arg, struct argp_state *state)
{
	struct script_args *a = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		/* -i belongs to input_argp */
		state->child_inputs[0] = &a->input;
		a->fields = ALL_FIELDS;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_KSYMBOL:
		a->ksymbol = true;
		break;
	case 'F':
		return parse_fields(state, a, arg);
	case OPT_WIDE:
		a->wide = true;
		break;
	case OPT_KALLSYMS:
		a->kallsyms = arg;
		break;
	case OPT_DECODE: {
		char *eq = strchr(arg, '=');

		if (!eq || eq == arg || !eq[1])
			return cmd_usage_error(state, "--decode wants MAP=STRUCT, not '%s'", arg);
		if (a->nr_decode == MAX_FILTER)
			return cmd_usage_error(state, "--decode: at most %d maps", MAX_FILTER);
		a->decode[a->nr_decode++] = arg;
		break;
	}
	case OPT_KINDS:
		return parse_kinds(state, a, arg);
	case OPT_PID:
		return parse_pids(state, a, arg);
	case OPT_COMM:
		return parse_comms(state, a, arg);
	case OPT_WIDTH:
		a->width_set = true;
		a->width = strtoul(arg, &end, 10);
		if (*arg == '-' || end == arg || *end || (a->width && a->width < 80) ||
		    a->width > 4096)
			return cmd_usage_error(state, "--width wants 0 or 80 to 4096 columns, not '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

enum kv_kind { KV_U64, KV_HEX, KV_STR, KV_FLAG };

struct kv {
	const char *key;
	enum kv_kind kind;
	__u64 num;
	const char *str;
};

/* a decoded record has a detail per field */
#define MAX_DETAILS	32

/* One output line, shared by the text and the JSON rendering. */
struct row {
	const struct tl_event *e;
	const char *comm;
	bool self;			/* about one of the recorder's objects */
	const char *event;
	bool has_id;
	__u32 id;
	const char *name;
	const char *type;
	char tag[2 * BPF_TAG_SIZE + 1];
	struct kv kv[MAX_DETAILS];
	int nr_kv;
	char event_buf[32];
	char type_buf[160];
	char sha256[2 * PD_SHA256_LEN + 1];
	char scratch[2][1024];		/* joined lists of ids and names */
	char out[4096];			/* a decoded record's fields */
};

static void kv_num(struct row *r, const char *key, enum kv_kind kind, __u64 v)
{
	if (r->nr_kv < MAX_DETAILS)
		r->kv[r->nr_kv++] = (struct kv){ .key = key, .kind = kind, .num = v };
}

static void kv_str(struct row *r, const char *key, const char *s)
{
	if (r->nr_kv < MAX_DETAILS)
		r->kv[r->nr_kv++] = (struct kv){ .key = key, .kind = KV_STR, .str = s };
}

static void kv_flag(struct row *r, const char *key)
{
	kv_num(r, key, KV_FLAG, 1);
}

static const char *type_name(struct row *r, const char *s, const char *kind,
			     __u32 type)
{
	if (s)
		return s;
	snprintf(r->type_buf, sizeof(r->type_buf), "%s_type_%u", kind, type);
	return r->type_buf;
}

static void set_tag(struct row *r, const __u8 *tag)
{
	static const __u8 zero[BPF_TAG_SIZE];
	int i;

	if (!memcmp(tag, zero, BPF_TAG_SIZE))
		return;
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(r->tag + 2 * i, 3, "%02x", tag[i]);
}

/* "a,b,c" of at most the room in @buf; a list cut short ends in "...". */
static void join(char *buf, size_t len, __u32 n, const __u32 *ids,
		 char *const *names)
{
	size_t pos = 0;
	__u32 i;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++) {
		int w = ids ? snprintf(buf + pos, len - pos, "%s%u", i ? "," : "",
				       ids[i])
			    : snprintf(buf + pos, len - pos, "%s%s", i ? "," : "",
				       names[i]);

		if (w < 0 || (size_t)w >= len - pos) {
			snprintf(buf + (len > 4 ? len - 4 : 0), 4, "...");
			return;
		}
		pos += w;
	}
}

/*
 * A program's full name: its main function's in BTF, else its image's
 * (the kernel names the image after that function too), else the 15
 * characters of bpf_prog_info.  The image's name of a resolved program is
 * taken only when it extends the info's: a pairing gone wrong (a record
 * lost) cannot rename a program.
 */
static const char *prog_name(const struct pd_prog *p, const char *ksym)
{
	bool resolved = p && !(p->flags & PD_F_UNRESOLVED);

	if (resolved && p->nr_func_names && p->func_names[0][0])
		return p->func_names[0];
	if (ksym && (!resolved || !strncmp(ksym, p->name, strlen(p->name))))
		return ksym;
	return resolved && p->name[0] ? p->name : NULL;
}

static void prog_row(struct row *r, struct pd_reader *rd, bool load)
{
	const struct pd_prog *p = pd_reader_prog(rd, r->id);

	set_tag(r, r->e->bpf.tag);
	r->name = prog_name(p, r->e->ksym_name);
	if (!p || (p->flags & PD_F_UNRESOLVED)) {
		kv_flag(r, "unresolved");
		return;
	}
	r->type = type_name(r, libbpf_bpf_prog_type_str(p->type), "prog",
			    p->type);
	if (!r->tag[0])
		set_tag(r, p->tag);
	if (p->flags & PD_F_OBJECT)
		kv_flag(r, "user-object");
	if (!load)
		return;
	if (p->flags & PD_F_SYNTHESISED)
		kv_flag(r, "synthesised");
	if (p->jited_len)
		kv_num(r, "jited", KV_U64, p->jited_len);
	if (p->xlated_len)
		kv_num(r, "xlated", KV_U64, p->xlated_len);
	if (p->nr_map_ids) {
		join(r->scratch[0], sizeof(r->scratch[0]), p->nr_map_ids,
		     p->map_ids, NULL);
		kv_str(r, "maps", r->scratch[0]);
	}
	if (p->btf_id)
		kv_num(r, "btf", KV_U64, p->btf_id);
	if (p->nr_func_names) {
		join(r->scratch[1], sizeof(r->scratch[1]), p->nr_func_names,
		     NULL, p->func_names);
		kv_str(r, "funcs", r->scratch[1]);
	}
	if (p->nr_lines)
		kv_num(r, "lines", KV_U64, p->nr_lines);
	if (p->origin.comm[0] || p->origin.pid || p->origin.uid)
		kv_num(r, "uid", KV_U64, p->origin.uid);
}

/*
 * A map's name and type, and on its creation what it holds: from the
 * description its record carries, else from the facts the file has.
 */
static void map_row(struct row *r, struct pd_reader *rd, bool create)
{
	const struct pd_map *m = pd_reader_map(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = m && !(m->flags & PD_F_UNRESOLVED);
	__u32 type = e->flags;	/* the record carries the map type */

	if (e->described) {
		r->name = e->desc.map.name;
	} else if (known) {
		type = m->type;
		r->name = m->name;
	}
	r->type = type_name(r, libbpf_bpf_map_type_str(type), "map", type);
	if (!known && !e->described) {
		kv_flag(r, "unresolved");
		return;
	}
	if (m && (m->flags & PD_F_OBJECT))
		kv_flag(r, "user-object");
	if (!create)
		return;
	if (m && (m->flags & PD_F_SYNTHESISED))
		kv_flag(r, "synthesised");
	if (e->described) {
		kv_num(r, "key", KV_U64, e->desc.map.key_size);
		kv_num(r, "value", KV_U64, e->desc.map.value_size);
		kv_num(r, "max_entries", KV_U64, e->desc.map.max_entries);
		kv_num(r, "flags", KV_HEX, e->desc.map.map_flags);
		if (e->desc.map.btf_id)
			kv_num(r, "btf", KV_U64, e->desc.map.btf_id);
		return;
	}
	kv_num(r, "key", KV_U64, m->key_size);
	kv_num(r, "value", KV_U64, m->value_size);
	kv_num(r, "max_entries", KV_U64, m->max_entries);
	kv_num(r, "flags", KV_HEX, m->map_flags);
	if (m->btf_id)
		kv_num(r, "btf", KV_U64, m->btf_id);
}

/*
 * The program a link record names (a LINK_UPDATE's old one first, and
 * "replace" when the caller named it, BPF_F_REPLACE), and the program's
 * expected attach type: 0 is cgroup_inet_ingress for a cgroup link, and
 * for the others the type they do not use.
 */
static void link_desc(struct row *r)
{
	const struct pd_bpf_event *e = &r->e->bpf;
	__u32 type = e->desc.link.attach_type;
	const char *attach = libbpf_bpf_attach_type_str(type);

	if (e->type == PERF_BPF_EVENT_LINK_UPDATE && r->e->old_prog_id)
		kv_num(r, "old_prog", KV_U64, r->e->old_prog_id);
	if (e->desc.link.prog_id)
		kv_num(r, "prog", KV_U64, e->desc.link.prog_id);
	if (e->type == PERF_BPF_EVENT_LINK_UPDATE && e->desc.link.old_prog_id)
		kv_flag(r, "replace");
	if (!type && e->flags != BPF_LINK_TYPE_CGROUP)
		return;
	if (attach)
		kv_str(r, "attach", attach);
	else
		kv_num(r, "attach", KV_U64, type);
}

/*
 * The link's type, the program of its records (a LINK_UPDATE's old one
 * first), and on its creation its target.
 */
static void link_row(struct row *r, struct pd_reader *rd, bool attach)
{
	const struct pd_link *l = pd_reader_link(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = l && !(l->flags & PD_F_UNRESOLVED);
	__u32 type = e->flags;	/* the record carries the link type */

	if (known && !e->described)
		type = l->type;
	r->type = type_name(r, libbpf_bpf_link_type_str(type), "link", type);
	if (!known && !e->described) {
		kv_flag(r, "unresolved");
		return;
	}
	if (l && (l->flags & PD_F_OBJECT))
		kv_flag(r, "user-object");
	if (attach && l && (l->flags & PD_F_SYNTHESISED))
		kv_flag(r, "synthesised");
	if (e->described)
		link_desc(r);
	else if (attach && l->prog_id)
		kv_num(r, "prog", KV_U64, l->prog_id);
	if (attach && known && l->target[0])
		kv_str(r, "target", l->target);
}

/* vmlinux's, a module's (named after it), or loaded with BPF_BTF_LOAD. */
static void btf_row(struct row *r, struct pd_reader *rd, bool load)
{
	const struct pd_btf *b = pd_reader_btf(rd, r->id);
	const struct pd_bpf_event *e = &r->e->bpf;
	bool known = b && !(b->flags & PD_F_UNRESOLVED);

	if (!(e->flags & PERF_BPF_EVENT_FLAG_BTF_KERNEL))
		kv_flag(r, "user");
	else if (e->flags & PERF_BPF_EVENT_FLAG_BTF_MODULE)
		kv_flag(r, "module");
	else
		kv_flag(r, "kernel");
	if (e->described && pd_bpf_btf_name(e)[0])
		r->name = pd_bpf_btf_name(e);
	else if (known && b->name[0])
		r->name = b->name;
	if (!known && !e->described) {
		kv_flag(r, "unresolved");
		return;
	}
	if (b && (b->flags & PD_F_OBJECT))
		kv_flag(r, "user-object");
	if (!load)
		return;
	if (b && (b->flags & PD_F_SYNTHESISED))
		kv_flag(r, "synthesised");
	if (e->described)
		kv_num(r, "size", KV_U64, e->desc.btf.size);
	else if (b->size)
		kv_num(r, "size", KV_U64, b->size);
}

/* The loader of an object's creation, or the task of any other record. */
static const struct pd_loader *row_loader(struct row *r, struct pd_reader *rd, enum pd_kind kind,
					  enum pd_bpf_change change)
{
	const struct pd_origin *o = NULL;
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;

	if (change != PD_BPF_CREATE)
		return r->e->has_sample ? pd_reader_loader_of(rd, r->e->sample.tid,
							      r->e->sample.time) : NULL;
	switch (kind) {
	case PD_PROG:
		o = (p = pd_reader_prog(rd, r->id)) ? &p->origin : NULL;
		break;
	case PD_MAP:
		o = (m = pd_reader_map(rd, r->id)) ? &m->origin : NULL;
		break;
	case PD_LINK:
		o = (l = pd_reader_link(rd, r->id)) ? &l->origin : NULL;
		break;
	default:
		o = (b = pd_reader_btf(rd, r->id)) ? &b->origin : NULL;
		break;
	}
	return o ? pd_reader_loader(rd, o->loader) : NULL;
}

/* Who did it (util/bpf_obj.h: pd_loader), how the record was learnt, what the program is. */
static void loader_row(struct row *r, struct pd_reader *rd, enum pd_kind kind,
		       enum pd_bpf_change change)
{
	const struct pd_bpf_event *e = &r->e->bpf;
	const struct pd_loader *d = row_loader(r, rd, kind, change);
	const struct pd_prog *p;
	__u64 seen;
	int i;

	if (e->marks & PD_BPF_EVENT_FLAG_CAPTURED)
		kv_flag(r, "captured");
	if (e->marks & PD_BPF_EVENT_FLAG_GONE) {
		memcpy(&seen, e->tag, sizeof(seen));
		kv_num(r, "gone_after", KV_U64, seen);
	}
	if (kind == PD_PROG && change == PD_BPF_CREATE && (p = pd_reader_prog(rd, r->id)) &&
	    (p->flags & PD_F_SHA256)) {
		for (i = 0; i < PD_SHA256_LEN; i++)
			snprintf(r->sha256 + 2 * i, 3, "%02x", p->sha256[i]);
		kv_str(r, "sha256", r->sha256);
	}
	if (!d)
		return;
	if (d->exe[0])
		kv_str(r, "exe", d->exe);
	kv_str(r, "cgroup", d->cgroup);
	kv_num(r, "cgroup_id", KV_U64, d->cgroup_id);
	kv_num(r, "gid", KV_U64, d->gid);
	if (d->loginuid != (__u32)-1)
		kv_num(r, "loginuid", KV_U64, d->loginuid);
	kv_num(r, "ppid", KV_U64, d->ppid);
	kv_str(r, "pcomm", d->pcomm);
}

static void bpf_row(struct row *r, struct pd_reader *rd)
{
	__u16 type = r->e->bpf.type;
	enum pd_bpf_change change;
	enum pd_kind kind;

	r->has_id = true;
	r->id = r->e->bpf.id;
	r->event = pd_bpf_event_name(type);
	if (!r->event) {
		snprintf(r->event_buf, sizeof(r->event_buf), "BPF_EVENT_%u", type);
		r->event = r->event_buf;
	}
	if (!pd_bpf_event_kind(type, &kind, &change)) {
		kv_num(r, "flags", KV_HEX, r->e->bpf.flags);
		return;
	}
	switch (kind) {
	case PD_PROG:
		prog_row(r, rd, change == PD_BPF_CREATE);
		break;
	case PD_MAP:
		map_row(r, rd, change == PD_BPF_CREATE);
		break;
	case PD_LINK:
		link_row(r, rd, change == PD_BPF_CREATE);
		break;
	default:
		btf_row(r, rd, change == PD_BPF_CREATE);
		break;
	}
	loader_row(r, rd, kind, change);
}

static void ksymbol_row(struct row *r)
{
	const struct tl_event *e = r->e;

	r->event = "KSYMBOL";
	r->name = e->ksymbol.name;
	switch (e->ksymbol.ksym_type) {
	case PERF_RECORD_KSYMBOL_TYPE_BPF:
		r->type = "bpf";
		break;
	case PERF_RECORD_KSYMBOL_TYPE_OOL:
		r->type = "ool";
		break;
	default:
		r->type = type_name(r, NULL, "ksym", e->ksymbol.ksym_type);
		break;
	}
	kv_num(r, "addr", KV_HEX, e->ksymbol.addr);
	kv_num(r, "len", KV_U64, e->ksymbol.len);
	if (e->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
		kv_flag(r, "unregister");
}

/*
 * The decoders of the output channels, by event: the file is read twice
 * (measure, print), their BTF parsed once.
 */
static struct outputs {
	struct output_decoder **dec;
	__u32 *map_id;
	bool *tried;
	size_t nr;
} outputs;

/* --decode's struct for @map, NULL when not named. */
static const struct script_args *the_args;

static const char *decode_as(const char *map, char *buf, size_t len)
{
	int i;

	for (i = 0; the_args && i < the_args->nr_decode; i++) {
		const char *eq = strchr(the_args->decode[i], '=');

		if ((size_t)(eq - the_args->decode[i]) == strlen(map) &&
		    !strncmp(the_args->decode[i], map, eq - the_args->decode[i])) {
			snprintf(buf, len, "%s", eq + 1);
			return buf;
		}
	}
	return NULL;
}

static const struct output_decoder *decoder(const struct timeline *tl, int event,
					    const char *map, size_t size, __u32 *map_id)
{
	char want[128];

	struct outputs *o = &outputs;

	if (!o->nr) {
		o->dec = calloc(tl->info->nr_events, sizeof(*o->dec));
		o->map_id = calloc(tl->info->nr_events, sizeof(*o->map_id));
		o->tried = calloc(tl->info->nr_events, sizeof(*o->tried));
		if (!o->dec || !o->map_id || !o->tried)
			return NULL;
		o->nr = tl->info->nr_events;
	}
	if (!o->tried[event]) {
		o->tried[event] = true;
		o->dec[event] = output_decoder_new(tl->reader, map, decode_as(map, want, sizeof(want)),
						   size, &o->map_id[event]);
	}
	*map_id = o->map_id[event];
	return o->dec[event];
}

static void outputs_free(void)
{
	size_t i;

	for (i = 0; i < outputs.nr; i++)
		output_decoder_free(outputs.dec[i]);
	free(outputs.dec);
	free(outputs.map_id);
	free(outputs.tried);
	memset(&outputs, 0, sizeof(outputs));
}

/* ---- samples of the sampled events: -e cpu-clock, tracepoints, off-CPU ---- */

/* the file being read: its tracing data and BPF images, its processes' mappings */
static struct sample_view view;
static struct intern user_paths;
static struct user_syms users = { .strs = &user_paths };

/* The view and the mappings of @tl's file, for one pass over it. */
static void view_open(struct timeline *tl, const char *kallsyms, char *warn, size_t len)
{
	tl->samples = true;
	tl->users = &users;
	sample_view_open(&view, tl->reader, kallsyms, warn, len);
}

static void view_close(void)
{
	sample_view_free(&view);
	user_syms_free(&users);
	intern_free(&user_paths);
}

/*
 * The symbol of @addr and the offset into it, NULL when unknown: kernel
 * and BPF addresses from the view, user ones from @pid's mappings.  A
 * return address (@ret) is named by its call, the byte before: a call
 * that never returns may end its function.  *@dso gets a user frame's
 * file, NULL otherwise.
 */
static const char *addr_sym(__u32 pid, __u64 addr, bool ret, __u64 *off, const char **dso)
{
	const struct umap *m;
	const char *sym;

	*dso = NULL;
	if (sample_view_where(&view, addr) != SV_USER)
		return sample_view_sym(&view, addr, off);
	m = user_syms_map(&users, pid, addr - ret);
	if (!m)
		return NULL;
	*dso = user_syms_path(&users, m);
	sym = user_syms_name(&users, m, addr - ret, off);
	if (sym)
		*off += ret;
	return sym;
}

static const char *const where_names[] = {
	[SV_USER] = "user", [SV_KERNEL] = "kernel", [SV_BPF] = "bpf",
};

static bool context_marker(__u64 ip);
static const char *frame_sym(const struct pd_sample *s, __u64 i, __u64 *off, const char **dso);

/* Where the sample hit (TYPE), its symbol (NAME), and what the event says. */
static void sample_row(struct row *r, const struct timeline *tl)
{
	const struct pd_event_info *ev = &tl->info->events[r->e->event];
	const struct pd_sample *s = &r->e->sample;
	struct trace_field f[MAX_DETAILS - 1];
	const char *dso;
	__u64 off;
	int i, n;

	sample_view_kernel_text(&view, tl->kernel_text);
	r->type = where_names[sample_view_where(&view, s->ip)];
	r->name = addr_sym(s->pid, s->ip, false, &off, &dso);
	kv_num(r, "ip", KV_HEX, s->ip);
	switch (sample_view_kind(ev)) {
	case SV_TRACEPOINT:
		r->event = "tracepoint";
		r->type = ev->name ? ev->name : "-";
		n = view.tep ? trace_fields_decode(view.tep, ev->attr.config, s->raw, s->raw_size,
						   f, MAX_DETAILS - 1, r->out, sizeof(r->out)) : -ENOENT;
		if (n < 0)
			kv_str(r, "fields", n == -ENOENT ? "(no format in the file)" : "(too short)");
		for (i = 0; i < n; i++) {
			if (f[i].is_num)
				kv_num(r, f[i].name, KV_U64, f[i].num);
			else
				kv_str(r, f[i].name, f[i].text);
		}
		break;
	case SV_OFFCPU:
		r->event = SV_OFFCPU_EVENT;
		kv_num(r, "off_cpu_ns", KV_U64, s->period);
		/* where the task waits: the first frame that is not the profiler's */
		for (i = 0; sv_profiler_frame(r->name) && i < (int)s->nr_callchain; i++) {
			if (context_marker(s->callchain[i]))
				continue;
			r->name = frame_sym(s, i, &off, &dso);
			r->type = where_names[sample_view_where(&view, s->callchain[i])];
		}
		break;
	default:
		r->event = ev->name ? ev->name : "sample";
		kv_num(r, "period", KV_U64, s->period);
		break;
	}
}

/* x86's callchain context markers (PERF_CONTEXT_*) are the top 4095 values */
static bool context_marker(__u64 ip)
{
	return ip >= (__u64)-4095;
}

/*
 * Frame @i of @s's stack: its symbol and offset (NULL when unknown) and,
 * for a user frame, its file.  Context markers (PERF_CONTEXT_*) give
 * NULL and *@dso NULL too; after one, the frame is where the sample was,
 * the next ones are return addresses.
 */
static const char *frame_sym(const struct pd_sample *s, __u64 i, __u64 *off, const char **dso)
{
	bool ret = i > 0 && !context_marker(s->callchain[i - 1]);

	if (context_marker(s->callchain[i])) {
		*dso = NULL;
		return NULL;
	}
	return addr_sym(s->pid, s->callchain[i], ret, off, dso);
}

static bool offcpu_row(const struct row *r)
{
	return r->event && !strcmp(r->event, SV_OFFCPU_EVENT);
}

/*
 * Off CPU, the leading kernel frames of the profiler's own handler
 * (*@lead while they come) are not the task's: left out, as report does.
 */
static bool profiler_frame(bool *lead, const char *sym, const char *dso)
{
	*lead = *lead && !dso && sv_profiler_frame(sym);
	return *lead;
}

/* The stack, perf's way: one frame a line, under its sample. */
static void print_callchain(const struct row *r)
{
	const struct pd_sample *s = &r->e->sample;
	bool lead = offcpu_row(r);
	unsigned long long addr;
	const char *sym, *dso;
	__u64 i, off;

	for (i = 0; i < s->nr_callchain; i++) {
		if (context_marker(s->callchain[i]))
			continue;
		sym = frame_sym(s, i, &off, &dso);
		if (profiler_frame(&lead, sym, dso))
			continue;
		addr = s->callchain[i];
		if (sym && dso)
			printf("\t%16llx %s+0x%llx (%s)\n", addr, sym, (unsigned long long)off,
			       user_syms_base_name(dso));
		else if (sym)
			printf("\t%16llx %s+0x%llx\n", addr, sym, (unsigned long long)off);
		else if (dso)
			printf("\t%16llx [%s]\n", addr, user_syms_base_name(dso));
		else
			printf("\t%16llx [%s]\n", addr,
			       where_names[sample_view_where(&view, s->callchain[i])]);
	}
}

/*
 * The stack as a JSON array of "symbol+0xoff" (kernel, BPF), "symbol+0xoff
 * (/path/of/file)" (user) or "0xaddress" (unknown); null when out of
 * memory.
 */
static void json_callchain(struct json *j, const struct row *r)
{
	const struct pd_sample *s = &r->e->sample;
	unsigned long long addr, o;
	char frame[768], *text = NULL;
	const char *sym, *dso;
	size_t len = 0;
	bool first = true;
	__u64 i, off;
	bool lead = offcpu_row(r);
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		json_raw(j, "callchain", "null");
		return;
	}
	fputc('[', f);
	for (i = 0; i < s->nr_callchain; i++) {
		if (context_marker(s->callchain[i]))
			continue;
		sym = frame_sym(s, i, &off, &dso);
		if (profiler_frame(&lead, sym, dso))
			continue;
		addr = s->callchain[i];
		o = off;
		if (sym && dso)
			snprintf(frame, sizeof(frame), "%.200s+0x%llx (%.500s)", sym, o, dso);
		else if (sym)
			snprintf(frame, sizeof(frame), "%.200s+0x%llx", sym, o);
		else
			snprintf(frame, sizeof(frame), "0x%llx", addr);
		if (!first)
			fputc(',', f);
		first = false;
		json_write_string(f, frame);
	}
	fputc(']', f);
	json_raw(j, "callchain", fclose(f) ? "null" : text);
	free(text);
}

/* Samples shown: the sampled events', and the user's objects' output. */
static bool shown(const struct timeline *tl, const struct tl_event *e)
{
	const char *map;

	return e->type != PERF_RECORD_SAMPLE ||
	       sample_view_kind(&tl->info->events[e->event]) != SV_NONE ||
	       output_channel(tl->info->events[e->event].name, &map);
}

/* What an object sent: its fields, or its bytes. */
static void output_row(struct row *r, const struct timeline *tl)
{
	const struct pd_sample *s = &r->e->sample;
	struct output_field f[MAX_DETAILS];
	const struct output_decoder *d;
	const char *map;
	int i, n = -1;

	r->event = output_channel(tl->info->events[r->e->event].name, &map);
	r->name = map;
	d = decoder(tl, r->e->event, map, s->raw_size, &r->id);
	r->has_id = r->id != 0;
	if (d)
		n = output_decode(d, s->raw, s->raw_size, f, MAX_DETAILS, r->out, sizeof(r->out));
	if (n < 0) {
		r->type = "raw";
		output_hex(s->raw, s->raw_size, r->out, sizeof(r->out));
		kv_str(r, "data", r->out);
		return;
	}
	snprintf(r->type_buf, sizeof(r->type_buf), "struct %s", output_decoder_struct(d));
	r->type = r->type_buf;
	for (i = 0; i < n; i++) {
		if (f[i].is_num)
			kv_num(r, f[i].name, KV_U64, f[i].num);
		else
			kv_str(r, f[i].name, f[i].str);
	}
}

static void build_row(struct row *r, const struct timeline *tl,
		      const struct tl_event *e)
{
	memset(r, 0, sizeof(*r));
	r->e = e;
	r->comm = timeline_comm(tl, e);
	r->self = timeline_self(tl, e);
	/* a sample of the idle task, which has no COMM record: perf calls it swapper */
	if (!r->comm && e->type == PERF_RECORD_SAMPLE && !e->sample.tid &&
	    sample_view_kind(&tl->info->events[e->event]) != SV_NONE)
		r->comm = "swapper";
	switch (e->type) {
	case PERF_RECORD_BPF_EVENT:
		bpf_row(r, tl->reader);
		break;
	case PERF_RECORD_KSYMBOL:
		ksymbol_row(r);
		sample_view_ksymbol(&view, &e->ksymbol);
		break;
	case PERF_RECORD_LOST:
		r->event = "LOST";
		kv_num(r, "lost", KV_U64, e->lost);
		break;
	case PERF_RECORD_SAMPLE:
		if (sample_view_kind(&tl->info->events[e->event]) != SV_NONE)
			sample_row(r, tl);
		else
			output_row(r, tl);
		break;
	}
	if (r->self)
		kv_flag(r, "self");
}

/*
 * Text columns whose values vary in length are as wide as their longest
 * value in the file, within bounds; a longer value is cut and ends in '~'.
 * COMM stays at 16: a task's comm is at most 15 characters (only /proc's
 * names of kernel threads are longer) and readers of the text rely on it.
 */
struct widths {
	int time, pidtid, comm, event, name, type;
};

static const struct widths min_widths = { 8, 7, 16, 12, 16, 20 };
/* names are as long as they are: fit_width() narrows them to the line */
static const struct widths max_widths = { 20, 23, 16, 16, 512, 64 };
/* what the columns leave to the details, at least, in a line that wraps */
#define DETAILS_ROOM	32
/* a wrapped line goes on after this */
#define WRAP_INDENT	"    "
#define CPU_WIDTH	5
#define ID_WIDTH	6
#define TAG_WIDTH	16

/* Text of a record (a comm, a name) as shown: control characters escaped. */
#define TEXT_LEN	1024

static const char *row_comm(const struct row *r)
{
	if (r->comm)
		return r->comm;
	/* no task is known: the recorder synthesised the record */
	return r->self ? TL_SELF_NAME : "-";
}

static const char *row_name(const struct row *r)
{
	return r->name && r->name[0] ? r->name : "-";
}

static const char *row_type(const struct row *r)
{
	return r->type ? r->type : "-";
}

static int widen(int width, int max, const char *s)
{
	int len = strlen(s);

	if (len > width)
		width = len < max ? len : max;
	return width;
}

/* The time, CPU and PID/TID columns of a row. */
struct where {
	char time[32], cpu[16], pidtid[32];
};

static void row_where(const struct row *r, struct where *wh)
{
	const struct pd_sample *s = &r->e->sample;

	if (!r->e->has_sample) {
		strcpy(wh->time, "-");
		strcpy(wh->cpu, "[-]");
		strcpy(wh->pidtid, "-/-");
		return;
	}
	timeline_time(s->time, wh->time, sizeof(wh->time));
	snprintf(wh->cpu, sizeof(wh->cpu), "[%03u]", s->cpu);
	snprintf(wh->pidtid, sizeof(wh->pidtid), "%u/%u", s->pid, s->tid);
}

static void fit_widths(struct widths *w, const struct row *r)
{
	char text[TEXT_LEN];
	struct where wh;

	row_where(r, &wh);
	w->time = widen(w->time, max_widths.time, wh.time);
	w->pidtid = widen(w->pidtid, max_widths.pidtid, wh.pidtid);
	w->comm = widen(w->comm, max_widths.comm, printable(row_comm(r), text, sizeof(text)));
	w->event = widen(w->event, max_widths.event, r->event);
	w->name = widen(w->name, max_widths.name, printable(row_name(r), text, sizeof(text)));
	w->type = widen(w->type, max_widths.type, printable(row_type(r), text, sizeof(text)));
}

/*
 * Within @width columns (and DETAILS_ROOM more when lines wrap, @room):
 * the name gives way first, then the type, down to their least widths.
 */
static void fit_width(struct widths *w, unsigned long width, bool room)
{
	int fixed = w->time + CPU_WIDTH + w->pidtid + w->comm + w->event + ID_WIDTH + w->name +
		    w->type + TAG_WIDTH + 9,
	    over = fixed + (room ? DETAILS_ROOM : 0) - (int)width, cut;

	if (!width || over <= 0)
		return;
	cut = w->name - min_widths.name < over ? w->name - min_widths.name : over;
	w->name -= cut;
	over -= cut;
	cut = w->type - min_widths.type < over ? w->type - min_widths.type : over;
	w->type -= cut;
}

/* A text line being built, cut at the width when printed. */
struct line {
	char buf[8192];
	size_t len;
};

static void __attribute__((format(printf, 2, 3))) put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof(l->buf) - l->len ? (size_t)n : sizeof(l->buf) - 1 - l->len;
}

/* @s, escaped, left-aligned in @width columns, cut in the middle to fit, then a space. */
static void put_col(struct line *l, const char *s, int width)
{
	char text[TEXT_LEN], cut[TEXT_LEN];

	printable(s, text, sizeof(text));
	put(l, "%-*s ", width, fit_cut(text, width, cut, sizeof(cut)));
}

/* The end of the text from @s to @end without its trailing spaces. */
static const char *trimmed(const char *s, const char *end)
{
	while (end > s && end[-1] == ' ')
		end--;
	return end;
}

/*
 * The line, wrapped at @width (0: never) at a space where there is one,
 * the rest on lines of their own after WRAP_INDENT: nothing is cut.
 */
static void put_line(struct line *l, unsigned long width)
{
	const unsigned long indent = sizeof(WRAP_INDENT) - 1;
	char *s = l->buf, *brk;
	unsigned long room = width;

	l->buf[l->len] = '\0';
	while (width > indent + 8 && strlen(s) > room) {
		for (brk = s + room; brk > s && *brk != ' '; brk--)
			;
		if (brk == s)
			brk = s + room;
		printf("%.*s\n%s", (int)(trimmed(s, brk) - s), s, WRAP_INDENT);
		/* the next line starts with text, not with a column's padding */
		for (s = brk; *s == ' '; s++)
			;
		room = width - indent;
	}
	puts(s);
}

static void print_text(const struct row *r, const struct widths *w, unsigned long width,
		       unsigned int f)
{
	char id[16], pid[16], text[TEXT_LEN];
	struct line l = {};
	struct where wh;
	int i;

	row_where(r, &wh);
	if (r->has_id)
		snprintf(id, sizeof(id), "%u", r->id);
	else
		strcpy(id, "-");
	if (f & 1U << F_TIME)
		put(&l, "%*s ", w->time, wh.time);
	if (f & 1U << F_CPU)
		put(&l, "%*s ", CPU_WIDTH, wh.cpu);
	if ((f & 1U << F_PID) && (f & 1U << F_TID))
		put(&l, "%*s ", w->pidtid, wh.pidtid);
	else if (f & (1U << F_PID | 1U << F_TID))
		put(&l, "%*s ", ID_WIDTH + 1, !r->e->has_sample ? "-" :
		    (snprintf(pid, sizeof(pid), "%u", f & 1U << F_PID ? r->e->sample.pid :
			      r->e->sample.tid), pid));
	if (f & 1U << F_COMM)
		put_col(&l, row_comm(r), w->comm);
	if (f & 1U << F_EVENT)
		put_col(&l, r->event, w->event);
	if (f & 1U << F_ID)
		put(&l, "%*s ", ID_WIDTH, id);
	if (f & 1U << F_NAME)
		put_col(&l, row_name(r), w->name);
	if (f & 1U << F_TYPE)
		put_col(&l, row_type(r), w->type);
	/* padded only when details follow: no line ends in spaces */
	if (f & 1U << F_TAG)
		put(&l, r->nr_kv && (f & 1U << F_DETAILS) ? "%-*s" : "%.*s", TAG_WIDTH,
		    r->tag[0] ? r->tag : "-");
	/* no line ends in spaces */
	if (!r->nr_kv || !(f & 1U << F_DETAILS))
		while (l.len && l.buf[l.len - 1] == ' ')
			l.len--;
	for (i = 0; (f & 1U << F_DETAILS) && i < r->nr_kv; i++) {
		const struct kv *kv = &r->kv[i];

		switch (kv->kind) {
		case KV_U64:
			put(&l, " %s=%llu", kv->key, (unsigned long long)kv->num);
			break;
		case KV_HEX:
			put(&l, " %s=0x%llx", kv->key, (unsigned long long)kv->num);
			break;
		case KV_STR:
			put(&l, " %s=%s", kv->key, printable(kv->str, text, sizeof(text)));
			break;
		case KV_FLAG:
			put(&l, " %s", kv->key);
			break;
		}
	}
	put_line(&l, width);
}

static void print_header(const struct widths *w, unsigned long width, unsigned int f)
{
	struct line l = {};

	put(&l, "#");
	if (f & 1U << F_TIME)
		put(&l, "%*s ", w->time - 1, "TIME");
	if (f & 1U << F_CPU)
		put(&l, "%*s ", CPU_WIDTH - (l.len == 1), "CPU");
	if ((f & 1U << F_PID) && (f & 1U << F_TID))
		put(&l, "%*s ", w->pidtid - (l.len == 1), "PID/TID");
	else if (f & (1U << F_PID | 1U << F_TID))
		put(&l, "%*s ", ID_WIDTH + 1 - (l.len == 1), f & 1U << F_PID ? "PID" : "TID");
	if (f & 1U << F_COMM)
		put(&l, "%-*s ", w->comm - (l.len == 1), "COMM");
	if (f & 1U << F_EVENT)
		put(&l, "%-*s ", w->event - (l.len == 1), "EVENT");
	if (f & 1U << F_ID)
		put(&l, "%*s ", ID_WIDTH - (l.len == 1), "ID");
	if (f & 1U << F_NAME)
		put(&l, "%-*s ", w->name - (l.len == 1), "NAME");
	if (f & 1U << F_TYPE)
		put(&l, "%-*s ", w->type - (l.len == 1), "TYPE");
	if (f & 1U << F_TAG)
		put(&l, "%-*s ", TAG_WIDTH - (l.len == 1), "TAG");
	if (f & 1U << F_DETAILS)
		put(&l, "DETAILS");
	while (l.len && l.buf[l.len - 1] == ' ')
		l.len--;
	put_line(&l, width);
}

/*
 * Like ps: into a terminal, lines fit it and are cut; into a pipe, the
 * columns fit DEFAULT_WIDTH and the details go on (a reader of the text
 * must have them whole).  --width says both.
 */
static void set_width(struct script_args *a)
{
	struct winsize ws;

	if (a->wide) {
		a->budget = a->cut = 0;
		return;
	}
	if (a->width_set) {
		a->budget = a->cut = a->width;
		return;
	}
	a->budget = DEFAULT_WIDTH;
	if (isatty(STDOUT_FILENO)) {
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
			a->budget = ws.ws_col;
		a->cut = a->budget;
	}
}

static int row_kind(const struct tl_event *e)
{
	enum pd_bpf_change change;
	enum pd_kind kind;

	switch (e->type) {
	case PERF_RECORD_KSYMBOL:
		return K_KSYMBOL;
	case PERF_RECORD_LOST:
		return K_LOST;
	case PERF_RECORD_SAMPLE:
		return K_OUTPUT;
	}
	return pd_bpf_event_kind(e->bpf.type, &kind, &change) ? (int)kind : K_NR;
}

/* Whether the user asked for row @r. */
static bool wanted(const struct script_args *a, const struct row *r)
{
	const struct tl_event *e = r->e;
	__u8 tag[BPF_TAG_SIZE];
	int i, kind = row_kind(e);

	/* a program's image: its PROG_LOAD or PROG_UNLOAD line says it */
	if (kind == K_KSYMBOL && !a->json && !a->ksymbol && !(a->kinds & (1U << K_KSYMBOL)) &&
	    timeline_prog_image(&e->ksymbol, tag, NULL))
		return false;
	if (a->kinds && (kind == K_NR || !(a->kinds & (1U << kind))))
		return false;
	if (a->nr_pids) {
		for (i = 0; i < a->nr_pids && (!e->has_sample || e->sample.pid != a->pids[i]); i++)
			;
		if (i == a->nr_pids)
			return false;
	}
	if (a->nr_comms) {
		for (i = 0; i < a->nr_comms && strcmp(row_comm(r), a->comms[i]); i++)
			;
		if (i == a->nr_comms)
			return false;
	}
	return true;
}

static void print_json(const struct row *r)
{
	const struct pd_sample *s = &r->e->sample;
	char buf[40];
	struct json j;
	int i;

	json_begin(&j, stdout);
	if (r->e->has_sample) {
		timeline_time(s->time, buf, sizeof(buf));
		json_raw(&j, "time", buf);
		json_u64(&j, "time_ns", s->time);
		json_u64(&j, "cpu", s->cpu);
		json_u64(&j, "pid", s->pid);
		json_u64(&j, "tid", s->tid);
	}
	if (r->comm)
		json_str(&j, "comm", r->comm);
	json_str(&j, "event", r->event);
	if (r->has_id)
		json_u64(&j, "id", r->id);
	if (r->name && r->name[0])
		json_str(&j, "name", r->name);
	if (r->type)
		json_str(&j, "type", r->type);
	if (r->tag[0])
		json_str(&j, "tag", r->tag);
	json_object(&j, "details");
	for (i = 0; i < r->nr_kv; i++) {
		const struct kv *kv = &r->kv[i];

		switch (kv->kind) {
		case KV_U64:
			json_u64(&j, kv->key, kv->num);
			break;
		case KV_HEX:
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)kv->num);
			json_str(&j, kv->key, buf);
			break;
		case KV_STR:
			json_str(&j, kv->key, kv->str);
			break;
		case KV_FLAG:
			json_bool(&j, kv->key, true);
			break;
		}
	}
	json_close(&j);
	if (r->e->type == PERF_RECORD_SAMPLE && r->e->sample.nr_callchain)
		json_callchain(&j, r);
	json_end(&j);
}

/* *@width raised until the cuts of the strings of @t are distinct. */
static int unique_width(const struct intern *t, int *width)
{
	const char **v = calloc(t->nr ? t->nr : 1, sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		v[i] = intern_str_get(t, i);
	*width = fit_unique_width(v, t->nr, *width);
	free(v);
	return 0;
}

/* The widest value of each text column over the file: a first reading. */
static int measure(const struct script_args *args, struct widths *w, char *err,
		   size_t errlen)
{
	struct intern names = {}, types = {};
	char warn[200], text[TEXT_LEN];
	struct timeline tl;
	struct tl_event e;
	struct row row;
	struct widths natural;
	__u32 id;
	int ret;

	if (timeline_open(&tl, args->input, err, errlen))
		return -EINVAL;
	view_open(&tl, args->kallsyms, warn, sizeof(warn));
	while ((ret = timeline_next(&tl, &e, err, errlen)) > 0) {
		if (!shown(&tl, &e))
			continue;
		build_row(&row, &tl, &e);
		if (!wanted(args, &row))
			continue;
		fit_widths(w, &row);
		/* the distinct names and types: their cuts must stay distinct */
		if (intern_str(&names, printable(row_name(&row), text, sizeof(text)), &id) ||
		    intern_str(&types, printable(row_type(&row), text, sizeof(text)), &id)) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			break;
		}
	}
	view_close();
	timeline_close(&tl);
	natural = *w;
	fit_width(w, args->budget, args->cut != 0);
	if (!ret && w->name < natural.name)
		ret = unique_width(&names, &w->name);
	if (!ret && w->type < natural.type)
		ret = unique_width(&types, &w->type);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	intern_free(&names);
	intern_free(&types);
	return ret;
}

/* The lines, streamed as the file is read in time order. */
static int print(const struct script_args *args, const struct widths *w, char *err,
		 size_t errlen)
{
	char warn[200] = "";
	struct timeline tl;
	struct tl_event e;
	struct row row;
	int ret;

	if (timeline_open(&tl, args->input, err, errlen))
		return -EINVAL;
	view_open(&tl, args->kallsyms, warn, sizeof(warn));
	if (warn[0])
		fprintf(stderr, "bpfrec script: warning: %s: %s\n", args->input, warn);
	if (!args->json)
		print_header(w, args->cut, args->fields);
	while ((ret = timeline_next(&tl, &e, err, errlen)) > 0) {
		if (!shown(&tl, &e))
			continue;
		build_row(&row, &tl, &e);
		if (!wanted(args, &row))
			continue;
		if (args->json) {
			print_json(&row);
		} else {
			print_text(&row, w, args->cut, args->fields);
			if (e.type == PERF_RECORD_SAMPLE && (args->fields & 1U << F_CALLCHAIN))
				print_callchain(&row);
		}
	}
	view_close();
	if (!ret && pd_reader_repaired(tl.reader))
		fprintf(stderr, "bpfrec script: %s: %llu oversized side-band records repaired (a stock kernel bug with several listeners)\n",
			args->input, (unsigned long long)pd_reader_repaired(tl.reader));
	if (!ret && pd_reader_warning(tl.reader))
		fprintf(stderr, "bpfrec script: warning: %s: %s\n", args->input,
			pd_reader_warning(tl.reader));
	timeline_close(&tl);
	return ret;
}

int cmd_script(int argc, char **argv)
{
	struct script_args args = {};
	struct argp argp = {
		.options = script_options,
		.parser = script_parse,
		.doc = script_doc,
		.children = script_children,
		.args_doc = "[FILE]",
	};
	struct widths w = min_widths;
	char err[300];

	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &args))
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	set_width(&args);
	the_args = &args;
	/* text columns fit the whole file: read it twice rather than keep it */
	if ((!args.json && measure(&args, &w, err, sizeof(err))) ||
	    print(&args, &w, err, sizeof(err))) {
		fprintf(stderr, "bpfrec script: %s: %s\n", args.input, err);
		outputs_free();
		return BPFREC_EXIT_ERROR;
	}
	outputs_free();
	if (fflush(stdout)) {
		perror("bpfrec script: stdout");
		return BPFREC_EXIT_ERROR;
	}
	return BPFREC_EXIT_OK;
}
