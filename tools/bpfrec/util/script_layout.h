/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of `script`: a header line and a line per row, in columns
 * measured over a first reading of the file and fitted to the output's
 * width, and a sample's stack under its line.
 */
#ifndef BPFREC_SCRIPT_LAYOUT_H
#define BPFREC_SCRIPT_LAYOUT_H

#include <stdbool.h>
#include "util/intern.h"
#include "util/script_row.h"

/* The columns of a text line (-F), as bits: 1U << SF_TIME, ... */
enum script_field {
	SF_TIME, SF_CPU, SF_PID, SF_TID, SF_COMM, SF_EVENT, SF_ID, SF_NAME, SF_TYPE, SF_TAG,
	SF_DETAILS, SF_CALLCHAIN, SF_NR
};
#define SF_ALL	((1U << SF_NR) - 1)

/*
 * The widths of the text columns whose values vary in length, the length
 * of the longest details, and where a cut name or type keeps its start
 * to stay distinct (-1: in the middle).
 */
struct script_widths {
	int time, pidtid, comm, event, id, name, type;
	int details;
	int name_head, type_head;
};

/*
 * Like ps: into a terminal, lines fit it and are cut; into a pipe, the
 * columns fit FIT_PIPE_WIDTH and the details go on (a reader of the text
 * must have them whole).  --width (@width_set) says both, --wide
 * neither.  *@budget is the width the columns fit, *@cut where lines are
 * wrapped (0: never).
 */
void script_output_width(bool wide, bool width_set, unsigned long width, unsigned long *budget,
			 unsigned long *cut);

/* The columns measured over the rows of a first reading. */
struct script_measure {
	struct script_widths w;
	struct intern names, types;	/* the distinct names and types shown */
};

void script_measure_init(struct script_measure *m);
/* Row @r widens the columns to its values; -ENOMEM. */
int script_measure_row(struct script_measure *m, const struct script_row *r);
/*
 * The columns narrowed to fit @width (0: no limit) with room for the
 * details: what they need into a pipe, more when lines wrap (@wrap); a
 * column's cut names stay as distinct as its names.  -ENOMEM.
 */
int script_measure_fit(struct script_measure *m, unsigned long width, bool wrap);
void script_measure_free(struct script_measure *m);

/* The header line and a row's line, of the columns @fields, wrapped at @width (0: never). */
void script_print_header(const struct script_widths *w, unsigned long width, unsigned int fields);
void script_print_text(const struct script_row *r, const struct script_widths *w,
		       unsigned long width, unsigned int fields);
/* A sample's stack, perf's way: one frame a line, under its sample. */
void script_print_callchain(struct script_rows *rs, const struct script_row *r);

#endif /* BPFREC_SCRIPT_LAYOUT_H */
