// SPDX-License-Identifier: GPL-2.0
/*
 * The order of the LINK_* records of PERF_RECORD_BPF_EVENT. For every
 * link: LINK_ATTACH, then any number of LINK_UPDATE, then at most one
 * LINK_DETACH, then LINK_RELEASE, all with the link's id (never 0).
 *
 * The description tests check what the records say: the attach type is
 * the link's, and a link detached twice is reported once. The stress
 * tests make a fixed number of link lifecycles race with what can detach
 * or reach a link at the same moment, from a second thread, and check
 * every link's records:
 *  - cgroup_rmdir: the link's cgroup is removed while the link is
 *    created, or while it is closed; or, every third link, while the
 *    link is open, and the link is closed once the cgroup's BPF state
 *    has been released (by a worker, which auto-detaches the link), so
 *    that a third of the links at least are detached whatever the
 *    scheduler does;
 *  - netns_exit: the last reference to the network namespace of a flow
 *    dissector link is dropped while the link is created or closed (the
 *    namespace's pre_exit runs in the cleanup_net worker);
 *  - xdp_netdev_del: the dummy device of an XDP link is deleted while the
 *    link is created (bpf_xdp_link_attach() drops RTNL before it settles
 *    the link) or closed;
 *  - fd_by_id: the second thread opens each new link by id as soon as
 *    BPF_LINK_GET_FD_BY_ID finds it, and detaches or updates it, while
 *    its creator closes it. Every other link, the creator waits until the
 *    second thread has it open before it closes it, so that at least half
 *    of the links are reached whatever the scheduler does.
 * Each makes BPF_EVENTS_LINK_ITERS links (LINK_ITERS by default), which
 * may take more iterations: a link whose target went away before it was
 * created is not made. The log says how many links and records were
 * checked.
 *
 * On a kernel without attr.bpf_obj_event the tests SKIP.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>

#include "../kselftest_harness.h"
#include "bpf_events.h"

#define LINK_ITERS	10000
#define RING_PAGES	256

static bool open_recorder(struct __test_metadata *_metadata, struct recorder *r)
{
	int err = recorder_open(r, false, true, RING_PAGES);

	if (err == -EINVAL)
		SKIP(return false, "kernel has no perf_event_attr.bpf_obj_event");
	if (err == -EACCES || err == -EPERM)
		SKIP(return false, "system-wide perf events need CAP_PERFMON");
	EXPECT_EQ(0, err) TH_LOG("perf_event_open: %s", strerror(-err));
	return err == 0;
}

static int iterations(void)
{
	const char *s = getenv("BPF_EVENTS_LINK_ITERS");
	int n = s ? atoi(s) : 0;

	return n > 0 ? n : LINK_ITERS;
}

/* ---- the order of one link's records ---------------------------------- */

static bool is_link_record(int type)
{
	return type == PERF_BPF_EVENT_LINK_ATTACH ||
	       type == PERF_BPF_EVENT_LINK_UPDATE ||
	       type == PERF_BPF_EVENT_LINK_DETACH ||
	       type == PERF_BPF_EVENT_LINK_RELEASE;
}

/* Where each type may come in a link's history, to order equal times */
static int rank(int type)
{
	switch (type) {
	case PERF_BPF_EVENT_LINK_ATTACH:
		return 0;
	case PERF_BPF_EVENT_LINK_UPDATE:
		return 1;
	case PERF_BPF_EVENT_LINK_DETACH:
		return 2;
	default:
		return 3;
	}
}

