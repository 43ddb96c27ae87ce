// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding a sample's user stack with libdw (util/unwind.h).  Each
 * process gets a Dwfl that keeps the modules (mapped files) reported so
 * far, each at the load bias of its mapping, so a file's CFI is read
 * once; a module that no longer matches the process's mapping at an
 * address (an exec, a new library at the same place) starts the
 * process's Dwfl over.  libdw asks for the registers of the one thread
 * and for stack words: both come from the sample, never from a live
 * process.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#include "util/unwind.h"

/* x86-64: perf's register numbers (PERF_REG_X86_*) */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_FLAGS, PR_CS, PR_SS,
       PR_DS, PR_ES, PR_FS, PR_GS, PR_R8 };
/* DWARF's x86-64 registers 0-16, as perf's numbers (16 is the return address: IP) */
static const int dwarf_to_perf[17] = {
	PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
	PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7,
	PR_IP,
};

struct unwind_proc {
	Dwfl *dwfl;
	bool attached;
	bool stale;		/* a module no longer matches: start over */
};

struct unwind_sample {
	__u32 pid, tid;
	__u64 regs[PR_R8 + 8];	/* by perf number; valid where have_reg */
	__u32 have;		/* bits of the perf numbers present */
	__u64 sp;
	const __u8 *stack;
	__u64 stack_len;
	struct unwind_proc *proc;
	__u64 *out;
	size_t nr, max;
};

static char *no_debuginfo_path;

/* .eh_frame is in the file itself: no search for separate debug info (nor debuginfod). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &no_debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u->cur;
	return u->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwind *u = arg;

	(void)dwfl;
	if ((__u32)tid != u->cur->tid)
		return false;
	*thread_argp = u->cur;
	return true;
}

/* A word of the stack copy; anything else is unknown (the process is not read). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind *u = arg;
	struct unwind_sample *s = u->cur;

	(void)dwfl;
	if (addr < s->sp || addr - s->sp > s->stack_len || s->stack_len - (addr - s->sp) < 8)
		return false;
	memcpy(result, s->stack + (addr - s->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct unwind_sample *s = thread_arg;
	Dwarf_Word regs[17];
	int i;

	for (i = 0; i < 17; i++)
		regs[i] = s->have & 1U << dwarf_to_perf[i] ? s->regs[dwarf_to_perf[i]] : 0;
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/*
 * The load bias of @path mapped at @start from file offset @pgoff: where
 * its addresses (p_vaddr) are in the process.  -1 when the file cannot be
 * read or no executable segment holds the offset.
 */
static int load_bias(const char *path, __u64 start, __u64 pgoff, __u64 *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ret = -1;
	struct stat st;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf = NULL;

	if (fd < 0)
		return -1;
	/* the file names a path: a regular file only (not a FIFO that blocks, not a device) */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X))
				continue;
			if (pgoff + 4096 <= ph.p_offset || pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = start - pgoff + ph.p_offset - ph.p_vaddr;
			ret = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return ret;
}

/*
 * The module of the mapping that holds @addr is reported to the process's
 * Dwfl: 0, or -1 when there is none to report (no mapping, a file that
 * cannot be read, [vdso]).  A module found there that is not the
 * mapping's file makes the Dwfl stale.
 */
static int report_module(struct unwind *u, struct unwind_proc *p, __u64 addr)
{
	const struct umap *m = user_syms_map(u->users, u->cur->pid, addr);
	const char *path, *name;
	Dwfl_Module *mod;
	__u64 bias;

	if (!m)
		return -1;
	path = user_syms_path(u->users, m);
	mod = dwfl_addrmodule(p->dwfl, addr);
	if (mod) {
		name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		if (name && !strcmp(name, path))
			return 0;
		p->stale = true;
		return -1;
	}
	if (path[0] != '/' || load_bias(path, m->start, m->pgoff, &bias))
		return -1;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, path, path, -1, bias, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	return mod ? 0 : -1;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	struct unwind_sample *s = u->cur;
	bool activation;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, &activation) || s->nr >= s->max)
		return DWARF_CB_ABORT;
	s->out[s->nr++] = pc;
	/* the module whose CFI unwinds this frame: that of the call, before the return address */
	if (report_module(u, s->proc, activation ? pc : pc - 1))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static struct unwind_proc *proc_get(struct unwind *u, __u32 pid)
{
	__u64 *slot = hashmap_add(&u->procs, pid, NULL);
	struct unwind_proc *p;

	if (!slot)
		return NULL;
	p = (struct unwind_proc *)(uintptr_t)*slot;
	if (p && p->stale) {
		dwfl_end(p->dwfl);
		free(p);
		p = NULL;
		*slot = 0;
	}
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl) {
		free(p);
		return NULL;
	}
	*slot = (uintptr_t)p;
	return p;
}

