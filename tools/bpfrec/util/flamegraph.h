/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interactive flame graph as one SVG file: a rectangle per frame,
 * as wide as its share of the samples, callers below callees, a title
 * (tooltip) with the frame's count, and click-to-zoom in a few lines of
 * embedded JavaScript.
 */
#ifndef BPFREC_FLAMEGRAPH_H
#define BPFREC_FLAMEGRAPH_H

#include <stdio.h>
#include "util/profile_print.h"

/*
 * Draw folded stacks @lines (sorted by text, as profile_folded() gives
 * them) into @f.  @unit names the weights ("samples", or "ns" off CPU).
 * Returns 0, -ENOMEM, or -EIO when writing failed.
 */
int flamegraph_write(FILE *f, const struct folded *lines, size_t nr, const char *title,
		     const char *unit);

#endif /* BPFREC_FLAMEGRAPH_H */