static int by_id_time(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec * const *)a;
	const struct rec *y = *(const struct rec * const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return rank(x->type) - rank(y->type);
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The links a test created, by id */
struct created {
	uint32_t *ids;
	size_t nr, cap;
};

static void created_add(struct created *c, uint32_t id)
{
	if (c->nr == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->ids = realloc(c->ids, c->cap * sizeof(*c->ids));
		if (!c->ids)
			abort();
	}
	c->ids[c->nr++] = id;
}

/* Note the link of @fd as created; its id, or 0 when it has none. */
static uint32_t created_note(struct created *c, int fd)
{
	struct bpf_link_info info;

	if (obj_info(fd, &info, sizeof(info)))
		return 0;
	created_add(c, info.id);
	return info.id;
}

struct verdict {
	size_t links;		/* links checked */
	size_t records;		/* their LINK_* records */
	size_t bad;		/* links whose records broke the order */
	size_t zero_ids;	/* LINK_* records with id 0 */
	size_t ties;		/* records of one link with equal times */
	size_t detached;	/* links with a LINK_DETACH */
	size_t updated;		/* LINK_UPDATE records */
};

/*
 * Check the records of link @id, @n of them in time order: ATTACH,
 * UPDATE*, DETACH?, RELEASE, each of link type @type.
 */
static bool history_ok(struct rec **h, size_t n, uint16_t type,
		       struct verdict *v)
{
	int state = 0;	/* 0: none yet, 1: attached, 2: detached, 3: released */
	size_t i;

	for (i = 0; i < n; i++) {
		if (i && h[i]->time == h[i - 1]->time)
			v->ties++;
		if (h[i]->flags != type)
			return false;
		switch (h[i]->type) {
		case PERF_BPF_EVENT_LINK_ATTACH:
			if (state != 0)
				return false;
			state = 1;
			break;
		case PERF_BPF_EVENT_LINK_UPDATE:
			if (state != 1)
				return false;
			v->updated++;
			break;
		case PERF_BPF_EVENT_LINK_DETACH:
			if (state != 1)
				return false;
			v->detached++;
			state = 2;
			break;
		case PERF_BPF_EVENT_LINK_RELEASE:
			if (state != 1 && state != 2)
				return false;
			state = 3;
			break;
		}
	}
	return state == 3;
}

static size_t count_released(struct recorder *r, struct created *c)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_recs; i++)
		if (r->recs[i].type == PERF_BPF_EVENT_LINK_RELEASE &&
		    bsearch(&r->recs[i].id, c->ids, c->nr, sizeof(*c->ids),
			    by_value))
			n++;
	return n;
}

/*
 * Wait until every link created has its LINK_RELEASE (a release may be
 * deferred to a worker), then check the history of each. Returns the
 * number of links with a LINK_DETACH.
 */
static size_t check_links(struct __test_metadata *_metadata, struct recorder *r,
			  struct created *c, uint16_t type, const char *window)
{
	uint64_t end = now_ns() + 60 * 1000000000ULL;
	struct verdict v = {};
	struct rec **all;
	size_t i, j, k, n = 0;

	qsort(c->ids, c->nr, sizeof(*c->ids), by_value);
	for (i = 1; i < c->nr; i++)
		ASSERT_NE(c->ids[i - 1], c->ids[i]) TH_LOG("link id %u twice", c->ids[i]);
	do {
		recorder_drain(r);
		if (count_released(r, c) >= c->nr)
			break;
		usleep(10000);
	} while (now_ns() < end);

	all = calloc(r->nr_recs + 1, sizeof(*all));
	ASSERT_NE(NULL, all);
	for (i = 0; i < r->nr_recs; i++) {
		if (!is_link_record(r->recs[i].type))
			continue;
		if (!r->recs[i].id)
			v.zero_ids++;
		all[n++] = &r->recs[i];
	}
	qsort(all, n, sizeof(*all), by_id_time);

	/* Both arrays are sorted by id: walk them together. */
	for (i = 0, j = 0; i < c->nr; i++) {
		while (j < n && all[j]->id < c->ids[i])
			j++;
		for (k = j; k < n && all[k]->id == c->ids[i]; k++)
			;
		v.links++;
		v.records += k - j;
		if (!history_ok(all + j, k - j, type, &v) && v.bad++ < 5) {
			char hist[64] = "";
			size_t m, len = 0;

			for (m = j; m < k && m < j + 8; m++)
				len += snprintf(hist + len, sizeof(hist) - len,
						"%s%u", m > j ? " " : "", all[m]->type);
			TH_LOG("%s: link %u has records '%s'", window, c->ids[i], hist);
		}
		j = k;
	}
	free(all);

