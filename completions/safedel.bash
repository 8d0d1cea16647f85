# safedel completion for bash. Generated from the CLI by `python -m safedel.completions`;
# do not edit. Completes commands and options from a table, with no process per TAB;
# arguments and option values fall back to file names.
__safedel_complete_table() {
  case $1 in
    'bootstrap') commands='' options='--help' values='' ;;
    'config status') commands='' options='--help --state-dir --json' values='--state-dir' ;;
    'config trust') commands='' options='--help --state-dir' values='--state-dir' ;;
    'config') commands='status trust' options='--help' values='' ;;
    'doctor') commands='' options='--help --json --repair' values='' ;;
    'env') commands='' options='--help --shell --json --session --turn --tool-call --threshold --report --trash-dir --no-exempt' values='--shell --session --turn --tool-call --threshold --report --trash-dir' ;;
    'guard approve') commands='' options='--help --session --turn --state-dir --outside-workspace --token-file' values='--session --turn --state-dir --token-file' ;;
    'guard reject') commands='' options='--help --session --turn --state-dir --token-file' values='--session --turn --state-dir --token-file' ;;
    'guard reset') commands='' options='--help --session --turn --state-dir --all --token-file' values='--session --turn --state-dir --token-file' ;;
    'guard signal') commands='' options='--help --session --turn --state-dir --tool-call' values='--session --turn --state-dir --tool-call' ;;
    'guard status') commands='' options='--help --session --turn --state-dir --json' values='--session --turn --state-dir' ;;
    'guard') commands='approve reject reset signal status' options='--help' values='' ;;
    'list') commands='' options='--help --turn --session --since --report --json --git --turns' values='--turn --session --since --report' ;;
    'markers') commands='' options='--help --json' values='' ;;
    'purge') commands='' options='--help --older-than --turn --session --regenerable --all --max-size --yes --dry-run --report' values='--older-than --turn --session --max-size --report' ;;
    'report') commands='' options='--help --json --since --all' values='--since' ;;
    'restore') commands='' options='--help --turn --session --last --rename --overwrite --all --json --orphan --to --report' values='--turn --session --orphan --to --report' ;;
    'rm') commands='' options='--help' values='' ;;
    'run') commands='' options='--help --session --turn --tool-call --threshold --report --trash-dir --no-exempt --result --shell --state-dir --quiet -q --capture --timeout --kill-grace --max-output --stdout-file --stderr-file --json --approval-token-file --keep-turn-file --keep-background --workspace --outside-workspace --net' values='--session --turn --tool-call --threshold --report --trash-dir --result --shell --state-dir --timeout --kill-grace --max-output --stdout-file --stderr-file --approval-token-file --workspace --outside-workspace --net' ;;
    'serve') commands='' options='--help --socket --stdio --allow-unprotected' values='--socket' ;;
    'shims') commands='' options='--help --dir' values='--dir' ;;
    'undo') commands='' options='--help --session -n --dry-run --rename --json --report' values='--session -n --report' ;;
    'workspace add') commands='' options='--help --scope --session --state-dir' values='--scope --session --state-dir' ;;
    'workspace list') commands='' options='--help --session --state-dir --json' values='--session --state-dir' ;;
    'workspace remove') commands='' options='--help --scope --session --state-dir' values='--scope --session --state-dir' ;;
    'workspace') commands='add list remove' options='--help' values='' ;;
    '') commands='bootstrap config doctor env guard list markers purge report restore rm run serve shims undo workspace' options='--help' values='' ;;
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
