# bash completion for cudalab.  The candidates come from `cudalab
# __complete WORD...`, which reads cudalab's own command and option tables
# and its labs, so they follow every change to them.  Installed as
# share/bash-completion/completions/cudalab; or source this file.

_cudalab()
{
    local prog=${COMP_WORDS[0]}
    [[ $prog == */* && -x $prog ]] || prog=cudalab
    # COMP_WORDS splits "--size=2^20" at '='; join it back.
    local -a w=()
    local i t
    for (( i = 1; i <= COMP_CWORD; i++ )); do
        t=${COMP_WORDS[i]}
        if (( ${#w[@]} > 0 )) && [[ ${w[-1]} == --* && ( $t == = || ${w[-1]} == *= ) ]]; then
            w[-1]+=$t
        else
            w+=("$t")
        fi
    done
    (( ${#w[@]} > 0 )) || w=("")
    local cur=${w[-1]}
    local out
    out=$("$prog" __complete "${w[@]}" 2>/dev/null) || return 0
    COMPREPLY=()
    local line
    local IFS=$'\n'
    for line in $out; do
        case $line in
            :files) compopt -o default 2>/dev/null; COMPREPLY=(); return 0 ;;
            :dirs) compopt -o dirnames 2>/dev/null; COMPREPLY=(); return 0 ;;
            *) COMPREPLY+=("$line") ;;
        esac
    done
    # readline replaces only what follows the last '=' of the word
    if [[ $cur == *=* && $COMP_WORDBREAKS == *=* ]]; then
        COMPREPLY=("${COMPREPLY[@]#"${cur%=*}="}")
    fi
    return 0
}
complete -F _cudalab cudalab