	TH_LOG("%s: %zu links, %zu records checked: %zu out of order, %zu with id 0",
	       window, v.links, v.records, v.bad, v.zero_ids);
	TH_LOG("%s: %zu detached, %zu updates, %zu equal times, %llu lost",
	       window, v.detached, v.updated, v.ties,
	       (unsigned long long)r->lost);
	EXPECT_EQ(0, r->corrupt);
	EXPECT_EQ(0, r->lost);
	EXPECT_EQ(0, v.zero_ids);
	EXPECT_EQ(0, v.bad);
	return v.detached;
}

/* ---- a second thread that races with the first ------------------------ */

/*
 * The racer runs one job each time the test posts one, as soon as it sees
 * it: it spins, so that the job lands within the test's next syscall.
 */
struct racer {
	pthread_t thread;
	int posted;		/* jobs posted, done: atomics */
	int done;
	bool stop;
	void (*job)(struct racer *rc);
	/* the job's arguments and results */
	char path[160];
	int fd;
	int ifindex;
	int prog;
	uint32_t prog_id;
	uint32_t want_id;	/* atomic: the creator corrects its guess */
	bool creator_done;
	bool opened;		/* the job has the link open */
	size_t reached, detached, updated;
};

static void *racer_main(void *arg)
{
	struct racer *rc = arg;
	int seen = 0;

	for (;;) {
		int posted = __atomic_load_n(&rc->posted, __ATOMIC_ACQUIRE);

		if (posted == seen) {
			if (__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE))
				return NULL;
			/* the kernel's workers need the CPU too */
			sched_yield();
			continue;
		}
		rc->job(rc);
		seen = posted;
		__atomic_store_n(&rc->done, seen, __ATOMIC_RELEASE);
	}
}

static void racer_post(struct racer *rc)
{
	__atomic_add_fetch(&rc->posted, 1, __ATOMIC_RELEASE);
}

static void racer_wait(struct racer *rc)
{
	int posted = __atomic_load_n(&rc->posted, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&rc->done, __ATOMIC_ACQUIRE) != posted)
		sched_yield();
}

static int racer_start(struct racer *rc, void (*job)(struct racer *))
{
	memset(rc, 0, sizeof(*rc));
	rc->job = job;
	rc->fd = -1;
	return pthread_create(&rc->thread, NULL, racer_main, rc);
}

static void racer_stop(struct racer *rc)
{
	racer_wait(rc);
	__atomic_store_n(&rc->stop, true, __ATOMIC_RELEASE);
	pthread_join(rc->thread, NULL);
}

/* A drain thread: the rings of a long test never fill */
struct drainer {
	pthread_t thread;
	struct recorder *r;
	bool stop;
};

static void *drainer_main(void *arg)
{
	struct drainer *d = arg;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		recorder_drain(d->r);
		usleep(2000);
	}
	return NULL;
}

static int drainer_start(struct drainer *d, struct recorder *r)
{
	d->r = r;
	d->stop = false;
	return pthread_create(&d->thread, NULL, drainer_main, d);
}

static void drainer_stop(struct drainer *d)
{
	__atomic_store_n(&d->stop, true, __ATOMIC_RELEASE);
	pthread_join(d->thread, NULL);
}

/*
 * Three ways to order the racer's job against the link's life, taken in
 * turn: the job while the link is created, while it is closed, and after
 * the link is closed (the job then races with nothing of the link's, but
 * its worker may still run while later links live).
 */
enum race_at { RACE_CREATE, RACE_CLOSE, RACE_AFTER, RACE_NR };

/* ---- description --------------------------------------------------- */

/*
 * A cgroup_skb program loaded without an expected attach type and
 * attached for egress: the records say egress, as the link info does,
 * and name the link's cgroup.
 */
