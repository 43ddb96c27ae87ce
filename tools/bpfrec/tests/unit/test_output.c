// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of what `bpfrec script` shows of the user's objects' output
 * (util/output_decode.c): a file with a bpf-output and a ringbuf event,
 * the facts `record --object` stores (a map and its program marked
 * PD_F_OBJECT, the object's BTF), records decoded field by field with the
 * struct named after their map (or its singular), a record too short for
 * it and a map without a struct shown in hex, and the lines script prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "builtin.h"
#include "tests/unit/unit.h"
#include "util/output_decode.h"
#include "util/perf_data/perf_data.h"

#define MAP_REC		7
#define MAP_OTHER	8
#define MAP_RECS	9
#define PROG_ID		3
#define BTF_ID		5

static const __u64 side_ids[1] = { 100 };
static const __u64 out_ids[1] = { 200 };
static const __u64 rb_ids[1] = { 300 };

/* The record as the BPF side lays it out: 24 bytes. */
struct rec {
	__u32 pid;
	__s32 delta;
	__u8 flag;
	__u8 pad[3];
	__u32 mode;
	char comm[8];
};

static struct btf *rec_btf(void)
{
	struct btf *btf = btf__new_empty();
	int u32, s32, chr, bln, u8, arr, pad, mode, st;

	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	s32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	chr = btf__add_int(btf, "char", 1, BTF_INT_CHAR);
	bln = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	u8 = btf__add_int(btf, "unsigned char", 1, 0);
	mode = btf__add_enum(btf, "mode", 4);
	btf__add_enum_value(btf, "OFF", 0);
	btf__add_enum_value(btf, "LOUD", 2);
	arr = btf__add_array(btf, u32, chr, 8);
	/* every type first: a new type ends the struct's members */
	pad = btf__add_array(btf, u32, u8, 3);
	st = btf__add_struct(btf, "rec", sizeof(struct rec));
	btf__add_field(btf, "pid", u32, 0, 0);
	btf__add_field(btf, "delta", s32, 32, 0);
	btf__add_field(btf, "flag", bln, 64, 0);
	btf__add_field(btf, "pad", pad, 72, 0);
	btf__add_field(btf, "mode", mode, 96, 0);
	btf__add_field(btf, "comm", arr, 128, 0);
	return st > 0 ? btf : NULL;
}

static struct perf_event_attr output_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW,
		.sample_id_all = 1,
	};
}

static int write_file(const char *file, struct btf *btf)
{
	struct perf_event_attr side = sideband_attr(), out = output_attr();
	struct pd_event evs[3] = {
		{ .attr = &side, .name = "bpf-events", .ids = side_ids, .nr_ids = 1 },
		{ .attr = &out, .name = "bpf-output:rec", .ids = out_ids, .nr_ids = 1 },
		{ .attr = &out, .name = "ringbuf:other", .ids = rb_ids, .nr_ids = 1 },
	};
	struct pd_writer_config cfg = { .events = evs, .nr_events = 3 };
	struct rec r = { .pid = 42, .delta = -5, .flag = 1, .mode = 2, .comm = "abc" };
	__u32 map_ids[3] = { MAP_REC, MAP_OTHER, MAP_RECS };
	struct pd_map m = { .id = MAP_REC, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			    .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .name = "rec" };
	struct pd_map o = { .id = MAP_OTHER, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			    .type = BPF_MAP_TYPE_RINGBUF, .name = "other" };
	/* a map named in the plural of its records' struct */
	struct pd_map ms = { .id = MAP_RECS, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			     .type = BPF_MAP_TYPE_PERF_EVENT_ARRAY, .name = "recs" };
	struct pd_prog p = { .id = PROG_ID, .flags = PD_F_OBJECT | PD_F_CAPTURED,
			     .name = "sender", .btf_id = BTF_ID, .nr_map_ids = 3,
			     .map_ids = map_ids };
	struct pd_btf b = { .id = BTF_ID, .flags = PD_F_OBJECT | PD_F_CAPTURED };
	struct pd_sample s = { .pid = 42, .tid = 42, .time = 1000, .cpu = 0 };
	struct pd_writer *w;
	__u8 bytes[4] = { 0xde, 0xad, 0xbe, 0xef };
	int err;

	b.data = (void *)btf__raw_data(btf, &b.data_len);
	err = pd_writer_open(&w, file, &cfg);
	if (err)
		return err;
	s.id = out_ids[0];
	s.raw = &r;
	s.raw_size = sizeof(r);
	err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	/* one too short for struct rec: in hex */
	s.time = 2000;
	s.raw_size = 8;
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	s.time = 3000;
	s.id = rb_ids[0];
	s.raw = bytes;
	s.raw_size = sizeof(bytes);
	if (!err)
		err = pd_write_sample(w, PERF_RECORD_MISC_USER, &s);
	if (!err)
		err = pd_writer_add_map(w, &m);
	if (!err)
		err = pd_writer_add_map(w, &o);
	if (!err)
		err = pd_writer_add_map(w, &ms);
	if (!err)
		err = pd_writer_add_prog(w, &p);
	if (!err)
		err = pd_writer_add_btf(w, &b);
	if (!err)
		err = pd_write_finished_round(w);
	return pd_writer_close(w) ?: err;
}

