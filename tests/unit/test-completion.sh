#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 31: the bash, zsh and fish completions of uledsctl offer the same words: commands,
# LED names and triggers (from a stand-in uledsctl that prints list and trigger output as the
# real one does, and other names when the line's --bus session reaches it), set's values,
# the backends and show's properties. Real shells: bash, zsh (on a pty, zpty) and fish
# (complete -C).
# usage: test-completion.sh SOURCE_ROOT
set -u
src=$1
failed=0 n=0
for sh in zsh fish; do
	command -v $sh >/dev/null || { echo "not ok - $sh is not installed (tests/setup-deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/zsh"
cat >"$tmp/bin/uledsctl" <<'S'
#!/bin/sh
prefix=board
case " $* " in *" session "* | *" --bus=session "*) prefix=sess ;; esac
for a; do
	case $a in
	list) printf '%s:green:a  1/1    none   log\n%s:red:b  0/255  timer  gpio\n' $prefix $prefix; exit 0 ;;
	trigger) printf '  none\n* timer\n  heartbeat\n'; exit 0 ;;
	esac
done
S
chmod +x "$tmp/bin/uledsctl"
cp "$src/ctl/_uledsctl" "$tmp/zsh/"
export PATH=$tmp/bin:$PATH

complete_bash() {
	local line=$1
	timeout 20 bash -c '. "$1"; read -ra COMP_WORDS <<<"$2"; [ "${2: -1}" = " " ] && COMP_WORDS+=("");
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _uledsctl; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$src/ctl/uledsctl.bash-completion" "$line"
}
complete_zsh() { timeout 20 zsh -f "$src/tests/unit/zsh-complete.zsh" "$tmp/zsh" "$1"; }
complete_fish() { timeout 20 fish -N -c "source '$src/ctl/uledsctl.fish'; complete -C '$1'" | cut -f1; }

# expect LINE WORD...: each shell offers exactly these words for LINE (in any order).
expect() {
	local line=$1 want got sh
	shift
	want=$(printf '%s\n' "$@" | sort -u | xargs)
	for sh in bash zsh fish; do
		got=$("complete_$sh" "$line" 2>/dev/null | sort -u | xargs)
		n=$((n + 1))
		if [ "$got" = "$want" ]; then
			echo "ok $n - $sh: '$line' offers $want"
		else
			echo "not ok $n - $sh: '$line' offers '$got', not '$want'"
			failed=$((failed + 1))
		fi
	done
}

commands=$(sed -n 's/^\t*local commands="\(.*\)"$/\1/p' "$src/ctl/uledsctl.bash-completion")
# shellcheck disable=SC2086
expect "uledsctl " $commands
expect "uledsctl sh" show
expect "uledsctl show " board:green:a board:red:b
expect "uledsctl get board:r" board:red:b
expect "uledsctl get board:red:b "
expect "uledsctl set board:red:b " on off toggle 0 50% 100% +10% -10%
expect "uledsctl trigger board:red:b " none timer heartbeat
expect "uledsctl trigger board:red:b h" heartbeat
expect "uledsctl --bus session get " sess:green:a sess:red:b
expect "uledsctl --bus session trigger sess:red:b t" timer
expect "uledsctl create x --backend " dbus gpio log pwm
expect "uledsctl show -p MaxB" MaxBrightness
expect "uledsctl record x --format " text csv json vcd
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