TEST(attach_type_from_link)
{
	struct bpf_link_info info;
	struct recorder r;
	struct rec *x;
	char cg[128];
	int prog, cgfd, link;

	if (!open_recorder(_metadata, &r))
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	link = link_create_attach(prog, cgfd, BPF_CGROUP_INET_EGRESS);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	ASSERT_EQ(BPF_CGROUP_INET_EGRESS, info.cgroup.attach_type);
	close(link);
	x = recorder_wait(&r, PERF_BPF_EVENT_LINK_RELEASE, info.id, 5000);
	ASSERT_NE(NULL, x);
	EXPECT_EQ(BPF_CGROUP_INET_EGRESS, x->desc.link.attach_type);
	/* and the records name the cgroup, as the link info does */
	ASSERT_NE(0, info.cgroup.cgroup_id);
	EXPECT_EQ(info.cgroup.cgroup_id, x->desc.link.target.cgroup_id);
	x = recorder_find(&r, PERF_BPF_EVENT_LINK_ATTACH, info.id);
	ASSERT_NE(NULL, x);
	EXPECT_EQ(BPF_CGROUP_INET_EGRESS, x->desc.link.attach_type);
	EXPECT_EQ(info.prog_id, x->desc.link.prog_id);
	EXPECT_EQ(info.cgroup.cgroup_id, x->desc.link.target.cgroup_id);
	close(prog);
	close(cgfd);
	rmdir(cg);
	recorder_close(&r);
	recorder_free(&r);
}

/*
 * A link whose cgroup went away is detached; BPF_LINK_DETACH of it then
 * succeeds but detaches nothing more: one LINK_DETACH, and no LINK_UPDATE
 * after it.
 */
TEST(detach_reported_once)
{
	struct bpf_link_info info;
	struct created c = {};
	struct recorder r;
	char cg[128];
	int prog, cgfd, link;

	if (!open_recorder(_metadata, &r))
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, prog);
	link = link_create_attach(prog, cgfd, BPF_CGROUP_INET_EGRESS);
	ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	created_add(&c, info.id);
	close(cgfd);
	ASSERT_EQ(0, rmdir(cg));
	ASSERT_NE(NULL, recorder_wait(&r, PERF_BPF_EVENT_LINK_DETACH, info.id,
				      10000));
	EXPECT_EQ(0, link_detach(link));
	EXPECT_NE(0, link_update(link, prog, -1));
	close(link);
	check_links(_metadata, &r, &c, BPF_LINK_TYPE_CGROUP, "detach_reported_once");
	EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_LINK_DETACH, info.id));
	close(prog);
	free(c.ids);
	recorder_close(&r);
	recorder_free(&r);
}

/* ---- stress ---------------------------------------------------------- */

/*
 * The limit of one stress window. A real machine makes its 10000 links in
 * seconds; a debug kernel (KASAN, lockdep) under QEMU TCG needed more
 * than 30 minutes for the netns window. A hung window is still caught
 * early, by whatever watches the output: more_links() prints a line
 * every 1000 iterations.
 */
#define WINDOW_TIMEOUT 3600

/* One stress test: its recorder and threads, the links it made */
struct run {
	struct recorder r;
	struct drainer d;
	struct racer rc;
	struct created c;
	int prog;
	int iters;
	bool running;
};

FIXTURE(stress) {
	struct run s;
};

FIXTURE_SETUP(stress)
{
	struct run *s = &self->s;

	memset(s, 0, sizeof(*s));
	s->prog = -1;
	s->iters = iterations();
	if (!open_recorder(_metadata, &s->r))
		return;
	ASSERT_EQ(0, drainer_start(&s->d, &s->r));
	s->running = true;
}

FIXTURE_TEARDOWN(stress)
{
	struct run *s = &self->s;

	if (s->running)
		drainer_stop(&s->d);
	recorder_close(&s->r);
	recorder_free(&s->r);
	free(s->c.ids);
	if (s->prog >= 0)
		close(s->prog);
}

