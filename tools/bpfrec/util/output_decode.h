/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output of the user's objects (`bpfrec record --object`), as script
 * shows it.  A sample of event "bpf-output:M" or "ringbuf:M" came through
 * map M.  Its record is decoded field by field when the BTF the recording
 * keeps of M's object tells its struct unambiguously: the one the user
 * named (script --decode M=STRUCT), one named M or M's singular (map
 * "events", struct "event"), or the only struct of the record's size;
 * else it is shown in hex.  The struct must be in the object's BTF: clang only
 * emits types that a global, a map or a function signature uses, so the
 * examples declare an unused global pointer to it:
 *
 *     struct execs { __u32 pid; char comm[16]; };
 *     struct execs *execs_type __attribute__((unused));
 */
#ifndef BPFREC_OUTPUT_DECODE_H
#define BPFREC_OUTPUT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct pd_reader;
struct output_decoder;

/* Structs larger than this are shown in hex (a record is at most 64 KiB). */
#define OUTPUT_MAX_STRUCT	65536

/* The channel of event @name: "bpf-output" or "ringbuf", its map in *map. */
const char *output_channel(const char *name, const char **map);

/*
 * A decoder for the records of map @map, from the facts of @r: struct
 * @want (NULL: found as above, @size the first record's size); NULL when
 * no map of that name loaded by bpfrec has that struct.  *map_id is the
 * map's id when the recording knows the map, else 0.
 */
struct output_decoder *output_decoder_new(struct pd_reader *r, const char *map, const char *want,
					  size_t size, __u32 *map_id);
/* The name of the struct it decodes. */
const char *output_decoder_struct(const struct output_decoder *d);
void output_decoder_free(struct output_decoder *d);

/* One decoded field: a number (JSON shows it as one) or a string. */
struct output_field {
	const char *name;
	bool is_num;
	__u64 num;
	const char *str;		/* in the caller's buffer */
};

/*
 * The fields of @data (@size bytes, as padded in the sample) into @f (at
 * most @max), their strings in @buf; returns their number, or -1 when the
 * record is shorter than the struct.
 */
int output_decode(const struct output_decoder *d, const void *data, size_t size,
		  struct output_field *f, int max, char *buf, size_t len);
/* "0a1b..." of @size bytes, cut to fit @len with "...". */
void output_hex(const void *data, size_t size, char *buf, size_t len);

#endif /* BPFREC_OUTPUT_DECODE_H */
