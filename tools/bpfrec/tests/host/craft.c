// SPDX-License-Identifier: GPL-2.0
/*
 * Crafted perf.data files for tests/host/security.sh: each what a file
 * from anywhere could hold to make bpfrec script or report, run as root,
 * read past its buffers, hang, print escape sequences, or take memory
 * without bound.  Written with bpfrec's own writer, then bent.
 *
 *   craft btf-type FILE      BTF output whose struct names a type that does not exist
 *   craft btf-size FILE      a member far larger than its struct, a typedef loop
 *   craft btf-names FILE     member names with ESC and a C1 control
 *   craft dataloc FILE       a __data_loc string pointing past the record, and
 *                            a char array without its NUL at the record's end
 *   craft tp-names FILE      a tracepoint field named with ESC and a C1 control
 *   craft mmap FILE PATH     a sample in a mapping of PATH (a FIFO, a device)
 *   craft comm FILE          a task named with ESC and C1 controls, sampled
 *   craft bomb FILE MIB      MIB MiB of samples in zstd-compressed records of a
 *                            few KiB, without a FINISHED_ROUND
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <zstd.h>
#include "util/perf_data/perf_data.h"
#include "tests/lib/tracing_data.h"

#define MAP_ID		7
#define PROG_ID		3
#define BTF_ID		5
#define TP_ID		1234

static const __u64 side_ids[1] = { 100 };
static const __u64 ev_ids[1] = { 200 };

static struct perf_event_attr side_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.sample_id_all = 1, .bpf_event = 1, .comm = 1, .mmap = 1,
	};
}

static struct perf_event_attr sample_attr(__u32 type, __u64 config, __u64 extra)
{
	return (struct perf_event_attr){
		.type = type, .size = sizeof(struct perf_event_attr), .config = config,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | extra,
		.sample_id_all = 1,
	};
}

static int open_two(struct pd_writer **w, const char *file, struct perf_event_attr *ev,
		    const char *name)
{
	struct perf_event_attr side = side_attr();
	struct pd_event evs[2] = {
		{ .attr = &side, .name = "bpf-events", .ids = side_ids, .nr_ids = 1 },
		{ .attr = ev, .name = name, .ids = ev_ids, .nr_ids = 1 },
	};
	struct pd_writer_config cfg = { .events = evs, .nr_events = 2 };

	return pd_writer_open(w, file, &cfg);
}

/* ---- BTF of a user object's output ---------------------------------------- */

enum btf_kind { BTF_BAD_TYPE, BTF_BAD_SIZE, BTF_NAMES };

static struct btf *crafted_btf(enum btf_kind k)
{
	struct btf *btf = btf__new_empty();
	int u32, chr, big, td1, td2;

	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	chr = btf__add_int(btf, "char", 1, BTF_INT_CHAR);
	big = btf__add_array(btf, u32, chr, 1 << 20);
	/* two typedefs naming each other */
	td1 = btf__add_typedef(btf, "loop_a", u32);
	td2 = btf__add_typedef(btf, "loop_b", td1);
	btf__add_struct(btf, "rec", 8);
	switch (k) {
	case BTF_BAD_TYPE:
		btf__add_field(btf, "pid", u32, 0, 0);
		btf__add_field(btf, "gone", 1000, 32, 0);
		break;
	case BTF_BAD_SIZE:
		btf__add_field(btf, "pid", u32, 0, 0);
		btf__add_field(btf, "text", big, 32, 0);
		btf__add_field(btf, "loop", td2, 0, 0);
		/* loop_a -> loop_b -> loop_a */
		((struct btf_type *)btf__type_by_id(btf, td1))->type = td2;
		break;
	case BTF_NAMES:
		btf__add_field(btf, "\033[2Jclear", u32, 0, 0);
		btf__add_field(btf, "csi\302\233x", u32, 32, 0);
		break;
	}
	return btf;
}