/*
 * Whether the stress loop of @window goes on after @i iterations: until
 * it has made s->iters links, since an iteration whose target went away
 * first makes none. A window where that keeps happening stops at four
 * times as many iterations, and finish() fails it. A line every 1000
 * iterations shows progress: 10000 links on a debug kernel under QEMU
 * TCG take longer than a console watchdog waits for output.
 */
static bool more_links(const struct run *s, const char *window, int i)
{
	if (i && !(i % 1000))
		ksft_print_msg("%s: %d iterations, %zu links\n", window, i, s->c.nr);
	return s->c.nr < (size_t)s->iters && i < 4 * s->iters;
}

/* Stop the threads and check every link's records; the links detached */
static size_t finish(struct __test_metadata *_metadata,
		     struct run *s, uint16_t type, const char *window, int i)
{
	racer_stop(&s->rc);
	drainer_stop(&s->d);
	s->running = false;
	TH_LOG("%s: %d iterations made %zu links", window, i, s->c.nr);
	EXPECT_LE((size_t)s->iters, s->c.nr)
		TH_LOG("%s: fewer links than the %d asked for", window, s->iters);
	return check_links(_metadata, &s->r, &s->c, type, window);
}

static void rmdir_job(struct racer *rc)
{
	rmdir(rc->path);
}

/*
 * Wait until cgroup link @fd is detached: BPF_OBJ_GET_INFO_BY_FD gives it
 * no cgroup once the cgroup's release worker has detached it. Returns 0,
 * or -1 after 10 s.
 */
static int cgroup_link_wait_detached(int fd)
{
	uint64_t end = now_ns() + 10 * 1000000000ULL;
	struct bpf_link_info info;

	do {
		if (obj_info(fd, &info, sizeof(info)))
			return -1;
		if (!info.cgroup.cgroup_id)
			return 0;
		usleep(1000);
	} while (now_ns() < end);
	return -1;
}

TEST_F_TIMEOUT(stress, cgroup_rmdir, WINDOW_TIMEOUT)
{
	struct run *s = &self->s;
	struct racer *rc = &s->rc;
	size_t held = 0, detached;
	char base[128];
	int i;

	if (!s->running)
		return;
	ASSERT_EQ(0, cgroup_make(base, sizeof(base)));
	s->prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, s->prog);
	ASSERT_EQ(0, racer_start(rc, rmdir_job));
	for (i = 0; more_links(s, "cgroup_rmdir", i); i++) {
		enum race_at at = i % RACE_NR;
		int cgfd, link;

		snprintf(rc->path, sizeof(rc->path), "%s/%d", base, i);
		ASSERT_EQ(0, mkdir(rc->path, 0755)) TH_LOG("mkdir: %s", strerror(errno));
		cgfd = open(rc->path, O_RDONLY | O_DIRECTORY);
		ASSERT_LE(0, cgfd);
		if (at == RACE_CREATE)
			racer_post(rc);
		link = link_create_attach(s->prog, cgfd, BPF_CGROUP_INET_EGRESS);
		close(cgfd);
		if (link >= 0)
			created_note(&s->c, link);
		if (at == RACE_CLOSE)
			racer_post(rc);
		if (at == RACE_AFTER) {
			/* the cgroup goes while the link lives: its worker detaches it */
			racer_post(rc);
			racer_wait(rc);
			if (link >= 0) {
				ASSERT_EQ(0, cgroup_link_wait_detached(link))
					TH_LOG("link of cgroup %d not detached in 10 s", i);
				held++;
			}
		}
		if (link >= 0)
			close(link);
		/* the racer reads the path: wait before the next one */
		racer_wait(rc);
	}
	detached = finish(_metadata, s, BPF_LINK_TYPE_CGROUP, "cgroup_rmdir", i);
	/* every link held across its cgroup's removal, at least */
	EXPECT_LE(held, detached);
	rmdir(base);
}

