// SPDX-License-Identifier: GPL-2.0
/*
 * bpfrec serve: the cost and the lifecycle of every BPF program as
 * metrics that Prometheus scrapes over HTTP (util/prog_metrics.c), and
 * the lifecycle events as JSON lines for log shippers
 * (util/prog_events.c), from the machinery of `stat --all-progs`
 * (util/stat_progs.c).  One thread: the HTTP server (libmicrohttpd) and
 * the BPF ring buffers are waited on with one epoll.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include "builtin.h"
#include "util/cmd_loop.h"
#include "util/debug.h"
#include "util/mono_clock.h"
#include "util/parse_num.h"
#include "util/peer_uid.h"
#include "util/prog_events.h"
#include "util/prog_metrics.h"
#include "util/stat_progs.h"

#define DEFAULT_LISTEN	"127.0.0.1:9476"
#define MAX_ALLOWED	16

static const char doc[] =
"Serve the cost and the lifecycle of every BPF program to Prometheus.\n"
"\n"
"GET /metrics answers in Prometheus' text format, or OpenMetrics when the\n"
"scraper asks for it: per program alive (id, name, type, tag, loader) its\n"
"runs and run time since bpfrec started; per name, type and loader the same\n"
"sums with the programs freed since, so that a program that lived between\n"
"two scrapes still counts; loads, link attaches and frees by kind, type and\n"
"loader; lost records; and bpfrec's own CPU time.  Series per name are at\n"
"most --max-names; further names are summed under name \"_other\".\n"
"\n"
"Every load, attach and free is also written as a JSON line (to stdout, or\n"
"--events FILE, appended).\n"
"\n"
"The run counts come from the kernel's BPF run time stats, on while bpfrec\n"
"runs: they cost every BPF program run two clock reads.  --lifecycle-only\n"
"leaves them off and serves the lifecycle alone.\n"
"\n"
"bpfrec listens on " DEFAULT_LISTEN " by default.  On loopback it answers\n"
"only root and the users of --allow-uid (what others could not read\n"
"themselves); another address must be asked for with --listen, and then\n"
"anyone who reaches it is answered.\n"
"\n"
"EXAMPLES:\n"
"    bpfrec serve                               # http://127.0.0.1:9476/metrics\n"
"    bpfrec serve --listen 127.0.0.1:9500 --events /var/log/bpf-events.json\n"
"    bpfrec serve --lifecycle-only --allow-uid 115   # the prometheus user\n"
"    curl -s 127.0.0.1:9476/metrics | grep bpfrec_prog_runs_total\n";

enum { OPT_LISTEN = 0x100, OPT_EVENTS, OPT_LIFECYCLE, OPT_MAX_NAMES, OPT_ALLOW_UID };

static const struct argp_option options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "Address to serve on (default " DEFAULT_LISTEN ")", 0 },
	{ "events", OPT_EVENTS, "FILE", 0, "Lifecycle events as JSON lines to FILE ('-': stdout, default)", 0 },
	{ "no-events", 'E', NULL, 0, "No JSON lines", 0 },
	{ "lifecycle-only", OPT_LIFECYCLE, NULL, 0, "Keep the run time stats off: no run counts", 0 },
	{ "max-names", OPT_MAX_NAMES, "N", 0, "Series per name at most (default 1000)", 0 },
	{ "allow-uid", OPT_ALLOW_UID, "UID", 0, "Answer this local user too (repeatable)", 0 },
	{},
};

struct serve_opts {
	const char *listen;
	const char *events;
	bool lifecycle_only;
	unsigned long max_names;
	unsigned int allowed[MAX_ALLOWED];
	int nr_allowed;
};

struct serve {
	struct serve_opts o;
	struct stat_progs progs;
	struct prog_metrics m;
	struct sockaddr_storage addr;
	bool loopback;
	struct MHD_Daemon *httpd;
	struct cmd_loop loop;
	int events_fd;			/* -1: none */
	__u64 scrapes, events_dropped;
	double scrape_cpu_s;
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_opts *o = state->input;
	unsigned long v;

	switch (key) {
	case OPT_LISTEN:
		o->listen = arg;
		break;
	case OPT_EVENTS:
		if (!*arg)
			return cmd_usage_error(state, "%s", "--events wants a file name or '-'");
		o->events = arg;
		break;
	case 'E':
		o->events = NULL;
		break;
	case OPT_LIFECYCLE:
		o->lifecycle_only = true;
		break;
	case OPT_MAX_NAMES:
		if (parse_ulong(arg, &v) || !v || v > 1000000)
			return cmd_usage_error(state, "--max-names wants 1 to 1000000, not '%s'", arg);
		o->max_names = v;
		break;
	case OPT_ALLOW_UID:
		if (parse_ulong(arg, &v) || v >= UINT_MAX)
			return cmd_usage_error(state, "--allow-uid wants a uid, not '%s'", arg);
		if (o->nr_allowed == MAX_ALLOWED)
			return cmd_usage_error(state, "--allow-uid: at most %d users", MAX_ALLOWED);
		o->allowed[o->nr_allowed++] = v;
		break;
	case ARGP_KEY_ARG:
		return cmd_usage_error(state, "unexpected argument '%s'", arg);
	default:
		return cmd_other_key(key, state);
	}
	return 0;
}

