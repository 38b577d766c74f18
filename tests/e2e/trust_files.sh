#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root follows only files root (or the user running loadd) controls: no
# profile from the current directory, none another user owns or can write,
# and no program found through an empty or relative PATH entry.
source "$(dirname "$0")/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "needs the user nobody"

# Another user's config/quick.conf in the current directory is not root's
# quick profile.
hostile="$T/hostile"
mkdir -p "$hostile/config"
cat >"$hostile/config/quick.conf" <<EOF2
[probe]
job = /bin/sh -c "id > $T/pwned"
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
EOF2
chown -R nobody "$hostile"
(cd "$hostile" && "$LOADD" --check --profile quick) >"$T/plan" 2>"$T/err" || true
if grep -q "$hostile\|(\./config" "$T/plan"; then
	fail "root took the current directory's profile: $(head -1 "$T/plan")"
fi
# The build tree still finds its source's profiles by name.
grep -q "^profile quick ($SRC/config/quick.conf)\|^profile quick (/" "$T/plan" ||
	fail "quick not found by name from the build tree: $(cat "$T/plan" "$T/err")"

# Named by path: refused when another user owns it or may write it.
chmod 0755 "$hostile"
expect 2 "belongs to uid [0-9]+, not to root" "$LOADD" --check --profile "$hostile/config/quick.conf"
good=$(profile good <<'EOF2'
[probe]
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
EOF2
)
chmod 0666 "$good"
expect 2 "profile $good is writable by other users" "$LOADD" --check --profile "$good"
chmod 0644 "$good"
mkdir -m 0777 "$T/open"
cp "$good" "$T/open/good.conf"
expect 2 "directory $T/open is writable by other users" "$LOADD" --check --profile "$T/open/good.conf"
"$LOADD" --check --profile "$good" >/dev/null || fail "a root-owned profile was refused"

# An empty PATH entry means the current directory: root's job must not find
# a planted ls there.
cat >"$hostile/ls" <<EOF2
#!/bin/sh
id > $T/pwned-ls
EOF2
chmod 0755 "$hostile/ls"
job=$(profile job <<'EOF2'
[probe]
job = ls {tree}
every = 200ms
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
[run]
settle = 0s
EOF2
)
(cd "$hostile" && PATH=":/usr/bin:/bin" "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" \
	--profile "$job") >"$T/out" 2>"$T/err" || fail "the job run failed: $(cat "$T/err")"
[[ ! -e "$T/pwned-ls" ]] || fail "root ran ./ls through an empty PATH entry"
[[ ! -e "$T/pwned" ]] || fail "root ran the hostile profile's job"
n=$(sql "select count(*) from samples where exit_code = 0")
[[ $n -gt 0 ]] || fail "the job never ran from the safe PATH"
echo PASS
