# Checks of the `make run` demo's output (scripts/check-demo.sh): one "ok" or "not ok"
# line per check, then a summary line; exits 1 when a check failed.
# The output has sections, each opened by a "==== COMMAND" line: bpfrec record,
# bpfrec script, bpfrec report, perf script (perf with the perf tools follow-up, its map,
# link and BTF records: "EVENT(N), flags F, id ID DESCRIPTION"), one tenant (bpfrec
# record --exe, bpfrec script -i tenant.data), a program's metadata and instructions
# (bpfrec record --keep-insns, bpfrec script -i meta.data, its --json, its --dump ID),
# bpfrec stat -b, bpfrec stat -b ID --hist -o hist.data and bpfrec report -i hist.data,
# bpfrec stat --bpf-counters, bpfrec top and serve (not checked), the profile (bpfrec
# record -e cpu-clock of stat-prog, bpfrec script of its program's load and unload,
# bpfrec report --sort dso,bpf), off-CPU time (bpfrec record --off-cpu of the sleeper,
# bpfrec report --off-cpu --folded), and the ids the workload read back (demo.ids):
#   pid PID | btf ID SIZE | map ID TYPE NAME | prog ID TYPE NAME TAG | link ID TYPE PROGID
# The ids come last, so the checks that need them run at the end. Ids are per kind
# (program 11 and BTF 11 are two objects): objects are keyed "KIND:ID".
# bpfrec script's columns: TIME CPU PID/TID COMM EVENT ID NAME TYPE TAG DETAILS...

function check(name, bad) {
	nchecks++
	if (bad == "") {
		print "ok - " name
	} else {
		print "not ok - " name ": " bad
		nfail++
	}
}

BEGIN {
	split("btf map prog link", kinds, " ")
	create["btf"] = "BTF_LOAD"; release["btf"] = "BTF_UNLOAD"
	create["map"] = "MAP_CREATE"; release["map"] = "MAP_FREE"
	create["prog"] = "PROG_LOAD"; release["prog"] = "PROG_UNLOAD"
	create["link"] = "LINK_ATTACH"; release["link"] = "LINK_RELEASE"
	for (k in create) {
		evkind[create[k]] = k
		evkind[release[k]] = k
	}
}

/^==== / {
	sec = $2 == "bpfrec" ? $3 : $2 == "perf" ? "perf-" $3 : "ids"
	if (sec == "stat")
		sec = $4 != "-b" ? "stat-counters" : $6 == "--hist" ? "stat-hist" : "stat-b"
	else if (sec == "record" && $4 == "-e" && $5 == "cpu-clock")
		sec = "prof-record"
	else if (sec == "record" && $4 == "--off-cpu")
		sec = "offcpu-record"
	else if (sec == "record" && $4 == "--exe")
		sec = "tenant-record"
	else if (sec == "record" && $4 == "--keep-insns")
		sec = "meta-record"
	else if ($5 == "prof.data" || $5 == "prof.data:")
		sec = "prof-" sec
	else if ($5 == "offcpu.data")
		sec = "offcpu-" sec
	else if ($5 == "tenant.data")
		sec = "tenant-" sec
	else if ($5 == "hist.data")
		sec = "hist-" sec
	else if ($5 == "meta.data")
		sec = $6 == "--dump" ? "meta-dump" : $6 == "--json" ? "meta-json" : "meta-script"
	# the ids the headers name: the --hist target's, the program --dump prints
	if (sec == "stat-hist")
		hid = $5
	if (sec == "meta-dump")
		did = $7
	seen[sec] = 1
	next
}

