#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the version `bpfrec --version` names: `git describe` of the checkout
# (the last tag, commits since and the commit; "-dirty" when tracked files
# were changed), the project's VERSION file and the commit when no tag exists
# yet, and the VERSION file alone outside git (a source tarball).
#   usage: version.sh TOP       (TOP: the project's top folder, holding VERSION)
top=$1
base=$(cat "$top/VERSION" 2>/dev/null || echo unknown)

# Only the project's own repository counts, not one that happens to hold
# an unpacked tarball of it.
gittop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)
if [ -z "$gittop" ] || [ "$(cd "$gittop" && pwd -P)" != "$(cd "$top" && pwd -P)" ]; then
	echo "$base"
	exit 0
fi
if desc=$(git -C "$top" describe --tags --dirty --abbrev=12 2>/dev/null); then
	echo "$desc"
else
	echo "$base-g$(git -C "$top" describe --always --dirty --abbrev=12)"
fi
