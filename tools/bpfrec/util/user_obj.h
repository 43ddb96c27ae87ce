/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user's BPF objects of `bpfrec record --object`: opened and checked
 * before the recording starts (a bad input costs nothing), loaded and
 * attached once it runs (their life is recorded), their output channels
 * written into the recording, and everything detached and unloaded on
 * every way out.
 *
 * Output channels, named after their map:
 *   a BPF_MAP_TYPE_PERF_EVENT_ARRAY map M  -> event "bpf-output:M", one
 *     bpf-output perf event per CPU; bpf_perf_event_output() data lands
 *     in the recording as PERF_SAMPLE_RAW samples;
 *   a BPF_MAP_TYPE_RINGBUF map M           -> event "ringbuf:M"; each
 *     record is written as a raw sample of that event, stamped when
 *     bpfrec reads it (within 100 ms).
 * bpfrec script decodes a sample with the object's BTF when it has a
 * struct named M (see util/output_decode.h).
 */
#ifndef BPFREC_USER_OBJ_H
#define BPFREC_USER_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "util/bpf_obj.h"

struct bpf_object;
struct bpf_link;
struct bpf_map;
struct ring_buffer;
struct evlist;
struct evsel;
struct facts;
struct pd_writer;

/* Event names of the output channels: PREFIX + map name. */
#define UOBJ_PERF_PREFIX	"bpf-output:"
#define UOBJ_RINGBUF_PREFIX	"ringbuf:"

struct uobj_chan {
	struct bpf_map *map;
	bool ringbuf;
	char name[64];			/* the event's name */
	struct evsel *ev;		/* in the recording's event list */
	struct user_objs *owner;	/* for the ring buffer callback */
};

struct uobj_set {
	const char *name;
	const char *value;
	bool used;
};

/*
 * The ids of what bpfrec loaded for the user, to mark them in the facts,
 * and the facts of its maps and links read while bpfrec held them: the
 * recording has them even when nothing else resolved them.
 */
struct uobj_ids {
	__u32 *progs, *maps, *links, *btfs;
	struct pd_map *map_facts;	/* nr_maps of them */
	struct pd_link *link_facts;	/* nr_links */
	size_t nr_progs, nr_maps, nr_links, nr_btfs;
	size_t cap_progs, cap_maps, cap_links, cap_btfs;
};

struct user_objs {
	const char **paths;
	size_t nr, cap;
	struct bpf_object **objs;
	struct bpf_link **links;
	size_t nr_links, cap_links;
	struct uobj_set *sets;
	size_t nr_sets, cap_sets;
	struct uobj_chan *chans;
	size_t nr_chans, cap_chans;
	struct ring_buffer *rb;
	struct pd_writer *w;		/* where ring buffer records go */
	__u64 written;			/* ring buffer samples written */
	int err;			/* of the last ring buffer callback */
	struct uobj_ids ids;
	/* where the maps libbpf pins by name go: made and removed by us */
	char *pin_dir;
	/* each loaded object's BTF id and raw data, kept past the close */
	struct uobj_btf {
		__u32 id;
		__u32 len;
		void *data;
	} *btfs;
};

/*
 * Options.  Each returns 0, or -EINVAL after one line on stderr: a usage
 * error.
 */
int user_objs_add(struct user_objs *u, const char *path);
int user_objs_add_set(struct user_objs *u, const char *arg);

/*
 * Open every object, check that bpfrec can attach each of its programs,
 * and apply the --set values (user_obj_set.c).  On error one line on
 * stderr: the input is bad, nothing was loaded.
 */
int user_objs_open(struct user_objs *u);
/* An event per output channel (user_obj_output.c), before the writer. */
int user_objs_add_events(struct user_objs *u, struct evlist *el);
/*
 * Load and attach, once the recording runs; wire the output channels to
 * their events, ring buffer records going to @w.  On error what went
 * wrong is on stderr (a verifier rejection with the log's tail); what was
 * loaded stays for user_objs_close().
 */
int user_objs_load(struct user_objs *u, struct pd_writer *w);
/* Ring buffer records since the last call, as samples; their number. */
int user_objs_drain(struct user_objs *u);
/* Mark what was loaded PD_F_OBJECT in @f, with the objects' BTF data. */
void user_objs_mark(struct user_objs *u, struct facts *f);
/*
 * Detach and unload everything, and wait (bounded) until the kernel has
 * let go of it: its end is then in the recording.  Safe to call twice.
 */
void user_objs_close(struct user_objs *u);
void user_objs_free(struct user_objs *u);

/* user_obj_set.c: the --set values into the opened objects' globals. */
int uobj_apply_sets(struct user_objs *u);
/* user_obj_output.c */
int uobj_find_chans(struct user_objs *u);
int uobj_wire_chans(struct user_objs *u);

#endif /* BPFREC_USER_OBJ_H */
