// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec record: record the life of BPF objects into perf.data.
 *
 * Setup order matters (util/recording.c): events and capture are enabled
 * before existing objects are listed (an object can then appear twice,
 * never zero times), and the workload is released last.  Signals arrive
 * on a signalfd so the file is always finalised from the main loop; a
 * signal to stop is passed on to the workload, and the exit status says
 * it came (128 + signal).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <malloc.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "builtin.h"
#include "util/array.h"
#include "util/capture.h"
#include "util/cmd_loop.h"
#include "util/debug.h"
#include "util/evlist.h"
#include "util/facts.h"
#include "util/linger.h"
#include "util/mono_clock.h"
#include "util/off_cpu.h"
#include "util/out_file.h"
#include "util/parse_num.h"
#include "util/recording.h"
#include "util/sampler.h"
#include "util/sink.h"
#include "util/tracing_data.h"
#include "util/user_obj.h"
#include "util/workload.h"

#define DEFAULT_MMAP_PAGES	256
#define DEFAULT_CAPTURE_MB	16
/* records are drained at least this often even without a wakeup */
#define POLL_MS			100

struct opts {
	const char *output;
	unsigned long duration;
	unsigned long mmap_pages;
	unsigned long capture_mb;
	enum capture_path capture;
	char **cmd;
	struct user_objs objs;		/* --object, --set */
	struct sampler sampler;		/* -e EVENT, -F, -c, -g, -a, -p, -t, --off-cpu */
	bool off_cpu_filtered;		/* an --off-cpu-* option was given */
	struct off_cpu_opts oc;		/* --off-cpu-* */
	char **names;			/* the events of -e lists and globs, owned */
	size_t nr_names, cap_names;
	bool pipe;			/* -o -: perf's pipe mode on stdout */
	char pipe_file[PATH_MAX];	/* the file written first */
	int pipe_fd;			/* the stdout the stream goes to */
};


static const char doc[] =
"Record the life of BPF programs (and, on kernels with bpf_obj_event, maps,\n"
"links and BTF) into a perf.data file, resolving every object in kernel\n"
"context as it is created.\n"
"\n"
"BPF side-band records are always system-wide.  With a command, the\n"
"recording ends when the objects it created are released, at most 1 s\n"
"after it exited (a child may hold them, the kernel may free them later).\n"
"\n"
"EXAMPLES:\n"
"    bpfrec record -e bpf-events                 # until Ctrl-C\n"
"    bpfrec record -e bpf-events --duration 10   # for 10 seconds\n"
"    bpfrec record -e bpf-events -o out.data -- bpftool prog list\n"
"    bpfrec record -e bpf-events -m 1024 --capture-size 64\n"
"    bpfrec record --capture=syscall --duration 10\n"
"    bpfrec record --object execs.bpf.o -- sh -c 'true; true'\n"
"    bpfrec record --object latency.bpf.o --set min_ns=1000 --duration 5\n"
"    bpfrec record --off-cpu -- ./server          # where it waits\n"
"    bpfrec record --off-cpu --off-cpu-thresh 10 --duration 5  # waits >= 10 ms\n"
"    bpfrec record --off-cpu -p 1234 --duration 5  # where process 1234 waits\n"
"    bpfrec record -e cpu-clock -F 999 -g -- ./app   # CPU samples with stacks\n"
"    bpfrec record --off-cpu --call-graph dwarf -- ./app  # also through libc\n"
"    bpfrec record --off-cpu --wakers -- ./app    # and who woke it\n"
"    bpfrec record -e cpu-clock -F 99 -a --duration 5\n"
"    bpfrec record -e sched:sched_switch -p 1234 --duration 2\n"
"\n"
"-e EVENT samples a software event (cpu-clock, task-clock, page-faults,\n"
"minor-faults, major-faults, context-switches, cpu-migrations), a hardware\n"
"one where a PMU exists (cycles, instructions, branches, branch-misses,\n"
"cache-references, cache-misses, ...) or a tracepoint SUBSYS:NAME (every hit,\n"
"its fields in the file), on every task, or on -p, -t or the command.  The\n"
"BPF side-band records come with the samples, so that samples in BPF\n"
"programs are attributed even after they were unloaded.\n"
"\n"
"--object loads a BPF object, attaches each program by its section (kprobe,\n"
"uprobe, tracepoint, raw_tp, tp_btf, fentry, fexit, lsm, usdt) and records\n"
"what it sends through a PERF_EVENT_ARRAY map M (event bpf-output:M) or a\n"
"ring buffer map M (event ringbuf:M); bpfrec script decodes it when the\n"
"object's BTF has a struct named M.  All is detached and unloaded at exit.\n"
"\n"
"--capture picks how objects are described as they are created: fentry\n"
"(BPF trampolines where the kernel assigns the id; free for the rest of the\n"
"machine), syscall (the bpf() syscall tracepoints, for kernels that refuse\n"
"trampolines; every syscall then takes the kernel's traced path), auto (fentry\n"
"where the kernel allows it, the default) or off (by id afterwards, like perf:\n"
"short-lived objects stay unresolved).  A kernel whose records describe maps,\n"
"links and BTF (series v2) needs no capture for them: their records name them.\n"
"\n"
"--off-cpu records the time threads spend off CPU (event offcpu-time, PERIOD\n"
"in ns) with their kernel and user stacks: an interval of at least\n"
"--off-cpu-thresh is a sample of its own, written as it ends; shorter ones\n"
"are summed per thread, stacks and state and written when recording stops.\n"
"With a command, its processes only; with -p, the process and those it\n"
"starts; with -t, the thread; else every user thread.\n"
"\n"
"--call-graph dwarf adds to -e's samples and to --off-cpu's intervals the\n"
"user registers and SIZE bytes of the top of the user stack (perf's fields),\n"
"which report unwinds with the files' CFI: the callers of functions built\n"
"without frame pointers (all of Debian's libc) are then named.\n"
"\n"
"--wakers adds to each off-CPU interval the task that woke it (sched_waking):\n"
"its pid, name and stacks at the wakeup, a sample of offcpu-waker written just\n"
"before the interval's; report --off-cpu and --wall append it to the stack.\n";

