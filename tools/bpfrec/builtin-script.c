// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec script: one line per BPF lifecycle, KSYMBOL and LOST record and
 * per sample of a perf.data, in time order, as text or as JSON lines.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "util/bpf_disasm.h"
#include "util/fit.h"
#include "util/parse_num.h"
#include "util/perf_data/oversized.h"
#include "util/script_json.h"
#include "util/script_layout.h"
#include "util/script_row.h"
#include "util/timeline.h"

#define MAX_FILTER	16

/* -F's names, perf script's first: each the columns it shows. */
static const struct {
	const char *name;
	unsigned int fields;
} field_names[] = {
	{ "comm", 1U << SF_COMM }, { "tid", 1U << SF_TID }, { "pid", 1U << SF_PID },
	{ "time", 1U << SF_TIME }, { "cpu", 1U << SF_CPU }, { "event", 1U << SF_EVENT },
	{ "trace", 1U << SF_DETAILS }, { "period", 1U << SF_DETAILS },
	{ "ip", 1U << SF_CALLCHAIN }, { "sym", 1U << SF_NAME | 1U << SF_CALLCHAIN },
	{ "symoff", 1U << SF_NAME | 1U << SF_CALLCHAIN }, { "dso", 1U << SF_CALLCHAIN },
	{ "id", 1U << SF_ID }, { "name", 1U << SF_NAME }, { "type", 1U << SF_TYPE },
	{ "tag", 1U << SF_TAG }, { "details", 1U << SF_DETAILS },
};

#define NR_FIELD_NAMES	(sizeof(field_names) / sizeof(field_names[0]))

struct script_args {
	const char *input;
	unsigned int fields;		/* -F: enum script_field bits */
	bool wide;			/* --wide: names never cut */
	char *decode[MAX_FILTER];	/* --decode MAP=STRUCT, split at '=' */
	int nr_decode;
	bool json;
	bool ksymbol;			/* programs' images too */
	const char *kallsyms;		/* --kallsyms: the recording machine's */
	unsigned int kinds;		/* 1 << enum pd_kind or SR_*; 0: all */
	__u32 pids[MAX_FILTER];
	int nr_pids;
	char comms[MAX_FILTER][64];
	int nr_comms;
	unsigned long width;		/* --width: 0, lines are never cut */
	bool width_set;
	unsigned long budget;		/* the columns fit this width */
	unsigned long cut;		/* lines are cut there (0: never) */
	bool dump;			/* --dump ID: a program's instructions */
	__u32 dump_id;
};

enum { OPT_JSON = 0x100, OPT_KSYMBOL, OPT_KINDS, OPT_PID, OPT_COMM, OPT_WIDTH, OPT_WIDE,
       OPT_DECODE, OPT_KALLSYMS, OPT_DUMP };

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
	{ "dump", OPT_DUMP, "ID", 0,
	  "Print the xlated instructions of program ID the file kept (record --keep-insns), "
	  "as bpftool prog dump xlated does", 0 },
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
	"a pipe, the columns fit 160 and the details go on whole (--width);\n"
	"either way, the columns leave room for the details of objects' lines.\n"
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
	"A PROG_LOAD shows the program's bpf_metadata_* variables as perf prints\n"
	"them (metadata.NAME=VALUE; in --json, a \"metadata\" object of strings),\n"
	"read at load however briefly the program lived.  --dump ID prints the\n"
	"instructions of program ID that 'bpfrec record --keep-insns' kept, one a\n"
	"line as 'bpftool prog dump xlated' prints them (helpers by number).\n"
	"\n"
	"Examples:\n"
	"  bpfrec script\n"
	"  bpfrec script -i /tmp/bpf.data\n"
	"  bpfrec script -i /tmp/bpf.data --json | jq 'select(.event == \"PROG_LOAD\")'\n"
	"  bpfrec script --kinds prog,map --comm execsnoop\n"
	"  perf record -e cpu-clock -o - -- ./loader | bpfrec script -i -\n"
	"  bpfrec script --json | jq 'select(.details.metadata) | .details.metadata'\n"
	"  bpfrec record --keep-insns -- ./loader && bpfrec script --dump 42\n"
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
		for (k = 0; k < SR_NR_KINDS && strcmp(tok, script_row_kind_name(k)); k++)
			;
		if (k == SR_NR_KINDS)
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
	a->fields = rel ? SF_ALL : 0;
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
		a->fields = SF_ALL;
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
	case OPT_DUMP: {
		unsigned long id;

		if (parse_ulong(arg, &id) || !id || id > 0xffffffffUL)
			return cmd_usage_error(state, "--dump wants a program id, not '%s'", arg);
		a->dump = true;
		a->dump_id = id;
		break;
	}
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

/* Whether the user asked for row @r. */
static bool wanted(const struct script_args *a, const struct script_row *r)
{
	const struct tl_event *e = r->e;
	__u8 tag[BPF_TAG_SIZE];
	int i, kind = script_row_kind(e);

	/* a program's image: its PROG_LOAD or PROG_UNLOAD line says it */
	if (kind == SR_KSYMBOL && !a->json && !a->ksymbol && !(a->kinds & (1U << SR_KSYMBOL)) &&
	    timeline_prog_image(&e->ksymbol, tag, NULL))
		return false;
	if (a->kinds && (kind == SR_NR_KINDS || !(a->kinds & (1U << kind))))
		return false;
	if (a->nr_pids) {
		for (i = 0; i < a->nr_pids && (!e->has_sample || e->sample.pid != a->pids[i]); i++)
			;
		if (i == a->nr_pids)
			return false;
	}
	if (a->nr_comms) {
		for (i = 0; i < a->nr_comms && strcmp(script_row_comm(r), a->comms[i]); i++)
			;
		if (i == a->nr_comms)
			return false;
	}
	return true;
}
/* The next row the user wants, from @tl: 1, or 0 at the end, or a negative errno. */
static int next_row(const struct script_args *args, struct script_rows *rs, struct timeline *tl,
		    struct tl_event *e, struct script_row *row, char *err, size_t errlen)
{
	int ret;

