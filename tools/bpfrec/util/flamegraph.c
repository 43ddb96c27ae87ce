// SPDX-License-Identifier: GPL-2.0
/*
 * The folded stacks become a tree (children in the order of the sorted
 * lines, so siblings are alphabetical as in flamegraph.pl), each node as
 * wide as the weight under it.  A frame narrower than MIN_WIDTH pixels
 * is not drawn: it could not be seen or clicked, and a big profile has
 * many thousands of them.  The tooltips carry the exact weights, and
 * data-v the number for scripts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/flamegraph.h"

#define IMAGE_WIDTH	1200
#define PAD		10
#define FRAME_HEIGHT	16
#define TOP		36
#define MIN_WIDTH	0.1

struct node {
	char *name;			/* a piece of a line's text */
	__u64 value;
	__u64 off;			/* the part of value off CPU (report --wall) */
	size_t child, next;		/* first child, next sibling; 0: none */
	size_t last;			/* last child, to append in order */
};

struct tree {
	struct node *v;			/* v[0] is the root, "all" */
	size_t nr, cap;
};

static int add_node(struct tree *t, size_t parent, char *name, size_t *id)
{
	size_t c;

	for (c = t->v[parent].child; c; c = t->v[c].next) {
		if (!strcmp(t->v[c].name, name)) {
			*id = c;
			return 0;
		}
	}
	if (array_room(&t->v, &t->cap, t->nr, sizeof(*t->v)))
		return -ENOMEM;
	memset(&t->v[t->nr], 0, sizeof(*t->v));
	t->v[t->nr].name = name;
	if (t->v[parent].last)
		t->v[t->v[parent].last].next = t->nr;
	else
		t->v[parent].child = t->nr;
	t->v[parent].last = t->nr;
	*id = t->nr++;
	return 0;
}

/* Lines are cut in place: @texts are the caller's copies. */
static int build(struct tree *t, char **texts, const struct folded *lines, size_t nr,
		 size_t *depth)
{
	size_t i, d, at;
	char *s, *frame;

	if (array_room(&t->v, &t->cap, 0, sizeof(*t->v)))
		return -ENOMEM;
	memset(&t->v[0], 0, sizeof(*t->v));
	t->v[0].name = "all";
	t->nr = 1;
	*depth = 0;
	for (i = 0; i < nr; i++) {
		t->v[0].value += lines[i].weight;
		at = 0;
		d = 0;
		for (s = texts[i]; (frame = strsep(&s, ";"));) {
			if (add_node(t, at, frame, &at))
				return -ENOMEM;
			t->v[at].value += lines[i].weight;
			t->v[at].off += lines[i].off_weight;
			d++;
		}
		*depth = d > *depth ? d : *depth;
	}
	return 0;
}

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

/*
 * Warm colours from the name, so a function keeps its colour across
 * graphs; blue ones for frames whose time is mostly off CPU (report
 * --wall), as in Brendan Gregg's off-CPU graphs.
 */
