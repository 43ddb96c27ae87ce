// SPDX-License-Identifier: GPL-2.0
/*
 * What a program's facts item does not hold: perf's PERF_RECORD_BPF_METADATA
 * records (perf 6.16 and later), and the program's xlated instructions
 * (record --keep-insns), written into the data in pieces and read back by
 * id for script --dump.  Everything read back is checked against the
 * bytes the file has: a crafted file gets an error, never a read past it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/perf_data/format.h"

/* perf's tools/lib/perf/include/perf/event.h */
#define BPF_METADATA_PROG_NAME_LEN	512	/* KSYM_NAME_LEN */
_Static_assert(sizeof(struct pd_meta) == 64 + 256, "perf_record_bpf_metadata_entry");

int pd_write_bpf_metadata(struct pd_writer *w, const char *prog_name, const struct pd_meta *meta,
			  __u32 nr)
{
	struct perf_event_header h = { .type = PD_RECORD_BPF_METADATA };
	char name[BPF_METADATA_PROG_NAME_LEN] = "";
	struct pd_buf b = { 0 };
	__u64 n = nr;
	__u32 i;
	int err;

	h.size = sizeof(h) + sizeof(name) + sizeof(n) + nr * sizeof(*meta);
	strncpy(name, prog_name, sizeof(name) - 1);
	pd_buf_put(&b, &h, sizeof(h));
	pd_buf_put(&b, name, sizeof(name));
	pd_buf_put(&b, &n, sizeof(n));
	/* pd_meta is perf's entry: key[64], value[256], NUL-terminated */
	for (i = 0; i < nr; i++) {
		struct pd_meta m = { 0 };

		strncpy(m.key, meta[i].key, sizeof(m.key) - 1);
		strncpy(m.value, meta[i].value, sizeof(m.value) - 1);
		pd_buf_put(&b, &m, sizeof(m));
	}
	err = b.err ? b.err : pd_write_raw(w, (const struct perf_event_header *)b.p);
	pd_buf_free(&b);
	return err;
}

/* Bytes of instructions per item: a record holds 64 KiB. */
#define INSNS_PIECE	(32 << 10)

int pd_writer_add_insns(struct pd_writer *w, __u32 id, const void *insns, size_t len)
{
	struct pd_disk_insns d = { .id = id, .total = len };
	struct pd_buf e = { 0 }, var = { 0 };
	__u64 off;
	int err = 0;

	if (!len || len > PD_INSNS_MAX || len % sizeof(struct bpf_insn))
		return -EINVAL;
	for (d.off = 0; d.off < len && !err; d.off += d.len) {
		d.len = len - d.off < INSNS_PIECE ? len - d.off : INSNS_PIECE;
		e.len = var.len = 0;
		pd_buf_put(&var, (const __u8 *)insns + d.off, d.len);
		pd_encode_ext_item(&e, PD_EXT_INSNS, &d, sizeof(d), &var);
		err = e.err ? e.err : var.err ? var.err : pd_writer_append_fact(w, PD_FEAT_BPFREC, &e, &off);
	}
	pd_buf_free(&e);
	pd_buf_free(&var);
	return err;
}

/*
 * The instructions item in the facts record at @p (@size bytes): 1, 0
 * when it is none, -1 when its piece claims more bytes than it has.
 */
static int insns_item(const __u8 *p, size_t size, struct pd_disk_insns *d, const __u8 **data)
{
	const size_t hdr = sizeof(struct pd_fact_header);
	struct pd_fact_header h;
	struct pd_ext_item item;

	if (!pd_fact_record(p, size))
		return 0;
	memcpy(&h, p, hdr);
	if (h.feat != PD_FEAT_BPFREC || size - hdr < sizeof(item))
		return 0;
	memcpy(&item, p + hdr, sizeof(item));
	if (item.kind != PD_EXT_INSNS)
		return 0;
	if (item.fixed_len < sizeof(*d) || item.fixed_len > item.len ||
	    item.len > size - hdr - sizeof(item))
		return -1;
	memcpy(d, p + hdr + sizeof(item), sizeof(*d));
	/* the bytes must be the item's own */
	if (d->len > item.len - item.fixed_len)
		return -1;
	*data = p + hdr + sizeof(item) + item.fixed_len;
	return 1;
}

int pd_insns_scan(const __u8 *buf, __u64 from, __u64 to, __u32 id, void **insns, size_t *len)
{
	struct perf_event_header h;
	struct pd_disk_insns d;
	const __u8 *data;
	__u8 *out = NULL;
	__u32 total = 0;
	__u64 pos, got = 0;
	int ret;

	*insns = NULL;
	*len = 0;
	for (pos = from; to - pos >= sizeof(h) && pos < to; pos += h.size) {
		memcpy(&h, buf + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > to - pos)
			break;
		memset(&d, 0, sizeof(d));
		ret = insns_item(buf + pos, h.size, &d, &data);
		if (!ret || d.id != id)
			continue;
		/* the last program of an id wins: ids are not reused while the kernel runs */
		if (ret < 0 || !d.total || d.total > PD_INSNS_MAX || d.total % sizeof(struct bpf_insn) ||
		    d.off > d.total || d.len > d.total - d.off) {
			free(out);
			return -EINVAL;
		}
		if (!out || d.total != total) {
			free(out);
			out = calloc(1, d.total);
			if (!out)
				return -ENOMEM;
			total = d.total;
			got = 0;
		}
		memcpy(out + d.off, data, d.len);
		got += d.len;
	}
	if (!out)
		return -ENOENT;
	if (got < total) {
		free(out);
		return -EINVAL;
	}
	*insns = out;
	*len = total;
	return 0;
}
