// SPDX-License-Identifier: GPL-2.0
/*
 * map_churn: BPF map create+free throughput, for the cost of the
 * MAP_CREATE/MAP_FREE perf records.
 *
 * Runs rounds of N BPF_MAP_CREATE + close() pairs in three modes,
 * interleaved and in a rotating order so that drift of the machine and
 * the after-effects of one mode (closing events) hit all of them alike,
 * after one untimed warm-up round:
 *   none  - no perf event listening
 *   prog  - system-wide dummy events with attr.bpf_event (program records
 *           only: on a patched kernel, map records cost one atomic read)
 *   obj   - the same with attr.bpf_obj_event (map records are written);
 *           "n/a" on a kernel without the bit
 * The rings are drained between rounds, outside the timed part, and are
 * large enough for a round: a full ring would make the output path cheaper.
 * The process is pinned to one CPU so all records go to one ring.
 * Build against the patched uapi header: -I include/uapi of this repository.
 *
 * Prints one line per mode with the median rate over the rounds and the
 * interquartile range, which tells how noisy the machine was:
 *   map_churn mode=none ops_per_sec=123456 p25=120000 p75=125000 rounds=7 n=20000
 *
 * -m MODE runs that mode alone. Comparing two kernels needs it: a kernel
 * without bpf_obj_event skips the obj rounds, while on the other kernel
 * their after-effects (the freeing of rings full of records) fall into
 * the next rounds of the other modes, and only there.
 *
 *   usage: map_churn [-n pairs_per_round] [-r rounds] [-m none|prog|obj]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#define MAX_CPUS	64
#define RING_PAGES	1024

enum mode { MODE_NONE, MODE_PROG, MODE_OBJ, NR_MODES };
static const char * const mode_name[] = { "none", "prog", "obj" };

struct listener {
	int nr;
	int fd[MAX_CPUS];
	void *base[MAX_CPUS];
};

static long page_size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int map_pair(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* 0, or -errno of the first failing perf_event_open(). */
static int listener_open(struct listener *l, enum mode mode)
{
	struct perf_event_attr attr;
	int cpu, ncpus = get_nprocs_conf();

	l->nr = 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	attr.sample_id_all = 1;
	if (mode == MODE_PROG)
		attr.bpf_event = 1;
	else
		attr.bpf_obj_event = 1;
	for (cpu = 0; cpu < ncpus && cpu < MAX_CPUS; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		void *base;

		if (fd < 0) {
			int err = -errno;

			if (err == -ENODEV)
				continue;
			while (l->nr--)
				close(l->fd[l->nr]);
			return err;
		}
		base = mmap(NULL, (RING_PAGES + 1) * page_size,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			int err = -errno;

			close(fd);
			while (l->nr--)
				close(l->fd[l->nr]);
			return err;
		}
		l->fd[l->nr] = fd;
		l->base[l->nr++] = base;
	}
	return 0;
}

static void listener_drain(struct listener *l)
{
	int i;

	for (i = 0; i < l->nr; i++) {
		struct perf_event_mmap_page *pc = l->base[i];
		unsigned long long head;

		head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	}
}

static void listener_close(struct listener *l)
{
	while (l->nr--) {
		munmap(l->base[l->nr], (RING_PAGES + 1) * page_size);
		close(l->fd[l->nr]);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct listener listeners[NR_MODES];
	double rates[NR_MODES][64];
	bool avail[NR_MODES] = { true, true, true }, wanted[NR_MODES];
	int n = 20000, rounds = 7, opt, r, m, i, err;
	cpu_set_t cpus;

	while ((opt = getopt(argc, argv, "n:r:m:")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'm':
			for (m = 0; m < NR_MODES; m++)
				avail[m] = !strcmp(optarg, mode_name[m]);
			if (!avail[MODE_NONE] && !avail[MODE_PROG] && !avail[MODE_OBJ]) {
				fprintf(stderr, "map_churn: -m takes none, prog or obj, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-n pairs_per_round] [-r rounds] [-m none|prog|obj]\n",
				argv[0]);
			return 2;
		}
	}
	for (m = 0; m < NR_MODES; m++)
		wanted[m] = avail[m];
	if (n <= 0 || rounds <= 0 || rounds > 64) {
		fprintf(stderr, "map_churn: need n > 0 and 0 < rounds <= 64\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	/* Two records of 56 bytes per pair must fit in one ring. */
	if (2ULL * n * 56 > (unsigned long long)RING_PAGES * page_size) {
		fprintf(stderr, "map_churn: -n %d overflows the %d-page ring\n",
			n, RING_PAGES);
		return 2;
	}

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		perror("map_churn: sched_setaffinity (continuing unpinned)");

	err = map_pair();
	if (err) {
		fprintf(stderr, "map_churn: BPF_MAP_CREATE: %s\n", strerror(-err));
		return 1;
	}

	for (r = -1; r < rounds; r++) {
		int k;

		for (k = 0; k < NR_MODES; k++) {
			struct listener *l;
			double t0, t1;

			m = (k + (r < 0 ? 0 : r)) % NR_MODES;
			l = &listeners[m];
			if (!avail[m])
				continue;
			if (m != MODE_NONE) {
				err = listener_open(l, m);
				if (err == -EINVAL && m == MODE_OBJ) {
					avail[m] = false;
					continue;
				}
				if (err) {
					fprintf(stderr, "map_churn: perf_event_open (%s): %s\n",
						mode_name[m], strerror(-err));
					return 1;
				}
			}
			t0 = now();
			for (i = 0; i < n; i++) {
				err = map_pair();
				if (err) {
					fprintf(stderr, "map_churn: BPF_MAP_CREATE: %s\n",
						strerror(-err));
					return 1;
				}
			}
			t1 = now();
			if (r >= 0)
				rates[m][r] = n / (t1 - t0);
			if (m != MODE_NONE) {
				listener_drain(l);
				listener_close(l);
			}
		}
	}

	for (m = 0; m < NR_MODES; m++) {
		if (!wanted[m])
			continue;
		if (!avail[m]) {
			printf("map_churn mode=%s ops_per_sec=n/a rounds=%d n=%d\n",
			       mode_name[m], rounds, n);
			continue;
		}
		qsort(rates[m], rounds, sizeof(double), cmp_double);
		printf("map_churn mode=%s ops_per_sec=%.0f p25=%.0f p75=%.0f rounds=%d n=%d\n",
		       mode_name[m], rates[m][rounds / 2], rates[m][rounds / 4],
		       rates[m][(3 * rounds) / 4], rounds, n);
	}
	return 0;
}
