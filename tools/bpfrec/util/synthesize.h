/* SPDX-License-Identifier: GPL-2.0 */
/* Records and facts of the BPF objects that exist when recording starts. */
#ifndef BPFREC_SYNTHESIZE_H
#define BPFREC_SYNTHESIZE_H

#include <stdbool.h>
#include "util/perf_data/perf_data.h"

struct facts;
struct gone_scan;
struct sink;

struct synth_ctx {
	struct pd_writer *w;
	struct facts *facts;
	bool obj_events;	/* write map/link/BTF records too */
	struct gone_scan *scan;	/* to watch them for their release, or NULL */
	struct pd_sample sample;
	struct sink *sink;	/* the instructions' hash and --keep-insns; or NULL */
};

int synth_existing(struct synth_ctx *s);

#endif /* BPFREC_SYNTHESIZE_H */
