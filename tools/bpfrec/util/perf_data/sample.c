// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE bodies and sample_id trailers, encoded and decoded
 * field by field in the order of include/uapi/linux/perf_event.h: a field
 * is there when the event's sample_type (read_format, sample_regs_*,
 * branch_sample_type) asks for it.  Decoding checks every field against
 * the record, so a malformed one is refused by the name of its field.
 */
#include <errno.h>
#include <string.h>
#include "util/perf_data/format.h"

/* Registers in a REGS_USER / REGS_INTR block: one per bit of the mask. */
static __u64 nr_regs(__u64 mask)
{
	return __builtin_popcountll(mask);
}

/* u64 words of one read_format counter entry. */
static __u64 read_stride(__u64 read_format)
{
	return 1 + !!(read_format & PERF_FORMAT_ID) + !!(read_format & PERF_FORMAT_LOST);
}

/*
 * Words before a counter's id: a group's entries are { value, id, lost },
 * a single counter's block is { value, enabled, running, id, lost }.
 */
static __u64 id_offset(__u64 read_format)
{
	if (read_format & PERF_FORMAT_GROUP)
		return 1;
	return 1 + !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);
}

void pd_read_value(const struct perf_event_attr *attr, const struct pd_sample *s,
		   __u64 i, struct pd_read_value *v)
{
	__u64 rf = attr->read_format;
	const __u64 *e = s->read.values + i * read_stride(rf), *tail = e + id_offset(rf);

	memset(v, 0, sizeof(*v));
	memcpy(&v->value, e, sizeof(__u64));
	if (rf & PERF_FORMAT_ID)
		memcpy(&v->id, tail++, sizeof(__u64));
	if (rf & PERF_FORMAT_LOST)
		memcpy(&v->lost, tail, sizeof(__u64));
}

/* ---- encoding --------------------------------------------------------- */

static void put_regs(struct pd_buf *b, __u64 abi, const __u64 *regs, __u64 mask)
{
	pd_buf_u64(b, abi);
	if (abi)
		pd_buf_put(b, regs, nr_regs(mask) * sizeof(__u64));
}

