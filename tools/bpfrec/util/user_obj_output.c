// SPDX-License-Identifier: GPL-2.0
/*
 * The output channels of the user's objects (util/user_obj.h).  A
 * PERF_EVENT_ARRAY map gets a bpf-output event on every CPU, slot N of
 * the map holding the event of CPU N: bpf_perf_event_output() then
 * writes straight into the recording's rings.  A ring buffer has no perf
 * event behind it: its records are read by libbpf and written as raw
 * samples of an event of its own, so that readers tell the channels apart
 * by event as they do for the perf ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/mono_clock.h"
#include "util/perf_data/perf_data.h"
#include "util/user_obj.h"

int uobj_find_chans(struct user_objs *u)
{
	struct uobj_chan *c;
	struct bpf_map *map;
	enum bpf_map_type t;
	size_t i;

	for (i = 0; i < u->nr; i++) {
		bpf_object__for_each_map(map, u->objs[i]) {
			t = bpf_map__type(map);
			if (t != BPF_MAP_TYPE_PERF_EVENT_ARRAY && t != BPF_MAP_TYPE_RINGBUF)
				continue;
			if (array_room(&u->chans, &u->cap_chans, u->nr_chans, sizeof(*u->chans)))
				return -ENOMEM;
			c = &u->chans[u->nr_chans++];
			memset(c, 0, sizeof(*c));
			c->map = map;
			c->ringbuf = t == BPF_MAP_TYPE_RINGBUF;
			snprintf(c->name, sizeof(c->name), "%s%s",
				 c->ringbuf ? UOBJ_RINGBUF_PREFIX : UOBJ_PERF_PREFIX,
				 bpf_map__name(map));
		}
	}
	return 0;
}

int user_objs_add_events(struct user_objs *u, struct evlist *el)
{
	struct perf_event_attr attr;
	size_t i;
	int err;

	/* IP as perf asks for it: perf script refuses a software event without one */
	evlist_bpf_output_attr(&attr, el->ring_bytes,
			       PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW);
	for (i = 0; i < u->nr_chans; i++) {
		err = evlist_add(el, &attr, u->chans[i].name);
		if (err)
			return errmsg_set(err, "opening the output event %s: %s",
					  u->chans[i].name, strerror(-err));
		u->chans[i].ev = el->ev[el->nr_ev - 1];
	}
	return 0;
}

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct uobj_chan *c = ctx;
	struct pd_sample s = {
		.time = mono_ns(),
		.id = c->ev->ids[0],
		.raw = data,
		.raw_size = size,
	};
	int err;

	err = pd_write_sample(c->owner->w, PERF_RECORD_MISC_USER, &s);
	if (err) {
		c->owner->err = err;
		return err;
	}
	c->owner->written++;
	return 0;
}

static int wire_perf(struct uobj_chan *c)
{
	int fd = bpf_map__fd(c->map), i, cpu;
	__u32 max = bpf_map__max_entries(c->map);

	for (i = 0; i < c->ev->nr; i++) {
		cpu = c->ev->rings[i].cpu;
		if ((__u32)cpu >= max)
			return errmsg_set(-E2BIG, "map '%s' has %u entries, CPU %d has no slot (leave max_entries 0)",
					  bpf_map__name(c->map), max, cpu);
		if (bpf_map_update_elem(fd, &cpu, &c->ev->rings[i].fd, BPF_ANY)) {
			int err = -errno;

			return errmsg_set(err, "wiring map '%s' to CPU %d: %s", bpf_map__name(c->map),
					  cpu, strerror(-err));
		}
	}
	return 0;
}

static int wire_ringbuf(struct user_objs *u, struct uobj_chan *c)
{
	int fd = bpf_map__fd(c->map), err;

	c->owner = u;
	if (!u->rb) {
		u->rb = ring_buffer__new(fd, on_ringbuf, c, NULL);
		err = u->rb ? 0 : -errno;
	} else {
		err = ring_buffer__add(u->rb, fd, on_ringbuf, c);
	}
	if (err)
		errmsg_set(err, "reading ring buffer '%s': %s", bpf_map__name(c->map), strerror(-err));
	return err;
}

int uobj_wire_chans(struct user_objs *u)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < u->nr_chans; i++)
		err = u->chans[i].ringbuf ? wire_ringbuf(u, &u->chans[i]) :
					    wire_perf(&u->chans[i]);
	return err;
}

int user_objs_drain(struct user_objs *u)
{
	__u64 before = u->written;
	int err;

	if (!u->rb)
		return 0;
	err = ring_buffer__consume(u->rb);
	if (u->err)
		return u->err;
	if (err < 0)
		return err;
	return u->written - before;
}
