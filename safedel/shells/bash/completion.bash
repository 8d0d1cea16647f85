# safedel completion for bash. Generated from the CLI by `python -m safedel.completions`;
# do not edit. Completes commands and options from a table, with no process per TAB;
# arguments and option values fall back to file names.
__safedel_complete_table() {
  case $1 in
@TABLE@
    *) \builtin return 1 ;;
  esac
}

__safedel_complete() {
  \builtin local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  \builtin local chain="" word index commands="" options="" values=""
  for ((index = 1; index < COMP_CWORD; index++)); do
    word=${COMP_WORDS[index]}
    # After `--` comes a wrapped command (safedel run -- CMD): leave it to the default.
    [[ $word == -- ]] && \builtin return 0
    __safedel_complete_table "${chain:+$chain }$word" && chain="${chain:+$chain }$word"
  done
  __safedel_complete_table "$chain"
  [[ " $values " == *" $prev "* ]] && \builtin return 0
  if [[ $cur == -* ]]; then
    COMPREPLY=($(\builtin compgen -W "$options" -- "$cur"))
  elif [[ -n $commands ]]; then
    COMPREPLY=($(\builtin compgen -W "$commands" -- "$cur"))
  fi
}

\builtin complete -o default -F __safedel_complete safedel