/* A new network namespace, as an fd; the caller stays in its own. */
static int netns_new(void)
{
	int self_ns = open("/proc/thread-self/ns/net", O_RDONLY), fd = -1;

	if (self_ns < 0)
		return -1;
	if (!unshare(CLONE_NEWNET)) {
		fd = open("/proc/thread-self/ns/net", O_RDONLY);
		if (setns(self_ns, CLONE_NEWNET)) {
			/* a thread stuck in the new namespace cannot go on */
			abort();
		}
	}
	close(self_ns);
	return fd;
}

static void close_job(struct racer *rc)
{
	close(rc->fd);
}

TEST_F_TIMEOUT(stress, netns_exit, WINDOW_TIMEOUT)
{
	struct run *s = &self->s;
	struct racer *rc = &s->rc;
	int i, later[8], nr_later = 0;

	if (!s->running)
		return;
	s->prog = prog_load(BPF_PROG_TYPE_FLOW_DISSECTOR);
	ASSERT_LE(0, s->prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, racer_start(rc, close_job));
	for (i = 0; more_links(s, "netns_exit", i); i++) {
		enum race_at at = i % RACE_NR;
		int nsfd = netns_new(), link;

		if (nsfd < 0 && i == 0)
			SKIP(return, "no network namespaces: %s", strerror(errno));
		ASSERT_LE(0, nsfd) TH_LOG("new netns: %s", strerror(errno));
		/* The namespace's last reference is this fd: the racer drops it. */
		rc->fd = nsfd;
		if (at == RACE_CREATE)
			racer_post(rc);
		link = link_create_attach(s->prog, nsfd, BPF_FLOW_DISSECTOR);
		if (link >= 0)
			created_note(&s->c, link);
		if (at == RACE_CLOSE)
			racer_post(rc);
		if (link >= 0 && at != RACE_AFTER)
			close(link);
		if (at == RACE_AFTER) {
			racer_post(rc);
			/* closed a few namespaces later, once the worker had its chance */
			if (link >= 0) {
				if (nr_later == ARRAY_SIZE(later)) {
					close(later[0]);
					memmove(later, later + 1, sizeof(later) - sizeof(*later));
					nr_later--;
				}
				later[nr_later++] = link;
			}
		}
		racer_wait(rc);
	}
	while (nr_later)
		close(later[--nr_later]);
	finish(_metadata, s, BPF_LINK_TYPE_NETNS, "netns_exit", i);
}

static void netdev_del_job(struct racer *rc)
{
	netdev_del(rc->ifindex);
}

TEST_F_TIMEOUT(stress, xdp_netdev_del, WINDOW_TIMEOUT)
{
	struct run *s = &self->s;
	struct racer *rc = &s->rc;
	int i;

	if (!s->running)
		return;
	s->prog = prog_load_for(BPF_PROG_TYPE_XDP, BPF_XDP);
	ASSERT_LE(0, s->prog) TH_LOG("BPF_PROG_LOAD xdp: %s", strerror(errno));
	ASSERT_EQ(0, racer_start(rc, netdev_del_job));
	for (i = 0; more_links(s, "xdp_netdev_del", i); i++) {
		enum race_at at = i % RACE_NR;
		int link;

		rc->ifindex = dummy_add("bpfev_race0");
		if (rc->ifindex == -EOPNOTSUPP && i == 0)
			SKIP(return, "no dummy network devices (CONFIG_DUMMY)");
		ASSERT_LT(0, rc->ifindex) TH_LOG("RTM_NEWLINK: %s", strerror(-rc->ifindex));
		if (at == RACE_CREATE)
			racer_post(rc);
		link = link_create_attach(s->prog, rc->ifindex, BPF_XDP);
		if (link >= 0)
			created_note(&s->c, link);
		if (at == RACE_CLOSE)
			racer_post(rc);
		if (link >= 0)
			close(link);
		if (at == RACE_AFTER)
			racer_post(rc);
		/* the device is gone before its name is taken again */
		racer_wait(rc);
	}
	finish(_metadata, s, BPF_LINK_TYPE_XDP, "xdp_netdev_del", i);
}

