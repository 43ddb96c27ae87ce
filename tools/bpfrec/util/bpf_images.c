// SPDX-License-Identifier: GPL-2.0
/*
 * A sorted array: registrations come one by one, lookups (one per kernel
 * frame of a sample) are binary searches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/bpf_images.h"

/* Index of the first image whose address is >= @addr. */
static size_t lower_bound(const struct bpf_images *s, __u64 addr)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void image_free(struct bpf_image *img)
{
	free(img->name);
	free(img->func);
	free(img->prog);
}

void bpf_images_del(struct bpf_images *s, __u64 addr)
{
	size_t i = lower_bound(s, addr);

	if (i == s->nr || s->v[i].addr != addr)
		return;
	image_free(&s->v[i]);
	memmove(&s->v[i], &s->v[i + 1], (s->nr - i - 1) * sizeof(*s->v));
	s->nr--;
}

int bpf_images_add(struct bpf_images *s, __u64 addr, __u32 len, __u16 ksym_type,
		   const char *name)
{
	struct bpf_image img = { .addr = addr, .len = len, .ksym_type = ksym_type };
	size_t i;

	img.name = strdup(name);
	if (!img.name)
		return -ENOMEM;
	/* an UNREGISTER lost in a full ring buffer must not shadow the new image */
	bpf_images_del(s, addr);
	if (array_room(&s->v, &s->cap, s->nr, sizeof(*s->v))) {
		free(img.name);
		return -ENOMEM;
	}
	i = lower_bound(s, addr);
	memmove(&s->v[i + 1], &s->v[i], (s->nr - i) * sizeof(*s->v));
	s->v[i] = img;
	s->nr++;
	return 0;
}

struct bpf_image *bpf_images_find(const struct bpf_images *s, __u64 addr)
{
	size_t i = lower_bound(s, addr + 1);

	if (!i)
		return NULL;
	i--;
	return addr - s->v[i].addr < s->v[i].len ? &s->v[i] : NULL;
}

static int set_str(char **dst, const char *src)
{
	char *n = NULL;

	if (src && src[0] && !(n = strdup(src)))
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

int bpf_images_set_prog(struct bpf_images *s, __u64 addr, __u32 id, const char *prog,
			const char *func)
{
	size_t i = lower_bound(s, addr);

	if (i == s->nr || s->v[i].addr != addr)
		return -ENOENT;
	s->v[i].prog_id = id;
	if (set_str(&s->v[i].prog, prog) || set_str(&s->v[i].func, func))
		return -ENOMEM;
	return 0;
}

const char *bpf_image_func(const struct bpf_image *img)
{
	const char *n = img->name;
	size_t i;

	if (img->func)
		return img->func;
	if (strncmp(n, "bpf_prog_", 9))
		return n;
	for (i = 9; i < 9 + 16; i++)
		if (!n[i] || !strchr("0123456789abcdef", n[i]))
			return n;
	return n[i] == '_' && n[i + 1] ? n + i + 1 : n;
}

void bpf_images_free(struct bpf_images *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		image_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
