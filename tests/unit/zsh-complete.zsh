# SPDX-License-Identifier: MIT
# zsh -f zsh-complete.zsh FPATH_DIR LINE: the candidates zsh's completion offers for LINE (Tab
# at its end), one a line: an interactive zsh on a pseudo-terminal (zpty) with compinit and the
# functions of FPATH_DIR, whose compadd also prints what it adds. The markers are written
# split ('<<DO''NE>>') so that the terminal's echo of the typed line never matches them.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { local -a __h; builtin compadd -O __h "$@"; local __x; for __x in "${__h[@]}"; do print -r -- "<<$__x>>"; done; builtin compadd "$@"; }'
# Tab completes, then says it is done (comppostfuncs is emptied after each completion).
zpty -w z "__done() { print -r -- '<<DO''NE>>'; }; __tab() { comppostfuncs=(__done); zle complete-word; }"
zpty -w z "zle -N __tab; bindkey '^I' __tab; zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; print '<<READ''Y>>'"
zpty -r z out '*<<READY>>*'
zpty -w -n z "$2"$'\t'
zpty -r z out '*<<DONE>>*'
print -r -- "$out" | grep -ao '<<[^<>]*>>' | sed 's/^<<//; s/>>$//' | grep -vx 'DONE' | sort -u
zpty -d z