/*
 * Open link @want_id by id as soon as it is published, and detach or
 * update it, until its creator is done with it and it is gone. @want_id
 * is read again on every try: the creator guesses it before it creates
 * the link and stores the real one as soon as it knows it.
 */
static void fd_by_id_job(struct racer *rc)
{
	struct bpf_link_info info;
	union bpf_attr attr;
	int fd;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.link_id = __atomic_load_n(&rc->want_id, __ATOMIC_ACQUIRE);
		fd = sys_bpf(BPF_LINK_GET_FD_BY_ID, &attr);
		if (fd >= 0)
			break;
		if (errno != ENOENT && errno != EAGAIN)
			return;
		if (__atomic_load_n(&rc->creator_done, __ATOMIC_ACQUIRE) &&
		    errno == ENOENT)
			return;
	}
	/* only a link of this test, in case another made the link of that id */
	if (obj_info(fd, &info, sizeof(info)) || info.prog_id != rc->prog_id) {
		close(fd);
		return;
	}
	__atomic_store_n(&rc->opened, true, __ATOMIC_RELEASE);
	rc->reached++;
	if (rc->reached % 2) {
		if (!link_detach(fd))
			rc->detached++;
	} else {
		if (!link_update(fd, rc->prog, -1))
			rc->updated++;
	}
	close(fd);
}

TEST_F_TIMEOUT(stress, fd_by_id, WINDOW_TIMEOUT)
{
	struct run *s = &self->s;
	struct racer *rc = &s->rc;
	uint32_t last = 0;
	char cg[128];
	int i, cgfd;

	if (!s->running)
		return;
	ASSERT_EQ(0, cgroup_make(cg, sizeof(cg)));
	cgfd = open(cg, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cgfd);
	s->prog = prog_load(BPF_PROG_TYPE_CGROUP_SKB);
	ASSERT_LE(0, s->prog);
	ASSERT_EQ(0, racer_start(rc, fd_by_id_job));
	rc->prog = s->prog;
	rc->prog_id = prog_id_of(s->prog);
	for (i = 0; more_links(s, "fd_by_id", i); i++) {
		bool hold = i % 2;
		int link;

		/*
		 * Link ids are allocated in turn: the next link's is last + 1,
		 * unless another link took it, or this is the first link.
		 */
		__atomic_store_n(&rc->want_id, last + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&rc->creator_done, false, __ATOMIC_RELEASE);
		__atomic_store_n(&rc->opened, false, __ATOMIC_RELEASE);
		racer_post(rc);
		link = link_create_attach(s->prog, cgfd, BPF_CGROUP_INET_EGRESS);
		ASSERT_LE(0, link) TH_LOG("BPF_LINK_CREATE: %s", strerror(errno));
		last = created_note(&s->c, link);
		__atomic_store_n(&rc->want_id, last, __ATOMIC_RELEASE);
		/* the job ends early only on an error of BPF_LINK_GET_FD_BY_ID */
		while (hold && !__atomic_load_n(&rc->opened, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&rc->done, __ATOMIC_ACQUIRE) !=
		       __atomic_load_n(&rc->posted, __ATOMIC_ACQUIRE))
			sched_yield();
		close(link);
		__atomic_store_n(&rc->creator_done, true, __ATOMIC_RELEASE);
		racer_wait(rc);
	}
	TH_LOG("fd_by_id: the second thread opened %zu links by id, detached %zu, updated %zu",
	       rc->reached, rc->detached, rc->updated);
	finish(_metadata, s, BPF_LINK_TYPE_CGROUP, "fd_by_id", i);
	/* every held link, and those the second thread caught in time */
	EXPECT_LE(s->iters / 2, rc->reached);
	close(cgfd);
	rmdir(cg);
}

TEST_HARNESS_MAIN