# one tenant (record --exe of the workload): stat-prog's program, the workload's objects
# as it printed them ("round 1: loaded BTF id N", ...), what the recorder said
sec == "tenant-record" {
	if ($1 == "id")
		tstat = $2
	if ($1 == "workload:" && $2 == "pid")
		tpid = $3 + 0
	if ($1 == "round" && $3 == "loaded" && $4 == "BTF")
		tobj["btf"] = $6
	if ($1 == "round" && $3 == "created" && $4 == "map")
		tobj["map"] = $7
	if ($1 == "round" && $3 == "loaded" && $4 == "prog")
		tobj["prog"] = $7
	if ($1 == "round" && $3 == "attached" && $4 == "link")
		tobj["link"] = $6
	if (/^bpfrec record: only the objects created by /)
		tonly = $8
	if (/^bpfrec record: [0-9]+ records of other objects left out/)
		tleft = $3
	if (/exited with status/)
		texit = $NF
	next
}

# PID COMM EVENT ID NAME TYPE, counted from the end: a comm may have a space
sec == "tenant-script" && !/^#/ {
	ntl++
	tline[ntl] = $(NF - 3) ":" $(NF - 2)
	tlpid[ntl] = $1
	next
}

# metadata and instructions: meta-load's program, its maps, its PROG_LOAD's JSON fields,
# the head of its dump and a line on its end ("... N instructions in all, the last: I: (95) exit")
sec == "meta-record" {
	if (/^prog=/)
		mid = substr($0, 6)
	if (/^bpfrec record: kept the instructions of /)
		mkept = $7
	if (/exited with status/)
		mexit = $NF
	next
}

sec == "meta-script" {
	if ($1 == "MAP_CREATE")
		mmap[$3] = $2
	if ($2 == mid)
		mev = mev " " $1 ":" $3
	next
}

sec == "meta-json" {
	if (match($0, /"xlated":[0-9]+/))
		mxlated = substr($0, RSTART + 9, RLENGTH - 9)
	if (match($0, /"maps":"[0-9,]+"/))
		mmaps = substr($0, RSTART + 8, RLENGTH - 9)
	if (match($0, /"metadata":\{[^}]*\}/))
		mmeta = substr($0, RSTART + 11, RLENGTH - 11)
	next
}

sec == "meta-dump" {
	if ($1 ~ /^[0-9]+:$/ && $2 ~ /^\([0-9a-f][0-9a-f]\)$/) {
		i = $1 + 0
		if (ndump++ == 0)
			dfirst = i
		else if (i <= dlast)
			dorder = dorder " " i " after " dlast ";"
		dlast = i
		if (index($0, "map[id:" mmap["meta.rodata"] "][0]+"))
			drodata = 1
		if ($NF == "map[id:" mmap["hits"] "]")
			dhits = 1
	}
	if ($1 == "..." && $4 == "in" && $5 == "all,") {
		dnins = $2
		dend = $8 " " $9 " " $10
	}
	next
}

# stat -b --hist -o hist.data, then report -i hist.data: the counts, then the histogram
sec == "stat-hist" {
	if ($1 == "ran")
		hran = $2
	if (/^ Performance counter stats for prog /)
		hhead = $6 " " $7 " " $8 " " $9
	next
}

# "prog ID NAME: N runs, p50 A ns, p90 B ns, p99 C ns, max D ns", "@ns[NAME]:", then
# bpftrace's bars: "[LO, HI)   RUNS |@@@   |"
sec == "hist-report" {
	if (/^# run-time histograms of BPF programs /)
		hcomment = 1
	if ($1 == "prog") {
		hprog = $2 " " $3 " " $4 " " $5
		hp50 = $7; hp90 = $10; hp99 = $13; hmax = $16
	}
	if ($0 == "@ns[stat_target_with_a_long_name]:")
		hat = 1
	if (/^\[[0-9]+[KMGT]?, [0-9]+[KMGT]?\) +[0-9]+ \|@* *\|$/) {
		hsum += $3
		hbars++
	}
	next
}

# the profile: stat-prog's program, sampled; its load and unload; the report by program
sec == "prof-record" {
	if ($1 == "id")
		pid_prog = $2
	if ($1 == "ran")
		pran = $2
	if (/exited with status/)
		pexit = $NF
	next
}

sec == "prof-script" && ($5 == "PROG_LOAD" || $5 == "PROG_UNLOAD") {
	pev = pev " " $5 ":" $6 ":" $7
	next
}

# Overhead Samples Shared-Object BPF-program: samples in BPF code, and the program's
sec == "prof-report" && $1 ~ /%$/ && $3 == "[bpf]" {
	pbpf += $2
	prog = $0
	sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +/, "", prog)
	if (prog == "stat_target_with_a_long_name (id " pid_prog ")")
		pmine += $2
	next
}

