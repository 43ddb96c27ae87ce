/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What stat_progs.bpf.c reports of a program being freed: its final run
 * statistics, read while the kernel still holds them.  Shared by the BPF
 * side and user space: fixed-size, no pointers.
 */
#ifndef __BPFREC_STAT_PROGS_H
#define __BPFREC_STAT_PROGS_H

#define STAT_PROGS_NAME_LEN	16	/* BPF_OBJ_NAME_LEN */

/*
 * The id is already released when the program is freed: load_time and
 * tag, which bpf_prog_info reports too, tell which program it was.
 */
struct stat_freed {
	__u64 load_time;	/* boot time ns */
	__u64 run_cnt;
	__u64 run_time_ns;
	__u32 type;
	__u8 tag[8];
	char name[STAT_PROGS_NAME_LEN];
};

#endif /* __BPFREC_STAT_PROGS_H */
