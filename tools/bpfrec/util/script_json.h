/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `script --json`: a JSON object per line, a row's every field whole, its
 * details as an object and a sample's stack as an array of frames.
 */
#ifndef BPFREC_SCRIPT_JSON_H
#define BPFREC_SCRIPT_JSON_H

#include "util/script_row.h"

/* Row @r as one line of JSON on stdout. */
void script_print_json(struct script_rows *rs, const struct script_row *r);

#endif /* BPFREC_SCRIPT_JSON_H */
