// SPDX-License-Identifier: GPL-2.0
/*
 * A row of `script` as a JSON line (util/script_json.h): every field of
 * the row whole, its details as an object, a sample's stack as an array.
 */
#include <stdio.h>
#include <stdlib.h>
#include "util/json.h"
#include "util/script_json.h"

/*
 * The stack as a JSON array of "symbol+0xoff" (kernel, BPF), "symbol+0xoff
 * (/path/of/file)" (user) or "0xaddress" (unknown); null when out of
 * memory.
 */
static void json_callchain(struct script_rows *rs, struct json *j, const struct script_row *r)
{
	char frame[768], *text = NULL;
	struct script_frames it;
	struct script_frame fr;
	size_t len = 0;
	bool first = true;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		json_raw(j, "callchain", "null");
		return;
	}
	fputc('[', f);
	script_frames_start(&it, r);
	while (script_frames_next(rs, r, &it, &fr)) {
		if (fr.sym && fr.dso)
			snprintf(frame, sizeof(frame), "%.200s+0x%llx (%.500s)", fr.sym,
				 (unsigned long long)fr.off, fr.dso);
		else if (fr.sym)
			snprintf(frame, sizeof(frame), "%.200s+0x%llx", fr.sym,
				 (unsigned long long)fr.off);
		else
			snprintf(frame, sizeof(frame), "0x%llx", (unsigned long long)fr.addr);
		if (!first)
			fputc(',', f);
		first = false;
		json_write_string(f, frame);
	}
	fputc(']', f);
	json_raw(j, "callchain", fclose(f) ? "null" : text);
	free(text);
}

void script_print_json(struct script_rows *rs, const struct script_row *r)
{
	const struct pd_sample *s = &r->e->sample;
	char buf[40];
	struct json j;
	__u32 n;
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
		const struct sr_kv *kv = &r->kv[i];

		switch (kv->kind) {
		case SR_KV_U64:
			json_u64(&j, kv->key, kv->num);
			break;
		case SR_KV_HEX:
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)kv->num);
			json_str(&j, kv->key, buf);
			break;
		case SR_KV_STR:
			json_str(&j, kv->key, kv->str);
			break;
		case SR_KV_FLAG:
			json_bool(&j, kv->key, true);
			break;
		case SR_KV_META:
			json_object(&j, kv->key);
			for (n = 0; n < r->nr_meta; n++)
				json_str(&j, r->meta_key[n], r->meta_value[n]);
			json_close(&j);
			break;
		}
	}
	json_close(&j);
	if (r->e->type == PERF_RECORD_SAMPLE && r->e->sample.nr_callchain)
		json_callchain(rs, &j, r);
	json_end(&j);
}
