/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile written as pprof's profile.proto, gzip-compressed, the format
 * `go tool pprof` and most profilers' UIs read (`bpfrec report --pprof`).
 * Encoded with protobuf-c from util/pprof.proto.  Each frame is a
 * location with its function: BPF frames by the program's name as the
 * recording's KSYMBOL records had it (programs unloaded since included),
 * their file the program and its id; kernel and user frames with their
 * file as the mapping.
 */
#ifndef BPFREC_PPROF_H
#define BPFREC_PPROF_H

#include "util/profile.h"
#include "util/profile_print.h"

/*
 * The stacks of @v's event (CPU samples, or off-CPU time with
 * v->off_cpu) to @fd: 0, -ENOMEM, or -EIO.
 */
int pprof_write(const struct profile *p, const struct profile_view *v, int fd);

#endif /* BPFREC_PPROF_H */