/* "127.0.0.1:9476", "[::1]:9476", "localhost:9476" */
static int parse_listen(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	char host[256], *colon;
	struct addrinfo *ai;
	unsigned long port;
	const char *h = host;

	if (strlen(s) >= sizeof(host))
		return -EINVAL;
	strcpy(host, s);
	colon = strrchr(host, ':');
	/* port 0: any free port, said at start */
	if (!colon || parse_ulong(colon + 1, &port) || port > 65535)
		return -EINVAL;
	*colon = 0;
	if (host[0] == '[' && colon > host + 1 && colon[-1] == ']') {
		colon[-1] = 0;
		h++;
	}
	if (!*h || getaddrinfo(h, colon + 1, &hints, &ai))
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static double cpu_seconds(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* A JSON line written whole or not at all: a full pipe must not stop the daemon. */
static void on_event(void *ctx, const struct sp_event *e)
{
	struct serve *sv = ctx;
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	prog_metrics_event(&sv->m, e);
	if (sv->events_fd < 0)
		return;
	f = open_memstream(&line, &len);
	if (!f) {
		sv->events_dropped++;
		return;
	}
	prog_event_json(f, e, real_ns());
	fclose(f);
	if (write(sv->events_fd, line, len) != (ssize_t)len)
		sv->events_dropped++;
	free(line);
}

/* May this connection read the metrics?  NULL if so, else why not. */
static const char *refusal(struct serve *sv, struct MHD_Connection *conn, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci, *fdi;
	unsigned int uid;
	int i, err;

	if (!sv->loopback)
		return NULL;	/* asked for with --listen: said at start */
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	fdi = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || !fdi)
		return "cannot tell who is asking";
	err = peer_uid(fdi->connect_fd, ci->client_addr, &uid);
	if (err) {
		snprintf(buf, len, "cannot tell who is asking: %s", strerror(-err));
		return buf;
	}
	if (!uid)
		return NULL;
	for (i = 0; i < sv->o.nr_allowed; i++)
		if (sv->o.allowed[i] == uid)
			return NULL;
	snprintf(buf, len, "uid %u may not read BPF program stats (bpfrec serve --allow-uid %u)",
		 uid, uid);
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, const char *type,
			     char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *conn, unsigned int status, const char *msg)
{
	char *body = NULL;

	if (asprintf(&body, "%s\n", msg) < 0)
		return MHD_NO;
	return reply(conn, status, "text/plain; charset=utf-8", body, strlen(body));
}

/* One scrape: read the kernel's totals, write them, then fold the freed ones away. */
static enum MHD_Result metrics(struct serve *sv, struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool om = accept && strstr(accept, "application/openmetrics-text");
	double cpu0 = cpu_seconds(RUSAGE_THREAD);
	struct pm_self self = {};
	char *body = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	err = stat_progs_read(&sv->progs, false);
	if (err) {
		fprintf(stderr, "bpfrec serve: reading BPF program stats: %s\n", strerror(-err));
		return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "reading BPF program stats failed");
	}
	self.cpu_s = cpu_seconds(RUSAGE_SELF);
	self.scrape_cpu_s = sv->scrape_cpu_s;
	self.scrapes = sv->scrapes;
	self.lost_freed = sv->progs.lost;
	self.lost_capture = sv->progs.have_cap ? capture_drops(&sv->progs.cap) : 0;
	self.events_dropped = sv->events_dropped;
	f = open_memstream(&body, &len);
	if (!f)
		return MHD_NO;
	err = prog_metrics_write(&sv->m, &sv->progs, &self, om, f);
	if (fclose(f) || err) {
		free(body);
		return text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "writing the metrics failed");
	}
	err = prog_metrics_fold(&sv->m, &sv->progs);
	if (err)
		fprintf(stderr, "bpfrec serve: forgetting freed programs: %s\n", strerror(-err));
	sv->scrapes++;
	sv->scrape_cpu_s += cpu_seconds(RUSAGE_THREAD) - cpu0;
	return reply(conn, MHD_HTTP_OK,
		     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
			  "text/plain; version=0.0.4; charset=utf-8", body, len);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct serve *sv = cls;
	const char *why;
	char buf[160];

	(void)version;
	(void)upload;
	(void)upload_size;
	if (!*state) {
		/* the headers came: the body, if any, is not read */
		*state = sv;
		return MHD_YES;
	}
	why = refusal(sv, conn, buf, sizeof(buf));
	if (why)
		return text(conn, MHD_HTTP_FORBIDDEN, why);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET");
	if (!strcmp(url, "/metrics"))
		return metrics(sv, conn);
	if (!strcmp(url, "/"))
		return text(conn, MHD_HTTP_OK, "bpfrec serve: the metrics are at /metrics");
	return text(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics");
}