	while ((ret = timeline_next(tl, e, err, errlen)) > 0) {
		if (!script_row_shown(tl, e))
			continue;
		script_row_build(rs, row, tl, e);
		if (wanted(args, row))
			return 1;
	}
	return ret;
}

/* The widest value of each text column over the file: a first reading. */
static int measure(const struct script_args *args, struct script_rows *rs,
		   struct script_widths *w, char *err, size_t errlen)
{
	struct script_measure m;
	struct script_row row;
	struct timeline tl;
	struct tl_event e;
	char warn[200];
	int ret;

	if (timeline_open(&tl, args->input, err, errlen))
		return -EINVAL;
	script_measure_init(&m);
	script_rows_open(rs, &tl, args->kallsyms, warn, sizeof(warn));
	while ((ret = next_row(args, rs, &tl, &e, &row, err, errlen)) > 0) {
		ret = script_measure_row(&m, &row);
		if (ret)
			break;
	}
	script_rows_close(rs);
	timeline_close(&tl);
	if (!ret)
		ret = script_measure_fit(&m, args->budget, args->cut != 0);
	*w = m.w;
	script_measure_free(&m);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

/* The lines, streamed as the file is read in time order. */
static int print(const struct script_args *args, struct script_rows *rs,
		 const struct script_widths *w, char *err, size_t errlen)
{
	char warn[200] = "";
	struct script_row row;
	struct timeline tl;
	struct tl_event e;
	int ret;

	if (timeline_open(&tl, args->input, err, errlen))
		return -EINVAL;
	script_rows_open(rs, &tl, args->kallsyms, warn, sizeof(warn));
	if (warn[0])
		fprintf(stderr, "bpfrec script: warning: %s: %s\n", args->input, warn);
	if (!args->json)
		script_print_header(w, args->cut, args->fields);
	while ((ret = next_row(args, rs, &tl, &e, &row, err, errlen)) > 0) {
		if (args->json) {
			script_print_json(rs, &row);
		} else {
			script_print_text(&row, w, args->cut, args->fields);
			if (e.type == PERF_RECORD_SAMPLE && (args->fields & 1U << SF_CALLCHAIN))
				script_print_callchain(rs, &row);
		}
	}
	script_rows_close(rs);
	if (!ret && pd_reader_repaired(tl.reader))
		fprintf(stderr, "bpfrec script: %s: %llu oversized side-band records repaired (a stock kernel bug with several listeners)\n",
			args->input, (unsigned long long)pd_reader_repaired(tl.reader));
	if (!ret && pd_reader_warning(tl.reader))
		fprintf(stderr, "bpfrec script: warning: %s: %s\n", args->input,
			pd_reader_warning(tl.reader));
	timeline_close(&tl);
	return ret;
}

/* --dump ID: the instructions the file kept of program ID. */
static int dump_insns(const struct script_args *a)
{
	struct pd_reader *r;
	char err[300];
	size_t len;
	void *insns;
	int ret;

	r = pd_reader_open(a->input, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "bpfrec script: %s: %s\n", a->input, err);
		return BPFREC_EXIT_ERROR;
	}
	ret = pd_reader_prog_insns(r, a->dump_id, &insns, &len);
	pd_reader_close(r);
	if (ret == -ENOENT) {
		fprintf(stderr, "bpfrec script: %s: no instructions of program %u (record --keep-insns keeps them)\n",
			a->input, a->dump_id);
		return BPFREC_EXIT_ERROR;
	}
	if (ret) {
		fprintf(stderr, "bpfrec script: %s: the instructions of program %u: %s\n", a->input,
			a->dump_id, ret == -EINVAL ? "not whole in the file" : strerror(-ret));
		return BPFREC_EXIT_ERROR;
	}
	bpf_disasm_print(stdout, insns, len / sizeof(struct bpf_insn));
	free(insns);
	if (fflush(stdout)) {
		perror("bpfrec script: stdout");
		return BPFREC_EXIT_ERROR;
	}
	return BPFREC_EXIT_OK;
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
	struct script_widths w = {};
	struct script_rows rs;
	char err[300];
	int ret;

	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &args))
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	if (args.dump)
		return dump_insns(&args);
	script_output_width(args.wide, args.width_set, args.width, &args.budget, &args.cut);
	script_rows_init(&rs, args.decode, args.nr_decode);
	/* text columns fit the whole file: read it twice rather than keep it */
	ret = (!args.json && measure(&args, &rs, &w, err, sizeof(err))) ||
	      print(&args, &rs, &w, err, sizeof(err));
	script_rows_free(&rs);
	if (ret) {
		fprintf(stderr, "bpfrec script: %s: %s\n", args.input, err);
		return BPFREC_EXIT_ERROR;
	}
	if (fflush(stdout)) {
		perror("bpfrec script: stdout");
		return BPFREC_EXIT_ERROR;
	}
	return BPFREC_EXIT_OK;
}