/* The sample's registers by perf number, from the mask of the event. */
static bool sample_regs(struct unwind_sample *us, const struct perf_event_attr *attr,
			const struct pd_sample *s)
{
	__u64 mask = attr->sample_regs_user;
	int bit, i = 0;

	if (!(attr->sample_type & PERF_SAMPLE_REGS_USER) || !s->regs_user_abi || !s->regs_user)
		return false;
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & 1ULL << bit))
			continue;
		if (bit < (int)(sizeof(us->regs) / sizeof(us->regs[0]))) {
			us->regs[bit] = s->regs_user[i];
			us->have |= 1U << bit;
		}
		i++;
	}
	return (us->have & (1U << PR_IP | 1U << PR_SP)) == (1U << PR_IP | 1U << PR_SP);
}

/*
 * Where the window ended before the outermost frame, the frame-pointer
 * chain goes on after the last return address the unwinding found, if
 * the chain has it: the frames above are those of functions with frame
 * pointers, which both walks agree on.
 */
static size_t splice(__u64 *out, size_t nr, size_t max, const __u64 *fp, size_t nr_fp)
{
	size_t i;

	for (i = nr_fp; i-- > 1;)
		if (fp[i] == out[nr - 1])
			break;
	if (!i)
		return nr;
	for (i++; i < nr_fp && nr < max; i++)
		out[nr++] = fp[i];
	return nr;
}

size_t unwind_user(struct unwind *u, const struct perf_event_attr *attr,
		   const struct pd_sample *s, const __u64 *fp, size_t nr_fp, __u64 *out,
		   size_t max)
{
	struct unwind_sample us = {
		.pid = s->pid, .tid = s->tid, .out = out, .max = max,
	};
	struct unwind_proc *p;
	int ret;

	if (!(attr->sample_type & PERF_SAMPLE_STACK_USER) || !s->stack_user_dyn_size ||
	    !sample_regs(&us, attr, s))
		return 0;
	/* a process the recording has no mappings of (a waker interrupted): nothing to try */
	if (!user_syms_map(u->users, s->pid, us.regs[PR_IP]))
		return 0;
	us.sp = us.regs[PR_SP];
	us.stack = s->stack_user;
	us.stack_len = s->stack_user_dyn_size;
	u->cur = &us;
	p = proc_get(u, s->pid);
	if (!p)
		return 0;
	us.proc = p;
	if (report_module(u, p, us.regs[PR_IP])) {
		if (p->stale) {
			/* an exec since: this sample starts the process's Dwfl over */
			p = proc_get(u, s->pid);
			us.proc = p;
		}
		if (!p || report_module(u, p, us.regs[PR_IP]))
			goto failed;
	}
	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, s->pid, &thread_callbacks, u))
			goto failed;
		p->attached = true;
	}
	ret = dwfl_getthread_frames(p->dwfl, s->tid, frame_cb, u);
	u->cur = NULL;
	if (us.nr < 2)
		goto failed;
	u->unwound++;
	/* 0: the outermost frame was reached; else the window or the CFI ended */
	return ret ? splice(out, us.nr, max, fp, nr_fp) : us.nr;
failed:
	u->cur = NULL;
	u->failed++;
	return 0;
}

void unwind_free(struct unwind *u)
{
	struct unwind_proc *p;
	size_t i;

	for (i = 0; i < u->procs.cap; i++) {
		if (!u->procs.e[i].used)
			continue;
		p = (struct unwind_proc *)(uintptr_t)u->procs.e[i].val;
		if (p) {
			dwfl_end(p->dwfl);
			free(p);
		}
	}
	hashmap_free(&u->procs);
	memset(u, 0, sizeof(*u));
}
