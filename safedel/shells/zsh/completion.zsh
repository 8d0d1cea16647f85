#compdef safedel
# safedel completion for zsh. Generated from the CLI by `python -m safedel.completions`;
# do not edit. Completes commands and options from a table, with no process per TAB;
# arguments and option values fall back to file names.
__safedel_complete_table() {
  case $1 in
@TABLE@
    *) \builtin return 1 ;;
  esac
}

_safedel() {
  \builtin local chain="" word index
  \builtin local -a commands options values
  for (( index = 2; index < CURRENT; index++ )); do
    word=${words[index]}
    # After `--` comes a wrapped command (safedel run -- CMD): complete it as one.
    if [[ $word == -- ]]; then
      \builtin shift $index words
      (( CURRENT -= index ))
      _normal
      \builtin return
    fi
    __safedel_complete_table "${chain:+$chain }$word" && chain="${chain:+$chain }$word"
  done
  __safedel_complete_table "$chain"
  if (( ${values[(Ie)${words[CURRENT-1]}]} )); then
    _files
  elif [[ ${words[CURRENT]} == -* ]]; then
    _describe -t options option options
  elif (( ${#commands} )); then
    _describe -t commands command commands
  else
    _files
  fi
}

_safedel "$@"
