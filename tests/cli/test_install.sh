#!/usr/bin/env bash
# `cmake --install` puts the binary in bin/, the labs, Lua library and
# assets in share/cudalab/, the manual page in share/man/man1 and the shell
# completion in share/bash-completion and share/zsh; the installed binary
# finds its files, the manual names every command and option cudalab knows,
# and the bash completion offers them.
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/cudalab-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for p in bin/cudalab share/cudalab/lua/lab.lua share/cudalab/labs/reduction/lab.lua share/cudalab/assets \
         share/man/man1/cudalab.1 share/bash-completion/completions/cudalab \
         share/zsh/site-functions/_cudalab; do
    [ -e "$prefix/$p" ] || { echo "missing after install: $p"; exit 1; }
done
unset CUDALAB_HOME
exe="$prefix/bin/cudalab"
doctor=$("$exe" doctor --json || true)   # exit 3 without a GPU
home=$(printf '%s\n' "$doctor" | grep -A1 '"home"' | sed -n 's/.*"path":[[:space:]]*"\(.*\)".*/\1/p')
case "$home" in
    "$prefix/share/cudalab") ;;
    *) echo "installed binary used '$home', expected $prefix/share/cudalab"; exit 1 ;;
esac
"$exe" list | grep -q reduction
"$exe" check >/dev/null

# ---- the manual page --------------------------------------------------------
man1="$prefix/share/man/man1/cudalab.1"
if command -v groff >/dev/null 2>&1; then
    warnings=$(groff -man -ww -z "$man1" 2>&1 || true)
    [ -z "$warnings" ] || { echo "groff warns about the manual page:"; echo "$warnings"; exit 1; }
    text=$(groff -man -Tutf8 -P-c -P-b -P-u "$man1" 2>/dev/null | sed 's/‐/-/g')
    indent=' +'
else   # no groff here: read the roff source with its escapes undone
    echo "note: groff is not installed; the manual's source is read instead of its rendering"
    text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/^\.[A-Z][A-Z]* *//' -e 's/"//g' "$man1")
    indent=''
fi
for section in NAME SYNOPSIS COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES; do
    grep -q "^$section" <<<"$text" || { echo "the manual has no $section section"; exit 1; }
done
for code in 0 1 2 3 130; do
    grep -Eq "^$indent$code\b" <<<"$text" || { echo "the manual's EXIT STATUS lacks $code"; exit 1; }
done
for var in CUDALAB_HOME CUDALAB_DATA XDG_DATA_HOME CUDALAB_WORKSPACE CUDALAB_GRADE_KEY NO_COLOR EDITOR; do
    grep -q "$var" <<<"$text" || { echo "the manual does not name $var"; exit 1; }
done
# every command, and every option of every command, from cudalab itself
missing=0
for cmd in $("$exe" __complete ""); do
    grep -Eq "^$indent$cmd\b" <<<"$text" || { echo "the manual does not describe 'cudalab $cmd'"; missing=1; }
    for opt in $("$exe" __complete "$cmd" -); do
        grep -q -- "$opt" <<<"$text" || { echo "the manual does not name $opt (cudalab $cmd)"; missing=1; }
    done
done
[ $missing = 0 ] || exit 1

# ---- bash completion ------------------------------------------------------------
complete_with() {  # words...: what the installed script offers for them
    PATH="$prefix/bin:$PATH" bash -c '
        source "$1"; shift
        compopt() { echo ":compopt $1 $2"; }
        COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_WORDBREAKS=" =:"
        _cudalab
        printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/cudalab" "$@"
}
expect_offer() {  # "want" words...: the completion of words offers want
    local want=$1 got; shift
    got=$(complete_with "$@")
    grep -qx -- "$want" <<<"$got" || {
        echo "completing '$*' does not offer '$want'; it offers:"; echo "$got"; exit 1; }
}
expect_offer run cudalab r
expect_offer workspace cudalab w
expect_offer reduction cudalab run ""
expect_offer matmul cudalab run ma
expect_offer sequential cudalab run reduction --variant s
expect_offer 4096x4096x4096 cudalab run matmul --size 4
expect_offer 4096x4096x4096 cudalab run matmul --size = 4
expect_offer --exercise cudalab run reduction --ex
expect_offer --time-limit cudalab --ti
expect_offer racecheck cudalab run reduction --sanitize r
expect_offer html cudalab class reports --format h
expect_offer transpose cudalab profile tr
expect_offer profiling cudalab report ""
expect_offer ":compopt -o dirnames" cudalab --labs ""
expect_offer ":compopt -o default" cudalab check ""
if [ -n "$(complete_with cudalab frobnicate "")" ]; then
    echo "completion offers words after an unknown command"; exit 1
fi
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$prefix/share/zsh/site-functions/_cudalab" || { echo "_cudalab is not valid zsh"; exit 1; }
fi
echo "installed to $prefix: binary finds its labs in $home; manual and completion in place"