enum {
	OPT_DURATION = 0x100,
	OPT_CAPTURE,
	OPT_CAPTURE_PATH,
	OPT_OBJECT,
	OPT_SET,
	OPT_OFF_CPU,
	OPT_OFF_CPU_THRESH,
	OPT_OFF_CPU_STATE,
	OPT_OFF_CPU_THREADS,
	OPT_OFF_CPU_CGROUP,
	OPT_CALL_GRAPH,
	OPT_WAKERS,
};

static const struct argp_option options[] = {
	{ "event", 'e', "EVENT[,EVENT...]", 0,
	  "bpf-events (always recorded), or events to sample, repeatable; SUBSYS:GLOB names "
	  "tracepoints ('sched:*') (see above)", 0 },
	{ "freq", 'F', "HZ", 0,
	  "Sample at HZ per second (default 4000); without -e, samples perf's default event", 0 },
	{ "count", 'c', "PERIOD", 0, "Sample every PERIOD events", 0 },
	{ NULL, 'g', NULL, 0,
	  "Record kernel and user stacks (frame pointers); without -e, samples perf's default event", 0 },
	{ "call-graph", OPT_CALL_GRAPH, "fp|dwarf[,SIZE]", 0,
	  "Stacks by frame pointers, or with SIZE bytes of user stack (default 8192) unwound with "
	  "the files' CFI; lbr is refused (no branch stacks); without -e, samples perf's default event", 0 },
	{ "all-cpus", 'a', NULL, 0,
	  "Sample every task, also while a command runs (the default without -p, -t or a command)", 0 },
	{ "cpu", 'C', "CPUS", 0, "Sample only on these CPUs (0,2-3); BPF records come from every CPU", 0 },
	{ "pid", 'p', "PID", 0, "Sample (and --off-cpu) the threads of process PID", 0 },
	{ "tid", 't', "TID", 0, "Sample (and --off-cpu) thread TID", 0 },
	{ "output", 'o', "FILE", 0,
	  "Output file (default " BPFREC_DEFAULT_FILE "); - writes perf's pipe mode to stdout "
	  "when the recording ends (the command's output then goes to stderr)", 0 },
	{ "duration", OPT_DURATION, "SEC", 0, "Stop after SEC seconds", 0 },
	{ "mmap-pages", 'm', "PAGES", 0, "Pages per CPU ring buffer, power of two (default 256)", 0 },
	{ "capture-size", OPT_CAPTURE, "MB", 0,
	  "In-kernel capture buffer in MiB, power of two (default 16)", 0 },
	{ "capture", OPT_CAPTURE_PATH, "PATH", 0,
	  "In-kernel capture: auto (default), fentry, syscall or off", 0 },
	{ "object", OPT_OBJECT, "FILE", 0, "Load, attach and record the BPF object FILE (repeatable)", 0 },
	{ "set", OPT_SET, "NAME=VALUE", 0,
	  "Set global NAME of the objects (.rodata, .data, .bss) before load (repeatable)", 0 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0, "Record off-CPU time with stacks (event offcpu-time)", 0 },
	{ "off-cpu-thresh", OPT_OFF_CPU_THRESH, "MSEC", 0,
	  "Intervals of at least MSEC ms (or 500us, 2ms, 1s) are samples of their own (default 0.5 ms; perf's is 500 ms)", 0 },
	{ "off-cpu-state", OPT_OFF_CPU_STATE, "STATES", 0,
	  "Task states to record: R preempted, S sleeping, D uninterruptible, T stopped, I idle (default S,D)", 0 },
	{ "off-cpu-threads", OPT_OFF_CPU_THREADS, "WHICH", 0, "user (default), kernel or all threads", 0 },
	{ "wakers", OPT_WAKERS, NULL, 0,
	  "With --off-cpu: who woke each interval, with its stacks (event offcpu-waker)", 0 },
	{ "off-cpu-cgroup", OPT_OFF_CPU_CGROUP, "CGROUP", 0,
	  "Only the tasks of cgroup v2 CGROUP and below (a path, or relative to its mount)", 0 },
	{},
};

