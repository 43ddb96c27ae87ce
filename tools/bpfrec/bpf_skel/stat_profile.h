/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Limits shared by stat_profile.bpf.c and user space (util/stat_events.h
 * must agree on the number of events).
 */
#ifndef __BPFREC_STAT_PROFILE_H
#define __BPFREC_STAT_PROFILE_H

#define STAT_PROFILE_MAX_EVENTS	8
#define STAT_PROFILE_MAX_CPUS	1024

#endif /* __BPFREC_STAT_PROFILE_H */