/* The JSON lines' file: appended to, but only a regular file of ours, never through a symlink. */
static int open_events(struct serve *sv)
{
	struct stat st;
	int fd;

	if (!sv->o.events) {
		sv->events_fd = -1;
		return 0;
	}
	if (!strcmp(sv->o.events, "-")) {
		sv->events_fd = STDOUT_FILENO;
		/* a reader that stalls costs lines, not the daemon */
		if (!isatty(STDOUT_FILENO))
			fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
		return 0;
	}
	fd = open(sv->o.events, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		  0600);
	if (fd < 0) {
		int err = -errno;

		fprintf(stderr, "bpfrec serve: cannot open %s: %s\n", sv->o.events, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		fprintf(stderr, "bpfrec serve: %s is not a regular file of ours: not writing to it\n",
			sv->o.events);
		close(fd);
		return -EPERM;
	}
	sv->events_fd = fd;
	return 0;
}

static int start_httpd(struct serve *sv)
{
	socklen_t len = sv->addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
							 sizeof(struct sockaddr_in);
	unsigned int flags = MHD_USE_EPOLL | (sv->addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	const union MHD_DaemonInfo *di;
	int fd;

	/* bound by us: a port in use is a clear error, not MHD's */
	fd = socket(sv->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) ||
	    bind(fd, (struct sockaddr *)&sv->addr, len) || listen(fd, 64)) {
		int err = -errno;

		fprintf(stderr, "bpfrec serve: cannot listen on %s: %s\n", sv->o.listen, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	sv->httpd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, sv,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_LIMIT, 64U,
				     MHD_OPTION_CONNECTION_TIMEOUT, 30U,
				     MHD_OPTION_END);
	if (!sv->httpd) {
		fprintf(stderr, "bpfrec serve: cannot start the HTTP server on %s\n", sv->o.listen);
		close(fd);
		return -EIO;
	}
	di = MHD_get_daemon_info(sv->httpd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di || cmd_loop_add_fd(&sv->loop, di->epoll_fd, 0)) {
		fprintf(stderr, "bpfrec serve: cannot wait on the HTTP server\n");
		return -EIO;
	}
	return 0;
}

/* The longest wait: what the HTTP server asks, at most 100 ms. */
static void set_timeout(struct serve *sv)
{
	MHD_UNSIGNED_LONG_LONG to;

	/* the capture wakes us only once its ring is a quarter full */
	sv->loop.timeout_ms = 100;
	if (MHD_get_timeout(sv->httpd, &to) == MHD_YES && to < 100)
		sv->loop.timeout_ms = to;
}

/* Every wakeup: the rings drained, the HTTP server's work done. */
static int on_wake(void *ctx)
{
	struct serve *sv = ctx;
	int err;

	if (sv->loop.stop)
		return 0;
	err = stat_progs_drain(&sv->progs);
	if (err)
		fprintf(stderr, "bpfrec serve: reading the BPF ring buffers: %s\n", strerror(-err));
	MHD_run(sv->httpd);
	set_timeout(sv);
	return 0;
}

/* SIGINT or SIGTERM stops the server (no .signal) */
static const struct cmd_loop_ops loop_ops = {
	.wake = on_wake,
};

static int setup(struct serve *sv)
{
	const struct stat_progs_opts po = { .lifecycle_only = sv->o.lifecycle_only,
					    .on_event = on_event, .ctx = sv };
	int fds[2], n, i, err;

	err = cmd_loop_init(&sv->loop, 0, &loop_ops, sv);
	if (err) {
		fprintf(stderr, "bpfrec serve: waiting for signals: %s\n", strerror(-err));
		return err;
	}
	/* a scraper that hangs up is its own business */
	signal(SIGPIPE, SIG_IGN);
	err = open_events(sv);
	if (err)
		return err;
	prog_metrics_init(&sv->m, sv->o.max_names, sv->o.lifecycle_only);
	err = stat_progs_open_opts(&sv->progs, &po);
	if (err)
		return err;
	n = stat_progs_epoll_fds(&sv->progs, fds);
	for (i = 0; i < n; i++) {
		err = cmd_loop_add_fd(&sv->loop, fds[i], 0);
		if (err)
			return err;
	}
	return start_httpd(sv);
}

static void say_start(struct serve *sv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(sv->httpd, MHD_DAEMON_INFO_LISTEN_FD);
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	if (di && !getsockname(di->listen_fd, (struct sockaddr *)&ss, &len))
		getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	fprintf(stderr, "bpfrec serve: serving http://%s%s%s:%s/metrics%s\n",
		ss.ss_family == AF_INET6 ? "[" : "", host, ss.ss_family == AF_INET6 ? "]" : "", port,
		sv->loopback ? " to root" : " to anyone who reaches it (not loopback)");
	if (sv->o.lifecycle_only)
		fprintf(stderr, "bpfrec serve: lifecycle only: the BPF run time stats stay off, no run counts\n");
	else
		fprintf(stderr, "bpfrec serve: the BPF run time stats are on while bpfrec runs: two clock reads per BPF program run (--lifecycle-only keeps them off)\n");
	if (!sv->progs.have_cap)
		fprintf(stderr, "bpfrec serve: the capture did not load: loaders and attaches are unknown\n");
}

static int loop(struct serve *sv)
{
	int err;

	set_timeout(sv);
	err = cmd_loop_run(&sv->loop);
	if (sv->loop.wait_failed)
		fprintf(stderr, "bpfrec serve: epoll_wait: %s\n", strerror(-err));
	return err;
}

int cmd_serve(int argc, char **argv)
{
	const struct argp argp = { options, parse_opt, NULL, doc, cmd_help_children, NULL, NULL };
	struct serve sv = {
		.o = { .listen = DEFAULT_LISTEN, .events = "-", .max_names = 1000 },
		.progs = { .stats_fd = -1 },
		.loop = CMD_LOOP_INIT,
		.events_fd = -1,
	};
	int err;

	err = argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &sv.o);
	if (err)
		return BPFREC_EXIT_USAGE;
	if (cmd_help_shown())
		return BPFREC_EXIT_OK;
	if (parse_listen(sv.o.listen, &sv.addr)) {
		fprintf(stderr, "bpfrec serve: --listen wants ADDR:PORT like 127.0.0.1:9476, not '%s' (see bpfrec serve --help)\n",
			sv.o.listen);
		return BPFREC_EXIT_USAGE;
	}
	sv.loopback = addr_is_loopback((struct sockaddr *)&sv.addr);
	err = setup(&sv);
	if (err)
		errmsg_print();
	if (!err) {
		say_start(&sv);
		err = loop(&sv);
	}
	if (sv.httpd)
		MHD_stop_daemon(sv.httpd);
	stat_progs_close(&sv.progs);
	prog_metrics_free(&sv.m);
	if (sv.events_fd > STDOUT_FILENO)
		close(sv.events_fd);
	cmd_loop_close(&sv.loop);
	return err ? BPFREC_EXIT_ERROR : BPFREC_EXIT_OK;
}