static int write_btf(const char *file, enum btf_kind k)
{
	struct perf_event_attr out = sample_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,
						 PERF_SAMPLE_RAW);
	struct btf *btf = crafted_btf(k);
	__u32 map_ids[1] = { MAP_ID };
	struct pd_map m = { .id = MAP_ID, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			    .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .name = "rec" };
	struct pd_prog p = { .id = PROG_ID, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			     .name = "sender", .btf_id = BTF_ID, .nr_map_ids = 1,
			     .map_ids = map_ids };
	struct pd_btf b = { .id = BTF_ID, .flags = PD_F_OBJECT | PD_F_CAPTURED };
	__u32 rec[2] = { 42, 0x41414141 };
	struct pd_sample s = { .pid = 42, .tid = 42, .time = 1000, .id = ev_ids[0],
			       .raw = rec, .raw_size = sizeof(rec) };
	struct pd_writer *w;
	int err;

	if (!btf)
		return -ENOMEM;
	b.data = (void *)btf__raw_data(btf, &b.data_len);
	err = open_two(&w, file, &out, "bpf-output:rec");
	if (err)
		return err;
	err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	if (!err)
		err = pd_writer_add_map(w, &m);
	if (!err)
		err = pd_writer_add_prog(w, &p);
	if (!err)
		err = pd_writer_add_btf(w, &b);
	if (!err)
		err = pd_write_finished_round(w);
	err = pd_writer_close(w) ?: err;
	btf__free(btf);
	return err;
}

/* ---- tracepoints ------------------------------------------------------------ */

static const char tp_format[] =
	TRACING_TP_HEAD
	"\tfield:__data_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char name[4];\toffset:12;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"msg=%s name=%s\", __get_str(msg), REC->name\n";

/*
 * The field msg named with ESC and CSI in UTF-8 instead: libtraceevent
 * takes a name in quotes through __attribute__("...").
 */
static const char tp_names_format[] =
	TRACING_TP_HEAD
	"\tfield:unsigned int __attribute__(\"\033[2J\xc2\x9bmsg\");\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char name[4];\toffset:12;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"name=%s\", REC->name\n";

static int write_tracepoint(const char *file, const char *format)
{
	struct perf_event_attr tp = sample_attr(PERF_TYPE_TRACEPOINT, TP_ID, PERF_SAMPLE_RAW);
	/* the slot says 200 bytes at offset 12, in a record of 16 */
	struct {
		__u16 common_type;
		__u8 flags, preempt;
		__s32 pid;
		__u32 msg_loc;
		char name[4];
	} __attribute__((packed)) raw = {
		.common_type = TP_ID, .pid = 7, .msg_loc = (200u << 16) | 12,
		.name = { 'A', 'B', 'C', 'D' },
	};
	struct pd_sample s = { .pid = 7, .tid = 7, .time = 1000, .id = ev_ids[0],
			       .ip = 0xffffffff81000100ULL, .period = 1,
			       .raw = &raw, .raw_size = sizeof(raw) };
	struct pd_writer *w;
	struct blob b = {};
	int err;

	tracing_data_craft(&b, format, "");
	err = open_two(&w, file, &tp, "test:tp");
	if (err)
		return err;
	pd_writer_give_tracing_data(w, b.p, b.len);
	err = pd_write_sample(w, PERF_RECORD_MISC_KERNEL, &s);
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

/* ---- user mappings and names ------------------------------------------------ */

static int write_mmap(const char *file, const char *path)
{
	struct perf_event_attr clock = sample_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
						   PERF_SAMPLE_CALLCHAIN);
	__u64 chain[] = { PERF_CONTEXT_USER, 0x400100, 0x400200 };
	struct pd_mmap2 m = { .pid = 7, .tid = 7, .start = 0x400000, .len = 0x1000,
			      .prot = 5, .flags = 2, .filename = path };
	struct pd_sample s = { .pid = 7, .tid = 7, .time = 1000, .id = side_ids[0] };
	struct pd_writer *w;
	int err;

	err = open_two(&w, file, &clock, "cpu-clock");
	if (err)
		return err;
	err = pd_write_comm(w, 7, 7, "victim", false, &s);
	if (!err)
		err = pd_write_mmap2(w, &m, PERF_RECORD_MISC_USER, &s);
	s = (struct pd_sample){ .pid = 7, .tid = 7, .time = 2000, .id = ev_ids[0],
				.ip = 0x400100, .period = 1000, .callchain = chain,
				.nr_callchain = 3 };
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

static int write_comm(const char *file)
{
	struct perf_event_attr clock = sample_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0);
	struct pd_sample s = { .pid = 7, .tid = 7, .time = 1000, .id = side_ids[0] };
	struct pd_writer *w;
	int err, i;

	err = open_two(&w, file, &clock, "cpu-clock");
	if (err)
		return err;
	/* ESC, a raw C1 CSI, a UTF-8 C1 CSI */
	err = pd_write_comm(w, 7, 7, "\033]0;x\007\233\302\233", true, &s);
	for (i = 0; !err && i < 10; i++) {
		s = (struct pd_sample){ .pid = 7, .tid = 7, .time = 2000 + i, .id = ev_ids[0],
					.ip = 0x400100, .period = 1000 };
		err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	}
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

/* ---- a decompression and queue bomb ----------------------------------------- */

/*
 * One sample record of sample_attr()'s layout with PERF_SAMPLE_RAW, as
 * the file holds it: IDENTIFIER, IP, TID, TIME, CPU, PERIOD, then 64 KiB
 * of zeros, the most a record holds (few records: the test reads fast).
 */
#define BOMB_RAW	65468
#define BOMB_RECORD	(8 + 48 + 4 + BOMB_RAW)

static size_t sample_record(__u64 time, __u8 *out)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = PERF_RECORD_MISC_USER, .size = BOMB_RECORD };
	__u64 body[6] = { ev_ids[0], 0x400100, 7 | (7ULL << 32), time, 0, 1000 };
	__u32 raw = BOMB_RAW;

	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), body, sizeof(body));
	memcpy(out + sizeof(h) + sizeof(body), &raw, sizeof(raw));
	memset(out + sizeof(h) + sizeof(body) + sizeof(raw), 0, BOMB_RAW);
	return h.size;
}