# off-CPU: the sleeper's ten sleeps of 50 ms, as folded stacks
sec == "offcpu-record" {
	if ($1 == "slept")
		oslept = $2
	if (/exited with status/)
		oexit = $NF
	next
}

sec == "offcpu-report" {
	ofolded++
	if ($0 !~ /^[^; ]+(;[^;]+)+ [0-9]+$/ && obad == "")
		obad = "line '" $0 "'"
	m = index($0, ";main;")
	if (index($0, "sleeper;") == 1 && m && index(substr($0, m + 1), ";sleep_in_known_place;")) {
		oknown++
		ons += $NF
	}
	next
}

# bpfrec stat -b ID twice: cpu-clock (run time stats), then cpu-clock,page-faults
# (through a trampoline); block nb's header, runs and cost per run
sec == "stat-b" {
	if (/^ Performance counter stats for prog /)
		bhead[++nb] = $6 " " $7 " " $8 " " $9
	if ($1 == "ran")
		bran[++nran] = $2
	if ($2 == "msec" && $4 == "#" && $6 == "ns/run")
		bper[nb, $3] = $1 > 0 && $5 > 0
	if ($2 == "page-faults" && $3 == "#" && $5 == "/run")
		bper[nb, $2] = $1 >= 0
	next
}

# two --bpf-counters sessions: the loop's block, the -a one's, the perf events
sec == "stat-counters" {
	if (/^perf events open while both count: /) {
		cevents = $7
		cncpu = substr($8, 2)
	}
	if ($3 == "cpu-clock" && $4 == "#" && $6 == "CPUs")
		cutil[++ncutil] = $5
	next
}

sec == "record" {
	if ($1 == "bpfrec" && $2 == "record:" && / records, [0-9]+ programs/)
		summary = $0
	if (/exited with status/)
		wexit = $NF
	next
}

sec == "ids" {
	if ($1 == "pid") {
		wpid = $2
	} else if ($1 == "done") {
		done = 1
	} else if ($1 in create) {
		o = $1 ":" $2
		order[++nobj] = o
		nkind[$1]++
		if ($1 != "btf")
			etype[o] = $3
		if ($1 == "map" || $1 == "prog")
			ename[o] = $4
		if ($1 == "prog")
			etag[o] = $5
		if ($1 == "link")
			eprog[o] = $4
		if ($1 == "btf")
			esize[o] = $3
	}
	next
}

# perf's line of a record: its description, keyed by event and object
sec == "perf-script" {
	e = $1
	sub(/\(.*/, "", e)
	if (e in evkind) {
		k = e ":" evkind[e] ":" $5
		pdesc[k] = $6 == "map" ? $7 " " $NF : $6 == "link" ? $7 " " $9 : $7 " " $9
		pn[k]++
	}
	next
}

sec == "script" && !/^#/ && ($5 in evkind) {
	nline++
	ev[nline] = $5
	obj[nline] = evkind[$5] ":" $6
	who[nline] = $3 " " $4
	name[nline] = $7
	type[nline] = $8
	tag[nline] = $9
	next
}