static void put_read(struct pd_buf *b, const struct perf_event_attr *attr,
		     const struct pd_sample *s)
{
	__u64 rf = attr->read_format, tail = read_stride(rf) - 1;

	if (!(rf & PERF_FORMAT_GROUP)) {
		/* the block as on disk, the times taken from read.time_* */
		pd_buf_u64(b, s->read.values[0]);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			pd_buf_u64(b, s->read.time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			pd_buf_u64(b, s->read.time_running);
		pd_buf_put(b, s->read.values + id_offset(rf), tail * sizeof(__u64));
		return;
	}
	pd_buf_u64(b, s->read.nr);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		pd_buf_u64(b, s->read.time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		pd_buf_u64(b, s->read.time_running);
	pd_buf_put(b, s->read.values, s->read.nr * read_stride(rf) * sizeof(__u64));
}

/* TID and TIME: a sample has them in this order, and so has a trailer. */
static void put_tid_time(struct pd_buf *b, __u64 t, const struct pd_sample *s)
{
	if (t & PERF_SAMPLE_TID) {
		pd_buf_u32(b, s->pid);
		pd_buf_u32(b, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		pd_buf_u64(b, s->time);
}

/* ID, STREAM_ID and CPU, in both layouts too. */
static void put_id_cpu(struct pd_buf *b, __u64 t, const struct pd_sample *s)
{
	if (t & PERF_SAMPLE_ID)
		pd_buf_u64(b, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		pd_buf_u64(b, s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		pd_buf_u32(b, s->cpu);
		pd_buf_u32(b, 0);
	}
}

/* RAW: u32 size then the data, zero-padded so that both end 8-aligned. */
static void put_raw(struct pd_buf *b, const struct pd_sample *s)
{
	__u32 size = PD_ALIGN8(s->raw_size + sizeof(__u32)) - sizeof(__u32);

	pd_buf_u32(b, size);
	pd_buf_put(b, s->raw, s->raw_size);
	pd_buf_zero(b, size - s->raw_size);
}

int pd_sample_encode(const struct perf_event_attr *attr, const struct pd_sample *s,
		     struct pd_buf *b)
{
	__u64 t = attr->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		pd_buf_u64(b, s->id);
	if (t & PERF_SAMPLE_IP)
		pd_buf_u64(b, s->ip);
	put_tid_time(b, t, s);
	if (t & PERF_SAMPLE_ADDR)
		pd_buf_u64(b, s->addr);
	put_id_cpu(b, t, s);
	if (t & PERF_SAMPLE_PERIOD)
		pd_buf_u64(b, s->period);
	if (t & PERF_SAMPLE_READ)
		put_read(b, attr, s);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		pd_buf_u64(b, s->nr_callchain);
		pd_buf_put(b, s->callchain, s->nr_callchain * sizeof(__u64));
	}
	if (t & PERF_SAMPLE_RAW)
		put_raw(b, s);
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		pd_buf_u64(b, s->nr_branches);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			pd_buf_u64(b, s->branch_hw_idx);
		pd_buf_put(b, s->branches, s->nr_branches * sizeof(*s->branches));
	}
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(b, s->regs_user_abi, s->regs_user, attr->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		pd_buf_u64(b, s->stack_user_size);
		if (s->stack_user_size) {
			pd_buf_put(b, s->stack_user, s->stack_user_size);
			pd_buf_u64(b, s->stack_user_dyn_size);
		}
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE)
		pd_buf_u64(b, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		pd_buf_u64(b, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		pd_buf_u64(b, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(b, s->regs_intr_abi, s->regs_intr, attr->sample_regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		pd_buf_u64(b, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		pd_buf_u64(b, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		pd_buf_u64(b, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		pd_buf_u64(b, s->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		pd_buf_u64(b, s->aux_size);
		pd_buf_put(b, s->aux, s->aux_size);
	}
	return b->err;
}

size_t pd_sample_id_size(const struct perf_event_attr *attr)
{
	__u64 t = attr->sample_type;

	if (!attr->sample_id_all)
		return 0;
	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

void pd_sample_id_encode(const struct perf_event_attr *attr, const struct pd_sample *s,
			 struct pd_buf *b)
{
	__u64 t = attr->sample_type;

	if (!attr->sample_id_all)
		return;
	put_tid_time(b, t, s);
	put_id_cpu(b, t, s);
	if (t & PERF_SAMPLE_IDENTIFIER)
		pd_buf_u64(b, s->id);
}

/* ---- decoding --------------------------------------------------------- */

/* @n elements of @size in place; a count that overflows does not fit either. */
static const void *take_array(struct pd_cursor *c, __u64 n, size_t size)
{
	if (n > (c->len - c->pos) / size) {
		c->bad = true;
		return NULL;
	}
	return pd_cur_take(c, n * size);
}

/* TID and TIME read back: the field that does not fit, or NULL. */
static const char *get_tid_time(struct pd_cursor *c, __u64 t, struct pd_sample *s)
{
	if ((t & PERF_SAMPLE_TID) && !(pd_cur_get(c, &s->pid, 4) && pd_cur_get(c, &s->tid, 4)))
		return "TID";
	if ((t & PERF_SAMPLE_TIME) && !pd_cur_get(c, &s->time, 8))
		return "TIME";
	return NULL;
}

/* ID, STREAM_ID and CPU read back. */
static const char *get_id_cpu(struct pd_cursor *c, __u64 t, struct pd_sample *s)
{
	if ((t & PERF_SAMPLE_ID) && !pd_cur_get(c, &s->id, 8))
		return "ID";
	if ((t & PERF_SAMPLE_STREAM_ID) && !pd_cur_get(c, &s->stream_id, 8))
		return "STREAM_ID";
	if ((t & PERF_SAMPLE_CPU) && !(pd_cur_get(c, &s->cpu, 4) && pd_cur_get(c, &s->reserved, 4)))
		return "CPU";
	return NULL;
}

static bool get_regs(struct pd_cursor *c, __u64 mask, __u64 *abi, const __u64 **regs)
{
	*abi = pd_cur_u64(c);
	if (*abi)
		*regs = take_array(c, nr_regs(mask), sizeof(__u64));
	return !c->bad;
}

static bool get_read(struct pd_cursor *c, const struct perf_event_attr *attr,
		     struct pd_sample *s)
{
	__u64 rf = attr->read_format, stride = read_stride(rf);

	if (!(rf & PERF_FORMAT_GROUP)) {
		s->read.nr = 1;
		s->read.values = (const void *)(c->p + c->pos);
		pd_cur_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			s->read.time_enabled = pd_cur_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			s->read.time_running = pd_cur_u64(c);
		take_array(c, stride - 1, sizeof(__u64));
		return !c->bad;
	}
	s->read.nr = pd_cur_u64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		s->read.time_enabled = pd_cur_u64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		s->read.time_running = pd_cur_u64(c);
	s->read.values = take_array(c, s->read.nr, stride * sizeof(__u64));
	return !c->bad;
}

int pd_sample_decode(const struct perf_event_attr *attr, const void *body, size_t len,
		     struct pd_sample *s, const char **why)
{
	struct pd_cursor c = { .p = body, .len = len };
	__u64 t = attr->sample_type;

	memset(s, 0, sizeof(*s));
#define FIELD(name, ok) do { if (!(ok) || c.bad) { *why = name; return -EINVAL; } } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER)
		FIELD("IDENTIFIER", pd_cur_get(&c, &s->id, 8));
	if (t & PERF_SAMPLE_IP)
		FIELD("IP", pd_cur_get(&c, &s->ip, 8));
	*why = get_tid_time(&c, t, s);
	FIELD(*why, !*why);
	if (t & PERF_SAMPLE_ADDR)
		FIELD("ADDR", pd_cur_get(&c, &s->addr, 8));
	*why = get_id_cpu(&c, t, s);
	FIELD(*why, !*why);
	if (t & PERF_SAMPLE_PERIOD)
		FIELD("PERIOD", pd_cur_get(&c, &s->period, 8));
	if (t & PERF_SAMPLE_READ)
		FIELD("READ", get_read(&c, attr, s));
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = pd_cur_u64(&c);
		s->callchain = take_array(&c, s->nr_callchain, sizeof(__u64));
		FIELD("CALLCHAIN", true);
	}
	if (t & PERF_SAMPLE_RAW) {
		s->raw_size = pd_cur_u32(&c);
		s->raw = pd_cur_take(&c, s->raw_size);
		/* the kernel pads u32 + data to 8 bytes: what follows is aligned */
		FIELD("RAW", c.pos % 8 == 0);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branches = pd_cur_u64(&c);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s->branch_hw_idx = pd_cur_u64(&c);
		s->branches = take_array(&c, s->nr_branches, sizeof(*s->branches));
		FIELD("BRANCH_STACK", true);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		FIELD("REGS_USER", get_regs(&c, attr->sample_regs_user, &s->regs_user_abi,
					    &s->regs_user));
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_user_size = pd_cur_u64(&c);
		if (s->stack_user_size) {
			s->stack_user = take_array(&c, s->stack_user_size, 1);
			s->stack_user_dyn_size = pd_cur_u64(&c);
		}
		/* the kernel copies whole words: what follows stays aligned */
		FIELD("STACK_USER", s->stack_user_size % 8 == 0 &&
				    s->stack_user_dyn_size <= s->stack_user_size);
	}
	if (t & PERF_SAMPLE_WEIGHT_TYPE)
		FIELD("WEIGHT", pd_cur_get(&c, &s->weight, 8));
	if (t & PERF_SAMPLE_DATA_SRC)
		FIELD("DATA_SRC", pd_cur_get(&c, &s->data_src, 8));
	if (t & PERF_SAMPLE_TRANSACTION)
		FIELD("TRANSACTION", pd_cur_get(&c, &s->transaction, 8));
	if (t & PERF_SAMPLE_REGS_INTR)
		FIELD("REGS_INTR", get_regs(&c, attr->sample_regs_intr, &s->regs_intr_abi,
					    &s->regs_intr));
	if (t & PERF_SAMPLE_PHYS_ADDR)
		FIELD("PHYS_ADDR", pd_cur_get(&c, &s->phys_addr, 8));
	if (t & PERF_SAMPLE_CGROUP)
		FIELD("CGROUP", pd_cur_get(&c, &s->cgroup, 8));
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		FIELD("DATA_PAGE_SIZE", pd_cur_get(&c, &s->data_page_size, 8));
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		FIELD("CODE_PAGE_SIZE", pd_cur_get(&c, &s->code_page_size, 8));
	if (t & PERF_SAMPLE_AUX) {
		s->aux_size = pd_cur_u64(&c);
		s->aux = take_array(&c, s->aux_size, 1);
		FIELD("AUX", s->aux_size % 8 == 0);
	}
#undef FIELD
	return 0;
}

int pd_sample_id_decode(const struct perf_event_attr *attr,
			const struct perf_event_header *rec, struct pd_sample *s)
{
	size_t need = pd_sample_id_size(attr);
	struct pd_cursor c;
	__u64 t = attr->sample_type;

	memset(s, 0, sizeof(*s));
	if (need > rec->size - sizeof(*rec))
		return -EINVAL;
	/* the trailer is read from the record's end: its body may vary */
	c = (struct pd_cursor){ .p = (const __u8 *)rec + rec->size - need, .len = need };
	get_tid_time(&c, t, s);
	get_id_cpu(&c, t, s);
	if (t & PERF_SAMPLE_IDENTIFIER)
		pd_cur_get(&c, &s->id, 8);
	return 0;
}