static void test_decoder(const char *file)
{
	struct rec r = { .pid = 42, .delta = -5, .flag = 1, .mode = 2, .comm = "a b\001" };
	struct output_field f[16];
	struct output_decoder *d;
	struct pd_reader *rd;
	const char *map;
	char err[200], buf[512], hex[16];
	__u32 id = 0;
	int n;

	CHECK(!strcmp(output_channel("bpf-output:rec", &map), "bpf-output") &&
	      !strcmp(map, "rec"), "bpf-output:M is channel bpf-output of map M");
	CHECK(!strcmp(output_channel("ringbuf:other", &map), "ringbuf") &&
	      !strcmp(map, "other"), "ringbuf:M is channel ringbuf of map M");
	CHECK(!output_channel("cpu-clock", &map) && !output_channel(NULL, &map),
	      "other events are no channel");
	rd = pd_reader_open(file, err, sizeof(err));
	if (!CHECK(rd, "the file opens: %s", rd ? "" : err))
		return;
	d = output_decoder_new(rd, "rec", NULL, 0, &id);
	CHECK(d && id == MAP_REC, "map rec: a decoder from its program's BTF, id %u", id);
	if (d) {
		n = output_decode(d, &r, sizeof(r), f, 16, buf, sizeof(buf));
		CHECK(n == 6, "6 fields (%d)", n);
		CHECK(n == 6 && !strcmp(f[0].name, "pid") && f[0].is_num && f[0].num == 42,
		      "pid: a number, 42");
		CHECK(n == 6 && !strcmp(f[1].name, "delta") && !f[1].is_num &&
		      !strcmp(f[1].str, "-5"), "delta: signed, -5");
		CHECK(n == 6 && !strcmp(f[2].str, "true"), "flag: a bool, true");
		CHECK(n == 6 && !strcmp(f[3].name, "pad") && !strcmp(f[3].str, ""),
		      "pad: unsigned chars as text, empty at a NUL");
		CHECK(n == 6 && !strcmp(f[4].str, "LOUD"), "mode: the enumerator's name");
		CHECK(n == 6 && !strcmp(f[5].str, "a\\x20b\\x01"),
		      "comm: text, space and control bytes escaped (%s)", n == 6 ? f[5].str : "");
		CHECK(output_decode(d, &r, sizeof(r) - 1, f, 16, buf, sizeof(buf)) == -1,
		      "a record shorter than the struct is not decoded");
		CHECK(output_decode(d, &r, sizeof(r), f, 2, buf, sizeof(buf)) == 2,
		      "no more fields than room");
	}
	output_decoder_free(d);
	/* no size to fall back on: only the name can find the struct */
	d = output_decoder_new(rd, "recs", NULL, 0, &id);
	CHECK(d && id == MAP_RECS, "map recs: the struct named like its singular, rec, id %u", id);
	output_decoder_free(d);
	d = output_decoder_new(rd, "other", NULL, 0, &id);
	CHECK(!d && id == MAP_OTHER, "map other: no struct, no decoder, id %u", id);
	d = output_decoder_new(rd, "nomap", NULL, 0, &id);
	CHECK(!d && id == 0, "an unknown map: no decoder, no id");
	output_hex("\x01\xab", 2, hex, sizeof(hex));
	CHECK(!strcmp(hex, "01ab"), "hex: 01ab (%s)", hex);
	output_hex("0123456789", 10, hex, 8);
	CHECK(!strcmp(hex, "3031..."), "hex cut to fit ends in ... (%s)", hex);
	pd_reader_close(rd);
}

/* The first line of @file holding @needle, without its newline. */
static void first(const char *file, const char *needle, char *line, size_t len)
{
	line[0] = 0;
	count_lines(file, needle, line, len);
	line[strcspn(line, "\n")] = 0;
}

static void test_script(const char *file)
{
	char *argv[] = { "script", "-i", (char *)file, "--json", NULL };
	char line[1024];
	int ret;

	ret = run_cmd(cmd_script, 3, argv, path("out.txt"));
	CHECK(ret == 0, "script exits 0 (%d)", ret);
	CHECK(count_lines(path("out.txt"), " bpf-output ", NULL, 0) == 2,
	      "script: 2 bpf-output lines");
	first(path("out.txt"), "struct rec", line, sizeof(line));
	CHECK(strstr(line, "      7 rec ") &&
	      strstr(line, " pid=42 delta=-5 flag=true pad= mode=LOUD comm=abc"),
	      "script: the map's id and name, the fields: %s", line);
	first(path("out.txt"), "data=", line, sizeof(line));
	CHECK(strstr(line, " rec ") && strstr(line, " raw ") &&
	      strstr(line, "data=2a000000fbffffff"),
	      "script: the short record in hex, padded as the kernel pads: %s", line);
	first(path("out.txt"), " ringbuf ", line, sizeof(line));
	CHECK(strstr(line, " other ") && strstr(line, "data=deadbeef") &&
	      !strstr(line, "data=deadbeef0"),
	      "script: ringbuf of a map without struct in hex: %s", line);
	ret = run_cmd(cmd_script, 4, argv, path("out.json"));
	first(path("out.json"), "struct rec", line, sizeof(line));
	CHECK(ret == 0 && strstr(line, "\"event\":\"bpf-output\"") &&
	      strstr(line, "\"id\":7") &&
	      strstr(line, "\"details\":{\"pid\":42,\"delta\":\"-5\",\"flag\":\"true\","),
	      "script --json: numbers as numbers, the rest as strings: %s", line);
}

int main(void)
{
	struct btf *btf;

	unit_setup();
	btf = rec_btf();
	if (CHECK(btf, "BTF of struct rec built") &&
	    CHECK(!write_file(path("out.data"), btf), "a file of two channels written")) {
		test_decoder(path("out.data"));
		test_script(path("out.data"));
	}
	btf__free(btf);
	return unit_done();
}