sec == "report" {
	if (/^# lost records: /)
		lost = $0
	if (/^[A-Z]/)
		part = $1
	if (part == "Objects" && /^  (prog|map|link|btf) /)
		bytype[$1 " " $2] = $3 " " $4 " " $5 " " $6 " " $7
	if (part == "Objects" && NF == 6 && $3 ~ /^[0-9]+$/)
		prow[$1] = $0
	if (part == "Lifetimes" && ($1 in create))
		life[$1] = $2
	if (part == "Alive" && ($1 in create))
		alive[++nalive] = $1 ":" $2
	next
}

END {
	bad = ""
	for (i = split("record script report perf-script ids prof-record prof-script prof-report offcpu-record offcpu-report " \
		       "tenant-record tenant-script meta-record meta-script meta-json meta-dump stat-hist hist-report",
		       f, " "); i > 0; i--)
		if (!seen[f[i]])
			bad = bad " " f[i]
	check("the demo printed its sections", bad == "" ? "" : "missing:" bad)
	bad = ""
	if (wpid == "" || !done)
		bad = "no pid line or no 'done' line in demo.ids;"
	for (i = 1; i <= 4; i++)
		if (nkind[kinds[i]] != 2)
			bad = bad " " nkind[kinds[i]] + 0 " " kinds[i] " ids, want 2;"
	check("the workload created 2 BTF objects, maps, programs and links", bad)
	bad = ""
	if (wexit != "0" || summary !~ /\(0 unresolved\)/)
		bad = "exit status '" wexit "', summary '" summary "'"
	check("record: the workload exited 0 and nothing was unresolved", bad)

	# Where each object's records are.
	for (i = 1; i <= nline; i++) {
		o = obj[i]
		if (ev[i] == create[evkind[ev[i]]]) {
			nc[o]++
			cl[o] = i
		} else {
			nr[o]++
			rl[o] = i
		}
	}
	bad = ""
	for (j = 1; j <= nobj; j++) {
		o = order[j]
		split(o, f, ":")
		if (nc[o] != 1 || nr[o] != 1)
			bad = bad sprintf(" %s: %d %s, %d %s;", o, nc[o], create[f[1]],
					  nr[o], release[f[1]])
		else if (cl[o] > rl[o])
			bad = bad " " o ": released before created;"
	}
	check("script: one creation then one release line per object", bad)

	bad = ""
	for (j = 1; j <= nobj; j++) {
		o = order[j]
		c = cl[o]
		r = rl[o]
		if (c == "" || r == "")
			continue
		if (who[c] != wpid "/" wpid " workload")
			bad = bad " " o " created by '" who[c] "';"
		if ((o in ename) && (name[c] != ename[o] || name[r] != ename[o]))
			bad = bad " " o " named " name[c] "/" name[r] ", want " ename[o] ";"
		if ((o in etype) && (type[c] != etype[o] || type[r] != etype[o]))
			bad = bad " " o " typed " type[c] "/" type[r] ", want " etype[o] ";"
		if ((o in etag) && (tag[c] != etag[o] || tag[r] != etag[o]))
			bad = bad " " o " tag " tag[c] "/" tag[r] ", want " etag[o] ";"
	}
	check("script: created by the workload, with the names, types and tags it read back",
	      bad)

	# The workload's creations, in the script's order, must be exactly demo.ids' order;
	# a creation by the workload of an object it did not report is a stray record.
	got = ""
	for (i = 1; i <= nline; i++)
		if (who[i] == wpid "/" wpid " workload" && ev[i] == create[evkind[ev[i]]])
			got = got " " obj[i]
	want = ""
	for (j = 1; j <= nobj; j++)
		want = want " " order[j]
	check("script: the workload's creations in its order, none stray",
	      got == want ? "" : "got" got ", want" want)

	# perf: the creation and the release of each map, link and BTF object, each
	# describing it as the workload read it back
	bad = ""
	for (j = 1; j <= nobj; j++) {
		o = order[j]
		split(o, f, ":")
		if (f[1] == "prog")
			continue
		want = f[1] == "map" ? etype[o] " " ename[o] : \
		       f[1] == "link" ? etype[o] " " eprog[o] : "user " esize[o]
		for (i = 0; i < 2; i++) {
			k = (i ? release[f[1]] : create[f[1]]) ":" o
			if (pn[k] != 1 || pdesc[k] != want)
				bad = bad " " k ": " pn[k] + 0 " lines, '" pdesc[k] "', want '" want "';"
		}
	}
	check("perf script: each map, link and BTF record, described as the workload read it back", bad)

	bad = ""
	half = nobj / 2
	for (j = 1; j <= half; j++)
		if (rl[order[j]] == "" || rl[order[j]] > cl[order[half + 1]])
			bad = bad " " order[j] " not released before round 2 began;"
	check("script: round 1 released before round 2 began", bad)

	check("report: no record lost",
	      lost == "# lost records: 0 (in 0 LOST records)" ? "" : "'" lost "'")
	bad = ""
	split("prog raw_tracepoint|map array|link raw_tracepoint|btf user", rows, "|")
	for (i = 1; i <= 4; i++)
		if (bytype[rows[i]] != "2 2 0 0 0")
			bad = bad " " rows[i] ": '" bytype[rows[i]] "';"
	check("report: by type, 2 created, 2 destroyed, none alive, synthesised or unresolved",
	      bad)
	split(prow[wpid], f, " ")
	bad = ""
	if (f[2] != "workload" || f[3] != 2 || f[4] != 2 || f[5] != 2 || f[6] != 2)
		bad = "row '" prow[wpid] "'"
	check("report: the workload's row counts 2 programs, maps, links and BTF objects", bad)
	bad = ""
	for (i = 1; i <= 4; i++)
		if (life[kinds[i]] != 2)
			bad = bad " " kinds[i] " " life[kinds[i]] + 0 ";"
	check("report: lifetimes of exactly the workload's 2 objects of each kind", bad)
	bad = ""
	for (j = 1; j <= nalive; j++)
		for (i = 1; i <= nobj; i++)
			if (alive[j] == order[i])
				bad = bad " " alive[j]
	check("report: none of the workload's objects alive at the end",
	      bad == "" ? "" : "alive:" bad)

	# one tenant: the workload's objects, all their records, nothing of stat-prog's
	bad = ""
	if (texit != "0" || tonly != "/opt/bpfrec/tests/guest/workload;" || !(tleft > 0) || tstat == "")
		bad = "exit status '" texit "', only '" tonly "', left out '" tleft "', stat-prog's program '" tstat "'"
	check("tenant: record --exe kept the workload's objects and left out the others' records (" tleft + 0 ")",
	      bad)
	want = " BTF_LOAD:" tobj["btf"] " MAP_CREATE:" tobj["map"] " PROG_LOAD:" tobj["prog"] \
	       " LINK_ATTACH:" tobj["link"]
	got = ""
	for (i = 1; i <= 4 && i <= ntl; i++)
		got = got " " tline[i] (tlpid[i] == tpid ? "" : "(pid " tlpid[i] ")")
	check("tenant: script first shows the workload's creations, in its order, by its pid " tpid,
	      got == want && tpid != "" ? "" : "got" got ", want" want " by pid " tpid)
	# the releases come in the order the kernel frees the objects
	split("LINK_RELEASE:" tobj["link"] " PROG_UNLOAD:" tobj["prog"] " MAP_FREE:" tobj["map"] \
	      " BTF_UNLOAD:" tobj["btf"], rel, " ")
	bad = ""
	for (j = 1; j <= 4; j++) {
		n = 0
		for (i = 5; i <= ntl; i++)
			n += tline[i] == rel[j]
		if (n != 1)
			bad = bad " " rel[j] ": " n " lines;"
	}
	if (ntl != 8)
		bad = bad " " ntl + 0 " lines, want 8;"
	for (i = 1; i <= ntl; i++)
		if (tline[i] ~ /^PROG_/ && tline[i] ~ ":" tstat "$")
			bad = bad " stat-prog's program: " tline[i] ";"
	check("tenant: then one release of each, and nothing else (not stat-prog's program " tstat ")", bad)

	# a program's metadata and instructions
	bad = ""
	want = " PROG_LOAD:meta_prog PROG_UNLOAD:meta_prog"
	if (mexit != "0" || mid == "" || mev != want || mmap["hits"] == "" || mmap["meta.rodata"] == "")
		bad = "exit status '" mexit "', prog '" mid "', its records '" mev "', want '" want \
		      "', maps hits '" mmap["hits"] "' and meta.rodata '" mmap["meta.rodata"] "'"
	check("metadata: meta-load's program " mid " loaded and unloaded as meta_prog, its maps hits and meta.rodata created",
	      bad)
	bad = ""
	want = "{\"owner\":\"\\\"bpfrec test\\\"\",\"level\":\"-42\"}"
	if (mmeta != want)
		bad = "metadata '" mmeta "', want '" want "';"
	if (mmaps != mmap["meta.rodata"] "," mmap["hits"] && mmaps != mmap["hits"] "," mmap["meta.rodata"])
		bad = bad " maps '" mmaps "', want hits and meta.rodata;"
	check("metadata: the PROG_LOAD's \"metadata\" is meta.bpf.c's two bpf_metadata_* variables, its \"maps\" its two maps",
	      bad)
	bad = ""
	if (did != mid || !(mkept >= 1))
		bad = "dump of '" did "', kept the instructions of '" mkept "' programs;"
	if (ndump != 12 || dfirst != 0 || dorder != "")
		bad = bad " " ndump + 0 " lines shown from index " dfirst ", order:" dorder ";"
	if (!drodata || !dhits)
		bad = bad " no map[id:" mmap["meta.rodata"] "][0]+ (meta.rodata) or map[id:" mmap["hits"] "] (hits);"
	if (mxlated == "" || dend != mxlated / 8 - 1 ": (95) exit")
		bad = bad " ends with '" dend "', want exit at index " mxlated / 8 - 1 " (xlated " mxlated " bytes);"
	check("--keep-insns: script --dump " mid " from index 0, its maps by id, ending with exit in its last of " \
	      mxlated / 8 " slots", bad)

	bad = ""
	if (!seen["stat-b"] || !seen["stat-counters"])
		bad = "missing section(s):" (seen["stat-b"] ? "" : " stat -b") \
		      (seen["stat-counters"] ? "" : " --bpf-counters")
	check("the demo ran its two bpfrec stat steps", bad)
	bad = ""
	if (nb != 2 || nran != 2)
		bad = nb " blocks and " nran " stat-prog runs, want 2 of each;"
	for (i = 1; i <= 2; i++) {
		if (bhead[i] !~ /^[0-9]+ stat_target_with_a_long_name, 1000 runs:$/)
			bad = bad " header " i " 'prog " bhead[i] "', want 'prog ID stat_target_with_a_long_name, 1000 runs:';"
		if (bran[i] != 1000)
			bad = bad " stat-prog ran '" bran[i] "' times;"
		if (!bper[i, "cpu-clock"])
			bad = bad " block " i ": cpu-clock per run not > 0;"
	}
	if (!bper[2, "page-faults"])
		bad = bad " block 2: no page-faults per run;"
	check("stat -b: 1000 runs of the target, named from its BTF, a cost per run > 0, both ways", bad)
	bad = ""
	if (cevents == "" || cevents != cncpu)
		bad = "perf events '" cevents "' for " cncpu " CPUs;"
	if (ncutil != 2 || !(cutil[1] > 0 && cutil[1] <= 1.05) ||
	    !(cutil[2] > cncpu * 0.95 && cutil[2] <= cncpu * 1.05))
		bad = bad " CPUs utilized: loop '" cutil[1] "' (want (0, 1.05]), -a '" cutil[2] \
		      "' (want " cncpu " +-5 %);"
	check("--bpf-counters: two sessions share one perf event per CPU; the loop <= 1 CPU, -a all of them",
	      bad)

	# the run times' histogram, kept in hist.data and read back by report
	bad = ""
	if (hran != 1000 || hhead != hid " stat_target_with_a_long_name, 1000 runs:")
		bad = "stat-prog ran '" hran "' times, block 'prog " hhead "', want 'prog " hid \
		      " stat_target_with_a_long_name, 1000 runs:'"
	check("stat -b --hist -o: 1000 runs of the two-mode target " hid ", counted", bad)
	bad = ""
	if (!hcomment || hprog != hid " stat_target_with_a_long_name: 1000 runs," || !hat)
		bad = "comment line " hcomment + 0 ", 'prog " hprog "', @ns[stat_target_with_a_long_name]: " hat + 0 ";"
	if (hsum != 1000)
		bad = bad " the bars count " hsum + 0 " runs in " hbars + 0 " bars;"
	if (!(hp50 > 0 && hp50 <= hp90 && hp90 <= hp99 && hp99 <= hmax))
		bad = bad " p50 " hp50 ", p90 " hp90 ", p99 " hp99 ", max " hmax " out of order;"
	check("report -i hist.data: program " hid "'s 1000 runs in " hbars + 0 " bars, p50 <= p90 <= p99 <= max", bad)
	# every tenth run does 100 times the work: p99 is among the long runs, p50 among the short
	check("report -i hist.data: two modes, p99 " hp99 " ns >= 10 x p50 " hp50 " ns",
	      hp99 >= 10 * hp50 && hp50 > 0 ? "" : "p99 " hp99 ", p50 " hp50)

	bad = ""
	if (pid_prog == "" || pran != 20000 || pexit != "0")
		bad = "program id '" pid_prog "', ran '" pran "', exit status '" pexit "'"
	check("profile: stat-prog ran its program 20000 times and exited 0", bad)
	want = " PROG_LOAD:" pid_prog ":stat_target_with_a_long_name PROG_UNLOAD:" pid_prog \
	       ":stat_target_with_a_long_name"
	check("profile: the program loaded, then unloaded, before the report",
	      pev == want ? "" : "script shows '" pev "', want '" want "'")
	bad = ""
	if (pbpf < 20 || 2 * pmine <= pbpf)
		bad = pmine + 0 " of " pbpf + 0 " samples in BPF code"
	check("profile: > 50 % of the samples in BPF code are stat_target_with_a_long_name (id " \
	      pid_prog ")'s (" pmine + 0 " of " pbpf + 0 ")", bad)
	bad = ""
	if (oexit != "0" || oslept == "")
		bad = "sleeper exit status '" oexit "', slept '" oslept "'"
	else if (obad != "")
		bad = obad
	else if (!oknown)
		bad = "no stack sleeper;...;main;...;sleep_in_known_place;... in " ofolded + 0 " lines"
	# At least 95 % of the 500 ms asked for: each interval starts when the task
	# leaves the CPU, after it armed its timer, and a busy host can take the
	# emulated CPU away between the two (498.4 ms in a rehearsal beside another
	# one). A lost sleep takes 50 ms away, which is below that.
	else if (ons < 475000000 || ons > oslept)
		bad = ons " ns off CPU in sleep_in_known_place, want 475 ms (95 % of 500) to the " \
		      oslept " ns the sleeps took by the sleeper's clock"
	else if (oslept <= 525000000 && ons > 525000000)
		bad = ons " ns off CPU in sleep_in_known_place, want 500 ms within 5 %"
	# a host busy enough delays the guest's timers: the sleeps take longer
	check("off-CPU --folded: sleeper;...;main;...;sleep_in_known_place;..., 10 x 50 ms within 5 % (" \
	      sprintf("%.1f", ons / 1e6) " ms" (oslept > 525000000 ? ", the sleeps took " \
	      sprintf("%.1f", oslept / 1e6) " ms: 5 % not asked" : "") ")", bad)

	printf "demo: %d of %d checks passed\n", nchecks - nfail, nchecks
	exit nfail > 0
}