/* An event of -e, its name kept for the recording. */
static int add_event(const char *name, void *ctx)
{
	struct opts *o = ctx;
	char *copy;

	if (!strcmp(name, "bpf-events"))
		return 0;
	if (array_room(&o->names, &o->cap_names, o->nr_names, sizeof(*o->names)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	o->names[o->nr_names++] = copy;
	return sampler_add_spec(&o->sampler, copy);
}

/* -e a,b,SUBSYS:GLOB: each item, globs expanded (errmsg_set() on error). */
static int add_events(struct opts *o, const char *arg)
{
	char item[256];
	size_t n;
	int err = 0;

	while (!err && *arg) {
		n = strcspn(arg, ",");
		if (!n || n >= sizeof(item))
			return errmsg_set(-EINVAL, "bad event list '%s' (see bpfrec record --help)", arg);
		snprintf(item, sizeof(item), "%.*s", (int)n, arg);
		err = sample_event_glob(item, add_event, o);
		arg += n + !!arg[n];
	}
	return err;
}

static bool pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct opts *o = state->input;

	switch (key) {
	case 'e': {
		int err = add_events(o, arg);

		if (err == -ENOMEM)
			return ENOMEM;
		/* the line add_events() said or util/ built */
		if (err)
			return cmd_usage_built();
		break;
	}
	case 'F':
		if (parse_ulong(arg, &o->sampler.opts.freq) || !o->sampler.opts.freq)
			return cmd_usage_error(state, "-F wants a frequency in Hz, not '%s'", arg);
		break;
	case 'c':
		if (parse_ulong(arg, &o->sampler.opts.period) || !o->sampler.opts.period)
			return cmd_usage_error(state, "-c wants a period of at least 1, not '%s'", arg);
		break;
	case 'g':
		o->sampler.opts.callchain = true;
		break;
	case OPT_CALL_GRAPH:
		if (!strcmp(arg, "lbr") || !strncmp(arg, "lbr,", 4))
			return cmd_usage_error(state, "--call-graph %s: branch stacks (LBR) are not recorded: use --call-graph fp or dwarf", arg);
		if (sampling_parse_call_graph(arg, &o->sampler.opts))
			return cmd_usage_error(state, "--call-graph wants fp or dwarf[,SIZE] (SIZE 1 to 65528 bytes), not '%s'",
					       arg);
		break;
	case 'C':
		if (sampler_parse_cpus(&o->sampler, arg))
			return cmd_usage_error(state, "-C wants a list of online CPUs like 0,2-3, not '%s'", arg);
		break;
	case 'a':
		o->sampler.system_wide = true;
		break;
	case 'p':
		if (parse_pid(arg, &o->sampler.pid))
			return cmd_usage_error(state, "-p wants a process id, not '%s'", arg);
		break;
	case 't':
		if (parse_pid(arg, &o->sampler.tid))
			return cmd_usage_error(state, "-t wants a thread id, not '%s'", arg);
		break;
	case 'o':
		/* pipe mode: a file of our own first, then the stream (pipe_out()) */
		o->pipe = !strcmp(arg, "-");
		if (o->pipe && isatty(STDOUT_FILENO))
			return cmd_usage_error(state, "-o %s: stdout is a terminal: pipe it (bpfrec record -o - | bpfrec script -i -)", arg);
		o->output = arg;
		break;
	case OPT_DURATION:
		if (parse_duration(arg, &o->duration))
			return cmd_usage_error(state, "invalid duration '%s'", arg);
		break;
	case 'm':
		if (parse_ulong(arg, &o->mmap_pages) || !pow2(o->mmap_pages) ||
		    o->mmap_pages > (1UL << 20))
			return cmd_usage_error(state, "-m wants a power of two number of pages, not '%s'", arg);
		break;
	case OPT_CAPTURE:
		if (parse_ulong(arg, &o->capture_mb) || !pow2(o->capture_mb) ||
		    o->capture_mb > 1024)
			return cmd_usage_error(state, "--capture-size wants a power of two of MiB, not '%s'", arg);
		break;
	case OPT_CAPTURE_PATH:
		for (o->capture = CAPTURE_AUTO; o->capture <= CAPTURE_OFF; o->capture++)
			if (!strcmp(arg, capture_path_name(o->capture)))
				break;
		if (o->capture > CAPTURE_OFF)
			return cmd_usage_error(state, "--capture wants auto, fentry, syscall or off, not '%s'", arg);
		break;
	case OPT_OBJECT:
		if (user_objs_add(&o->objs, arg))
			return ENOMEM;
		break;
	case OPT_SET:
		if (user_objs_add_set(&o->objs, arg))
			return cmd_usage_built();
		break;
	case OPT_OFF_CPU:
		o->sampler.off_cpu = true;
		break;
	case OPT_OFF_CPU_THRESH:
		o->off_cpu_filtered = true;
		if (off_cpu_parse_thresh(arg, &o->oc.thresh_ns))
			return cmd_usage_error(state, "--off-cpu-thresh wants milliseconds or a time with a unit (ns, us, ms, s), at most an hour, not '%s'", arg);
		break;
	case OPT_OFF_CPU_STATE:
		o->off_cpu_filtered = true;
		if (off_cpu_parse_states(arg, &o->oc.states))
			return cmd_usage_error(state, "--off-cpu-state wants letters of R, S, D, T, I, not '%s'", arg);
		break;
	case OPT_OFF_CPU_THREADS:
		o->off_cpu_filtered = true;
		if (off_cpu_parse_threads(arg, &o->oc.threads))
			return cmd_usage_error(state, "--off-cpu-threads wants user, kernel or all, not '%s'", arg);
		break;
	case OPT_WAKERS:
		o->off_cpu_filtered = true;
		o->oc.wakers = true;
		break;
	case OPT_OFF_CPU_CGROUP:
		o->off_cpu_filtered = true;
		o->oc.cgroup = arg;
		break;
	case ARGP_KEY_ARG:
		/* the workload: everything from its name on is its own */
		o->cmd = state->argv + state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_ERROR:
		return cmd_bad_option(state);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct recorder {
	struct opts o;
	struct evlist evlist;
	struct capture cap;
	bool have_cap;
	struct workload wl;
	struct linger linger;
	struct off_cpu oc;
	__u64 wl_exited;	/* when the workload exited, 0 while it runs */
	struct cmd_loop loop;
	struct sink sink;
	struct recording rec;
	struct pd_writer *w;
	struct out_file out;	/* the file until it is renamed over -o's name */
	bool ran;		/* it recorded: the file replaces the previous one */
	void *scratch;
	int stopped_by;		/* the signal that asked to stop, 0 if none */
	__u64 start_time;
};

static int drain_all(struct recorder *r)
{
	/* the objects' ring buffers: sorted with this drain's records */
	int err = user_objs_drain(&r->o.objs);

	if (err >= 0)
		err = recording_drain(&r->rec);
	/* what is on disk stays readable: it was flushed before */
	if (err)
		fprintf(stderr, "bpfrec record: writing %s: %s\n", out_file_partial(&r->out),
			strerror(-err));
	return err;
}

/* Any ring or the capture's buffer wakes the loop: one drain serves them all. */
static int watch_fds(struct recorder *r)
{
	int e, i, err = 0;

	if (r->have_cap)
		err = cmd_loop_add_fd(&r->loop, capture_epoll_fd(&r->cap), 0);
	for (e = 0; e < r->evlist.nr_ev; e++)
		for (i = 0; !err && i < r->evlist.ev[e]->nr; i++)
			err = cmd_loop_add_fd(&r->loop, r->evlist.ev[e]->rings[i].fd, 0);
	if (err)
		fprintf(stderr, "bpfrec record: waiting on the ring buffers: %s\n", strerror(-err));
	return err;
}

/*
 * SIGINT, SIGTERM and SIGHUP alike: without a workload the recording
 * stops now; with one, it stops when the workload has ended (SIGCHLD).
 */
static int on_signal(void *ctx, int signo)
{
	struct recorder *r = ctx;

	if (signo == SIGCHLD) {
		if (r->wl.pid > 0 && !workload_reap(&r->wl, false))
			r->wl_exited = mono_ns();
		return 0;
	}
	r->stopped_by = signo;
	if (r->wl.pid > 0)
		workload_stop(&r->wl);
	else
		r->loop.stop = true;
	return 0;
}

/* The workload exited: stop once its objects are released, or in LINGER_MS. */
static void linger_check(struct recorder *r)
{
	if (!r->linger.nr_alive) {
		r->loop.stop = true;
	} else if (mono_ns() - r->wl_exited >= LINGER_MS * 1000000ULL) {
		fprintf(stderr, "bpfrec record: %zu object%s of %s still alive %d ms after it exited\n",
			r->linger.nr_alive, r->linger.nr_alive == 1 ? "" : "s", r->o.cmd[0],
			LINGER_MS);
		r->loop.stop = true;
	}
}

/* After every wakeup, the signals handled: one drain serves every ready ring. */
static int on_wake(void *ctx)
{
	struct recorder *r = ctx;
	int err = drain_all(r);

	if (!err && r->wl_exited)
		linger_check(r);
	return err;
}

static const struct cmd_loop_ops loop_ops = {
	.signal = on_signal,
	.wake = on_wake,
};

static int loop(struct recorder *r)
{
	int err;

	r->loop.timeout_ms = POLL_MS;
	err = cmd_loop_run(&r->loop);
	if (r->loop.wait_failed)
		fprintf(stderr, "bpfrec record: epoll_wait: %s\n", strerror(-err));
	return err;
}

static int open_writer(struct recorder *r, int argc, char **argv)
{
	struct pd_writer_config cfg = {
		.events = evlist_pd_events(&r->evlist),
		.nr_events = r->evlist.nr_ev,
		.argc = argc,
		.argv = argv,
	};
	const char *why;
	int err;

	if (!cfg.events)
		return -ENOMEM;
	err = out_file_open(&r->out, r->o.output, &why);
	if (!err)
		err = pd_writer_open_fd(&r->w, r->out.fd, &cfg);
	free((void *)cfg.events);
	if (err) {
		fprintf(stderr, "bpfrec record: cannot write %s: %s\n", r->o.output,
			why ? why : strerror(-err));
		out_file_abort(&r->out);
	}
	return err;
}

static int start_capture(struct recorder *r)
{
	const struct capture_opts o = {
		.buf_bytes = r->o.capture_mb << 20,
		.path = r->o.capture,
		.kinds = CAPTURE_ALL,
	};
	char prefix[96];
	int err;

	if (r->o.capture == CAPTURE_OFF)
		return 0;
	err = capture_start(&r->cap, &o, sink_capture, &r->sink);
	if (err == -EPERM && r->o.capture == CAPTURE_FENTRY) {
		fprintf(stderr, "bpfrec record: --capture=fentry: the kernel refuses BPF trampolines (%s); try --capture=syscall\n",
			strerror(-err));
		return err;
	}
	/* forced, it is the capture or nothing; auto records on without */
	if (err) {
		if (r->o.capture == CAPTURE_AUTO)
			snprintf(prefix, sizeof(prefix), "bpfrec record: capture off: ");
		else
			snprintf(prefix, sizeof(prefix), "bpfrec record: --capture=%s: ",
				 capture_path_name(r->o.capture));
		capture_say_failed(&r->cap, prefix);
		return r->o.capture == CAPTURE_AUTO ? 0 : err;
	}
	r->have_cap = true;
	r->sink.cap = &r->cap;
	return 0;
}

/*
 * What is recorded, and how its objects are described, in one line: the
 * kinds the kernel has records of (programs only on a stock kernel) and
 * the capture's paths; then the kinds the capture misses, one line each.
 */
static void say_recording(const struct recorder *r)
{
	const struct capture_kind *prog = &r->cap.kind[0];
	char how[192];
	int n = r->evlist.nr_cpus;

	if (r->have_cap && r->cap.mounted_tracefs)
		pr_progress("bpfrec record: mounted tracefs on /sys/kernel/tracing for the bpf() tracepoints\n");
	if (r->evlist.obj_events) {
		if (r->have_cap)
			capture_describe(&r->cap, how, sizeof(how));
		else
			snprintf(how, sizeof(how), "none: programs resolved by id afterwards, short-lived ones stay unresolved; maps, links and BTF by their records");
		pr_progress("bpfrec record: recording BPF programs, maps, links and BTF on %d CPU%s; described in kernel context: %s\n",
			    n, n == 1 ? "" : "s", how);
	} else {
		if (r->have_cap && prog->on)
			snprintf(how, sizeof(how), "described as they load (%s)",
				 prog->path == CAPTURE_FENTRY ? "fentry" :
				 "the bpf() syscall tracepoints");
		else
			snprintf(how, sizeof(how), "resolved by id afterwards (short-lived ones stay unresolved)");
		pr_progress("bpfrec record: recording BPF programs on %d CPU%s, %s; not maps, links or BTF: kernel lacks bpf_obj_event, which records them\n",
			    n, n == 1 ? "" : "s", how);
	}
	if (r->have_cap)
		capture_say_missing(&r->cap, r->evlist.obj_events ? CAPTURE_ALL : CAPTURE_PROGS);
}

static int start(struct recorder *r)
{
	int err;

	r->rec = (struct recording){
		.evlist = &r->evlist,
		.cap = r->have_cap ? &r->cap : NULL,
		.sink = &r->sink,
		.scratch = r->scratch,
	};
	r->start_time = mono_ns();
	/*
	 * perf's order: the tasks first, in a round before any sample, so
	 * that a sorting reader sees them before the samples of the first
	 * drain
	 */
	err = sampler_synthesize(&r->o.sampler, r->w, &(struct pd_sample){
		.time = r->start_time, .id = r->evlist.ev[0]->ids[0] });
	if (!err)
		err = recording_start(&r->rec, r->start_time, r->evlist.obj_events);
	if (!err && r->o.sampler.off_cpu)
		err = off_cpu_start(&r->oc, r->w, r->o.oc.workload ? r->wl.pid : 0);
	if (err)
		return err;
	/* the user's objects come and go within the recording */
	if (r->o.objs.nr) {
		err = user_objs_load(&r->o.objs, r->w);
		if (err)
			return err;
	}
	if (r->o.cmd && workload_start(&r->wl)) {
		fprintf(stderr, "bpfrec record: starting the workload: %s\n", strerror(errno));
		return -ECHILD;
	}
	/* a command that cannot run is a failed recording (it said why) */
	return r->o.cmd ? workload_exec_error(&r->wl) : 0;
}

/* Once the file is final: its size is what ls shows, features included. */
static void report(struct recorder *r, const struct pd_writer_stats *ws,
		   const struct facts_stats *st, __u64 lost_facts)
{
	struct stat sb;

	char kinds[160];

	/*
	 * The kinds the file has records of, as the report counts them: on a
	 * stock kernel the maps, links and BTF the programs use are facts
	 * without records, and are not counted.
	 */
	if (r->evlist.obj_events)
		snprintf(kinds, sizeof(kinds), "%zu programs, %zu maps, %zu links, %zu BTF (%zu unresolved)",
			 st->ids[PD_PROG], st->ids[PD_MAP], st->ids[PD_LINK], st->ids[PD_BTF],
			 st->unresolved);
	else
		snprintf(kinds, sizeof(kinds), "%zu programs (%zu unresolved)", st->ids[PD_PROG],
			 st->unresolved_of[PD_PROG]);
	pr_progress("bpfrec record: %llu records, %s in %s (%llu KiB)\n",
		    (unsigned long long)ws->records, kinds, r->o.pipe ? "pipe mode on stdout" : r->o.output,
		    stat(r->o.output, &sb) ? 0ULL : (unsigned long long)sb.st_size >> 10);
	if (r->sink.repaired)
		fprintf(stderr, "bpfrec record: %llu oversized side-band records repaired (a stock kernel bug with several listeners)\n",
			(unsigned long long)r->sink.repaired);
	if (r->sink.lost_records || lost_facts)
		fprintf(stderr, "bpfrec record: LOST %llu records (raise -m), %llu captured facts (raise --capture-size)\n",
			(unsigned long long)r->sink.lost_records, (unsigned long long)lost_facts);
	if (r->have_cap)
		capture_report_missed(&r->cap);
}

/*
 * A recording that ran replaces the previous file (kept as FILE.old), even
 * when it was cut short (a full disk): what reached the disk is readable.
 * One that failed before it started (an object the verifier rejected, a
 * command that cannot run) leaves the previous file as it was.
 */
static int keep_file(struct recorder *r, int ret)
{
	int err;

	if (!r->ran) {
		out_file_abort(&r->out);
		return ret;
	}
	err = out_file_commit(&r->out, true);
	if (err)
		fprintf(stderr, "bpfrec record: cannot rename %s to %s: %s (the recording is in %s)\n",
			out_file_partial(&r->out), r->o.output, strerror(-err),
			out_file_partial(&r->out));
	return ret ? ret : err;
}

/* Stop, drain what is left, store the facts, finalise the file. */
static int finish(struct recorder *r, int err)
{
	struct pd_capture c = {};
	struct pd_writer_stats ws;
	struct facts_stats st;
	int ret;

	/* what went wrong first, before what finishing says */
	if (err)
		errmsg_print();
	/* their unload is recorded too: before the last drain */
	user_objs_close(&r->o.objs);
	/* it writes into the events: quiet first */
	if (r->o.sampler.off_cpu)
		off_cpu_stop(&r->oc);
	evlist_enable(&r->evlist, false);
	if (!err)
		err = drain_all(r);
	if (!err && r->o.sampler.off_cpu)
		err = off_cpu_finish(&r->oc, mono_ns());
	c.flags = (r->evlist.obj_events ? PD_CAP_BPF_OBJ_EVENT : 0) |
		  (r->have_cap ? PD_CAP_KERNEL_CAPTURE : 0);
	c.start_time = r->start_time;
	c.end_time = mono_ns();
	c.lost_records = r->sink.lost_records;
	c.lost_facts = r->have_cap ? capture_drops(&r->cap) : 0;
	pd_writer_set_capture(r->w, &c);
	sink_finish(&r->sink);
	if (r->have_cap)
		capture_mark_self(&r->cap, r->sink.facts);
	user_objs_mark(&r->o.objs, r->sink.facts);
	if (r->o.sampler.off_cpu)
		off_cpu_mark(&r->oc, r->sink.facts);
	facts_finish(r->sink.facts, &st);
	ret = facts_store(r->sink.facts, r->w);
	if (!err)
		err = ret;
	/* the kallsyms of now name the samples' kernel frames on any machine */
	if (sampler_takes_samples(&r->o.sampler)) {
		/* the kallsyms of the start, unless modules came or went */
		kallsyms_copy_refresh(&r->o.sampler.kallsyms);
		ret = tracing_data_store(&r->evlist, &r->o.sampler.kallsyms, r->w);
		if (!err)
			err = ret;
	}
	pd_writer_stats(r->w, &ws);
	ret = pd_writer_close(r->w);
	r->w = NULL;
	if (ret)
		fprintf(stderr, "bpfrec record: finalising %s: %s\n", out_file_partial(&r->out),
			strerror(-ret));
	ret = keep_file(r, ret);
	if (!ret && !err)
		report(r, &ws, &st, c.lost_facts);
	if (!ret && !err && r->o.sampler.off_cpu)
		off_cpu_report(&r->oc);
	return err ? err : ret;
}

/*
 * -o -: the recording is a file first (its header and features are
 * written last), a fresh one of our own in $TMPDIR, sent to stdout as
 * perf's pipe mode once it is complete, then removed.
 */
static int pipe_open(struct opts *o)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!o->pipe)
		return 0;
	snprintf(o->pipe_file, sizeof(o->pipe_file), "%s/bpfrec-pipe.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(o->pipe_file);
	if (fd < 0) {
		fprintf(stderr, "bpfrec record: -o -: creating %s: %s\n", o->pipe_file,
			strerror(errno));
		o->pipe_file[0] = 0;
		return -errno;
	}
	close(fd);
	o->output = o->pipe_file;
	/* the command's output must not mix with the stream: it goes to stderr */
	o->pipe_fd = dup(STDOUT_FILENO);
	if (o->pipe_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "bpfrec record: -o -: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

static int pipe_out(struct opts *o, int err)
{
	if (!o->pipe_file[0])
		return err;
	if (!err) {
		err = pd_file_to_pipe(o->pipe_file, o->pipe_fd);
		if (err)
			fprintf(stderr, "bpfrec record: -o -: writing to stdout: %s\n",
				strerror(-err));
	}
	unlink(o->pipe_file);
	if (o->pipe_fd >= 0)
		close(o->pipe_fd);
	return err;
}

static void opts_free(struct opts *o)
{
	while (o->nr_names)
		free(o->names[--o->nr_names]);
	free(o->names);
	o->names = NULL;
}

static void cleanup(struct recorder *r)
{
	opts_free(&r->o);
	workload_abort(&r->wl);
	user_objs_free(&r->o.objs);
	sampler_free(&r->o.sampler);
	off_cpu_close(&r->oc);
	if (r->have_cap)
		capture_stop(&r->cap);
	evlist_close(&r->evlist);
	facts_free(r->sink.facts);
	names_free(&r->sink.names);
	linger_free(&r->linger);
	free(r->scratch);
	cmd_loop_close(&r->loop);
}

/* CMDLINE: how perf shows it, with the tool and subcommand names. */
static char **full_cmdline(int argc, char **argv)
{
	char **v = calloc(argc + 2, sizeof(*v));

	if (!v)
		return NULL;
	v[0] = "bpfrec";
	memcpy(v + 1, argv, argc * sizeof(*v));
	return v;
}

static int record(struct recorder *r, int argc, char **argv)
{
	char **cmdline = full_cmdline(argc, argv);
	int err;

	/* SIGINT, SIGTERM and SIGHUP stop the recording, SIGCHLD the workload's */
	err = cmd_loop_init(&r->loop, CMD_LOOP_SIGHUP | CMD_LOOP_SIGCHLD, &loop_ops, r);
	if (err) {
		fprintf(stderr, "bpfrec record: waiting for signals: %s\n", strerror(-err));
		free(cmdline);
		return err;
	}
	r->sink.facts = facts_new();
	r->scratch = malloc(RING_SCRATCH_SIZE);
	if (!cmdline || !r->sink.facts || !r->scratch) {
		free(cmdline);
		return -ENOMEM;
	}
	/* held before its exec: the sampled events are opened on its pid */
	err = r->o.cmd ? workload_prepare(&r->wl, r->o.cmd) : 0;
	if (!err)
		err = evlist_init(&r->evlist, r->o.mmap_pages);
	if (!err)
		err = evlist_add_sideband(&r->evlist);
	if (!err)
		err = user_objs_add_events(&r->o.objs, &r->evlist);
	if (!err && r->o.sampler.off_cpu)
		err = off_cpu_open(&r->oc, &r->o.oc, &r->evlist);
	if (!err)
		err = sampler_open(&r->o.sampler, &r->evlist, r->wl.pid);
	if (!err)
		err = start_capture(r);
	if (!err)
		err = open_writer(r, argc + 1, cmdline);
	free(cmdline);
	if (err) {
		errmsg_print();
		return err;
	}
	r->sink.w = r->w;
	facts_set_writer(r->sink.facts, r->w);
	/* said once everything else worked: an error is then the only line */
	say_recording(r);
	sampler_describe(&r->o.sampler);
	err = watch_fds(r);
	if (!err && r->o.cmd) {
		r->linger.pid = r->wl.pid;
		r->sink.linger = &r->linger;
	}
	if (!err)
		err = start(r);
	/*
	 * --duration counts from here: listing the objects that exist may
	 * take a second on a busy host, and samples come only from now on
	 */
	if (!err && r->o.duration) {
		err = cmd_loop_arm(&r->loop, r->o.duration, 0);
		if (err)
			fprintf(stderr, "bpfrec record: --duration: %s\n", strerror(-err));
	}
	if (!err) {
		r->ran = true;
		err = loop(r);
	}
	return finish(r, err);
}

int cmd_record(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, "[-- CMD [ARGS]]", doc, cmd_help_children,
				   NULL, NULL };
	struct recorder r = {
		.o = {
			.output = BPFREC_DEFAULT_FILE,
			.mmap_pages = DEFAULT_MMAP_PAGES,
			.capture_mb = DEFAULT_CAPTURE_MB,
			.pipe_fd = -1,
		},
		.wl = { .go_fd = -1, .exec_fd = -1 },
		.loop = CMD_LOOP_INIT,
	};
	int err, status;

	off_cpu_opts_default(&r.o.oc);
	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &r.o);
	if (err) {
		sampler_free(&r.o.sampler);
		opts_free(&r.o);
		return BPFREC_EXIT_USAGE;
	}
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	/*
	 * Start-up frees megabytes (libbpf's copies of the vmlinux BTF) just
	 * before a sampled file's kallsyms and tracing data need as much:
	 * kept in the heap they are reused rather than mapped and faulted in
	 * afresh.  Without samples nothing would reuse them, and the heap
	 * would only hold on to its peak.
	 */
	if (sampler_takes_samples(&r.o.sampler)) {
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_TRIM_THRESHOLD, 64 << 20);
	}
	/* a bad object or --set is bad input: found before anything starts */
	if (r.o.objs.nr_sets && !r.o.objs.nr) {
		fprintf(stderr, "bpfrec record: --set needs --object (see bpfrec record --help)\n");
		err = -EINVAL;
	} else if (r.o.objs.nr) {
		err = user_objs_open(&r.o.objs);
	}
	status = BPFREC_EXIT_USAGE;
	if (!err) {
		err = sampler_check(&r.o.sampler, r.o.cmd);
		/* a machine without the event: not the user's mistake */
		if (err == -EOPNOTSUPP)
			status = BPFREC_EXIT_ERROR;
	}
	if (!err && r.o.off_cpu_filtered && !r.o.sampler.off_cpu) {
		fprintf(stderr, "bpfrec record: the --off-cpu-* options and --wakers need --off-cpu (see bpfrec record --help)\n");
		err = -EINVAL;
	}
	/* the targets of the samplers are off-CPU's too */
	r.o.oc.workload = r.o.cmd && !r.o.sampler.system_wide && !r.o.sampler.cpus;
	r.o.oc.pids = &r.o.sampler.pid;
	r.o.oc.nr_pids = !!r.o.sampler.pid;
	r.o.oc.tids = &r.o.sampler.tid;
	r.o.oc.ustack_size = r.o.sampler.opts.dwarf_size;
	r.o.oc.nr_tids = !!r.o.sampler.tid;
	if (!err && r.o.sampler.off_cpu)
		err = off_cpu_check(&r.o.oc);
	if (err) {
		errmsg_print();
		user_objs_free(&r.o.objs);
		sampler_free(&r.o.sampler);
		opts_free(&r.o);
		return status;
	}
	err = pipe_open(&r.o);
	if (!err)
		err = record(&r, argc, argv);
	if (r.o.pipe)
		err = pipe_out(&r.o, err);
	/* an error util/ built that no step above printed yet */
	if (err)
		errmsg_print();
	if (r.o.cmd && !err) {
		if (r.wl.pid > 0)
			workload_reap(&r.wl, true);
		pr_progress("bpfrec record: %s exited with status %d\n", r.o.cmd[0], r.wl.status);
	}
	cleanup(&r);
	/* a command that cannot run: the shell's status, as perf's */
	if (err && r.wl.exec_failed)
		return 127;
	if (err)
		return BPFREC_EXIT_ERROR;
	/* the file is complete, but the recording was cut short: as a shell says it */
	if (r.stopped_by) {
		fprintf(stderr, "bpfrec record: stopped by SIG%s\n", sigabbrev_np(r.stopped_by));
		return 128 + r.stopped_by;
	}
	return r.o.cmd ? r.wl.status : BPFREC_EXIT_OK;
}
