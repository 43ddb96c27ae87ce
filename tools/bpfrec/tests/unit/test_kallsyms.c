// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of util/kallsyms_copy.c: symbols found in a copy of
 * kallsyms by whole name, hidden addresses, and the live file read once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/kallsyms_copy.h"
#include "tests/unit/unit.h"

static void test_addr(void)
{
	char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000010 T startup_64\n"
		"ffffffff81000020 t x_text\n"
		"ffffffff81000100 T _text\n"
		"ffffffff82000000 T _etext\n"
		"ffffffffc0000000 t mod_func\t[mod]\n"
		"0000000000000000 T hidden\n"
		"ffffffff83000000 D _text_end";
	struct kallsyms_copy k = { .text = text, .len = strlen(text) };
	unsigned long long addr = 0;

	CHECK(kallsyms_copy_addr(&k, "_text", &addr) && addr == 0xffffffff81000100ULL,
	      "_text by its whole name, not inside _stext or x_text: %#llx", addr);
	CHECK(kallsyms_copy_addr(&k, "_etext", &addr) && addr == 0xffffffff82000000ULL,
	      "_etext: %#llx", addr);
	CHECK(kallsyms_copy_addr(&k, "mod_func", &addr) && addr == 0xffffffffc0000000ULL,
	      "a module's symbol, before its [module]: %#llx", addr);
	CHECK(kallsyms_copy_addr(&k, "_text_end", &addr) && addr == 0xffffffff83000000ULL,
	      "the last line, with no newline: %#llx", addr);
	CHECK(!kallsyms_copy_addr(&k, "hidden", &addr), "an address hidden as zero: not found");
	CHECK(!kallsyms_copy_addr(&k, "startup", &addr), "the start of a name only: not found");
	CHECK(!kallsyms_copy_addr(&k, "tartup_64", &addr), "the end of a name only: not found");
	k = (struct kallsyms_copy){ 0 };
	CHECK(!kallsyms_copy_addr(&k, "_text", &addr), "nothing read: not found");
}

/* The live file, read whole: the kernel's _text as a line of it says. */
static void test_live(void)
{
	struct kallsyms_copy k;
	unsigned long long addr, want = 0;
	char line[512], name[256], type, *before;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		skip("live kallsyms", "no /proc/kallsyms");
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, "_text"))
			want = a;
	fclose(f);
	if (!want) {
		skip("live kallsyms", "addresses hidden (not root, or kptr_restrict)");
		return;
	}
	CHECK(!kallsyms_copy_read(&k) && k.len > 100000 && k.text[k.len - 1] == '\n',
	      "/proc/kallsyms read whole: %zu bytes", k.len);
	CHECK(kallsyms_copy_addr(&k, "_text", &addr) && addr == want,
	      "its _text is the kernel's: %#llx", addr);
	before = k.text;
	kallsyms_copy_refresh(&k);
	CHECK(k.text == before && kallsyms_copy_addr(&k, "_text", &addr) && addr == want,
	      "kept, not read again, when no module came or went");
	kallsyms_copy_free(&k);
	CHECK(!k.text && !k.len, "freed");
}

int main(void)
{
	unit_setup();
	test_addr();
	test_live();
	return unit_done();
}
