# zsh -f capture.zsh DIR "command line": every match zsh completion offers there, one
# per line (DIR holds the _arh script). Drives an interactive zsh in a pseudo-terminal.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PS1=''; RPS1=''; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
# The markers are spelled in two parts so that the echo of these lines holds none.
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits; builtin compadd -A __hits "$@"; local ret=$?
  local h; for h in $__hits; do print -r -- "<<""M>>$h"; done
  return $ret
}'
zpty -w z '_capture_end() { print -r -- "<<""END>>" }'
zpty -w z '_capture() { comppostfuncs=(_capture_end); _main_complete }'
zpty -w z 'zle -C capture complete-word _capture; bindkey "^I" capture'
zpty -n -w z "$2"$'\t'
local line
while zpty -r z line; do
  [[ $line == *'<<END>>'* ]] && break
  [[ $line == *'<<M>>'* ]] && print -r -- "${${line##*<<M>>}%%$'\r'}"
done
zpty -d z