static void colour(const struct node *n, int *r, int *g, int *b)
{
	unsigned int h = 2166136261u;
	const char *name;

	for (name = n->name; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	if (n->off * 2 > n->value) {
		*r = (h >> 16) % 60;
		*g = 90 + (h >> 8) % 100;
		*b = 205 + h % 50;
		return;
	}
	*r = 205 + h % 50;
	*g = (h >> 8) % 180;
	*b = (h >> 16) % 55;
}

struct draw {
	FILE *f;
	const struct tree *t;
	double scale;			/* pixels per unit of weight */
	int height;
	const char *unit;
};

static void draw_node(const struct draw *dr, size_t id, __u64 x, size_t depth)
{
	const struct node *n = &dr->t->v[id];
	double px = PAD + x * dr->scale, w = n->value * dr->scale;
	int y = dr->height - PAD - (depth + 1) * FRAME_HEIGHT, r, g, b, chars;
	size_t c;

	if (w < MIN_WIDTH)
		return;
	colour(n, &r, &g, &b);
	fprintf(dr->f, "<g class=\"f\" data-x=\"%llu\" data-v=\"%llu\" data-n=\"",
		(unsigned long long)x, (unsigned long long)n->value);
	put_escaped(dr->f, n->name);
	fprintf(dr->f, "\"><title>");
	put_escaped(dr->f, n->name);
	fprintf(dr->f, " (%llu %s, %.2f%%)</title>", (unsigned long long)n->value, dr->unit,
		100.0 * n->value / dr->t->v[0].value);
	fprintf(dr->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"rgb(%d,%d,%d)\"/>",
		px, y, w, FRAME_HEIGHT - 1, r, g, b);
	fprintf(dr->f, "<text x=\"%.2f\" y=\"%d\">", px + 3, y + FRAME_HEIGHT - 4);
	/* about 7 pixels per character of the 12px monospace font */
	chars = (int)((w - 6) / 7);
	if (chars >= 3) {
		char label[256];

		snprintf(label, sizeof(label), "%s", n->name);
		if ((int)strlen(label) > chars && chars < (int)sizeof(label)) {
			int cut = chars - 2;

			/* not inside a UTF-8 sequence: the file must stay valid XML */
			while (cut > 0 && ((unsigned char)label[cut] & 0xc0) == 0x80)
				cut--;
			strcpy(label + cut, "..");
		}
		put_escaped(dr->f, label);
	}
	fprintf(dr->f, "</text></g>\n");
	for (c = n->child; c; c = dr->t->v[c].next) {
		draw_node(dr, c, x, depth + 1);
		x += dr->t->v[c].value;
	}
}

/* Zoom: the frames over the clicked one's range fill the width, the others hide. */
static const char script[] =
	"var W = " "%d" ", fr;\n"
	"function init() {\n"
	"  fr = document.querySelectorAll('g.f');\n"
	"  fr.forEach(function (g) { g.onclick = function () { zoom(+g.dataset.x, +g.dataset.v); }; });\n"
	"  document.getElementById('reset').onclick = function () { zoom(0, +fr[0].dataset.v); };\n"
	"}\n"
	"function zoom(a, w) {\n"
	"  var s = W / w;\n"
	"  fr.forEach(function (g) {\n"
	"    var x = +g.dataset.x, b = Math.max(x, a), e = Math.min(x + +g.dataset.v, a + w);\n"
	"    var r = g.querySelector('rect'), t = g.querySelector('text'), n = g.dataset.n;\n"
	"    if ((e - b) * s < 0.5) { g.style.display = 'none'; return; }\n"
	"    g.style.display = '';\n"
	"    var px = %d + (b - a) * s, pw = (e - b) * s, c = Math.floor((pw - 6) / 7);\n"
	"    r.setAttribute('x', px); r.setAttribute('width', pw); t.setAttribute('x', px + 3);\n"
	"    t.textContent = c < 3 ? '' : n.length <= c ? n : n.slice(0, c - 2) + '..';\n"
	"  });\n"
	"}\n";

int flamegraph_write(FILE *f, const struct folded *lines, size_t nr, const char *title,
		     const char *unit)
{
	struct tree t = {};
	char **texts = calloc(nr ? nr : 1, sizeof(*texts));
	struct draw dr = { .f = f, .t = &t, .unit = unit };
	size_t i, depth;
	int err = -ENOMEM;

	if (!texts)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!(texts[i] = strdup(lines[i].text)))
			goto out;
	if (build(&t, texts, lines, nr, &depth))
		goto out;
	dr.height = TOP + (depth + 1) * FRAME_HEIGHT + PAD;
	dr.scale = t.v[0].value ? (double)(IMAGE_WIDTH - 2 * PAD) / t.v[0].value : 0;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fprintf(f, "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init()\">\n",
		IMAGE_WIDTH, dr.height, IMAGE_WIDTH, dr.height);
	fprintf(f, "<style>text { font: 12px monospace; pointer-events: none; } "
		"#reset { pointer-events: auto; } g.f { cursor: pointer; } "
		"g.f:hover rect { stroke: #000; }</style>\n");
	fprintf(f, "<script><![CDATA[\n");
	fprintf(f, script, IMAGE_WIDTH - 2 * PAD, PAD);
	fprintf(f, "]]></script>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" style=\"font-size: 16px\">",
		IMAGE_WIDTH / 2);
	put_escaped(f, title);
	fprintf(f, "</text>\n<text id=\"reset\" x=\"%d\" y=\"22\" style=\"cursor: pointer\">"
		"Reset zoom</text>\n", PAD);
	draw_node(&dr, 0, 0, 0);
	fprintf(f, "</svg>\n");
	err = ferror(f) ? -EIO : 0;
out:
	for (i = 0; i < nr; i++)
		free(texts[i]);
	free(texts);
	free(t.v);
	return err;
}