/*
 * Compressed bytes in COMPRESSED records of at most 60000 bytes.  The
 * writer takes records of a multiple of 8 bytes, and the reader feeds
 * all of a record to zstd: the stream is padded to a multiple of 8 with
 * a skippable frame (magic, size, bytes).
 */
static int emit_compressed(struct pd_writer *w, struct blob *z)
{
	static __u8 rec[65536] __attribute__((aligned(8)));
	struct perf_event_header *h = (void *)rec;
	__u32 skip[2] = { 0x184d2a50, 0 };
	size_t n, off = 0;
	int err;

	skip[1] = (8 - z->len % 8) % 8;
	blob_put(z, skip, sizeof(skip));
	blob_put(z, "\0\0\0\0\0\0\0", skip[1]);
	while (off < z->len) {
		n = z->len - off < 60000 ? z->len - off : 60000;
		h->type = 81;	/* PERF_RECORD_COMPRESSED */
		h->misc = 0;
		h->size = sizeof(*h) + n;
		memcpy(h + 1, z->p + off, n);
		err = pd_write_raw(w, h);
		if (err)
			return err;
		off += n;
	}
	return 0;
}

static int write_bomb(const char *file, unsigned long mib)
{
	struct perf_event_attr clock = sample_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
						   PERF_SAMPLE_RAW);
	static __u8 chunk[1 << 20], zout[1 << 17];
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t used = 0, n;
	struct pd_writer *w;
	unsigned long i;
	int err;

	/* the same samples, chunk after chunk: they compress to nothing */
	while (used + BOMB_RECORD <= sizeof(chunk))
		used += sample_record(1000, chunk + used);
	err = open_two(&w, file, &clock, "cpu-clock");
	if (err)
		return err;
	ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 3);
	/* a frame per MiB, as perf's records hold a drain each */
	for (i = 0; !err && i < mib; i++) {
		struct blob zs = {};

		n = ZSTD_compress2(z, zout, sizeof(zout), chunk, used);
		if (ZSTD_isError(n)) {
			err = -EINVAL;
			break;
		}
		blob_put(&zs, zout, n);
		err = emit_compressed(w, &zs);
		free(zs.p);
	}
	ZSTD_freeCCtx(z);
	return pd_writer_close(w) ?: err;
}

int main(int argc, char **argv)
{
	const char *what = argc > 2 ? argv[1] : "", *file = argc > 2 ? argv[2] : NULL;
	int err;

	if (!strcmp(what, "btf-type"))
		err = write_btf(file, BTF_BAD_TYPE);
	else if (!strcmp(what, "btf-size"))
		err = write_btf(file, BTF_BAD_SIZE);
	else if (!strcmp(what, "btf-names"))
		err = write_btf(file, BTF_NAMES);
	else if (!strcmp(what, "dataloc"))
		err = write_tracepoint(file, tp_format);
	else if (!strcmp(what, "tp-names"))
		err = write_tracepoint(file, tp_names_format);
	else if (!strcmp(what, "mmap") && argc > 3)
		err = write_mmap(file, argv[3]);
	else if (!strcmp(what, "comm"))
		err = write_comm(file);
	else if (!strcmp(what, "bomb") && argc > 3)
		err = write_bomb(file, strtoul(argv[3], NULL, 0));
	else {
		fprintf(stderr, "usage: craft btf-type|btf-size|btf-names|dataloc|tp-names|comm FILE, craft mmap FILE PATH, craft bomb FILE MIB\n");
		return 2;
	}
	if (err)
		fprintf(stderr, "craft %s %s: %s\n", what, file, strerror(-err));
	return !!err;
}
