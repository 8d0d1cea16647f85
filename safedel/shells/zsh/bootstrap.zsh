# safedel for interactive zsh. In ~/.zshrc: eval "$(safedel bootstrap zsh)"
# It exports the shim environment, makes each command line its own turn, and routes
# /bin/rm-style paths to the launchers. Quiet, safe under `set -euo pipefail`, and
# sourcing it twice leaves one hook and one PATH entry.
@ENVIRONMENT@
# zsh rotates SAFEDEL_TURN itself; a turn file inherited from an sh parent would win.
\builtin unset SAFEDEL_TURN_FILE
typeset -g __safedel_turn_prefix=@TURN_PREFIX@
typeset -gi __safedel_turns=${__safedel_turns:-0}

__safedel_next_turn() {
  (( __safedel_turns += 1 ))
  \builtin export SAFEDEL_TURN="${__safedel_turn_prefix}-${__safedel_turns}"
}

# Child zsh processes need ZDOTDIR pointing at safedel's start-up files (for /bin/rm in
# `zsh -c` and scripts), but this shell must keep its own: compinit and frameworks put
# .zcompdump and history under it. So it is safedel's only while a command line runs.
typeset -g __safedel_zdotdir=@ZDOTDIR@
if (( ${+ZDOTDIR} )); then
  typeset -g __safedel_own_zdotdir="${ZDOTDIR}"
else
  \builtin unset __safedel_own_zdotdir
fi

# preexec runs once per command line, before it executes; $? is handed back so a
# later hook still sees the previous command's status.
__safedel_preexec() {
  \builtin local __safedel_status=$?
  __safedel_next_turn
  \builtin export ZDOTDIR="${__safedel_zdotdir}"
  \builtin return ${__safedel_status}
}

__safedel_precmd() {
  \builtin local __safedel_status=$?
  if (( ${+__safedel_own_zdotdir} )); then
    ZDOTDIR="${__safedel_own_zdotdir}"
  else
    \builtin unset ZDOTDIR
  fi
  \builtin return ${__safedel_status}
}

__safedel_next_turn
\builtin typeset -ga preexec_functions precmd_functions
if (( ! ${preexec_functions[(Ie)__safedel_preexec]} )); then
  preexec_functions+=(__safedel_preexec)
fi
if (( ! ${precmd_functions[(Ie)__safedel_precmd]} )); then
  precmd_functions+=(__safedel_precmd)
fi

\builtin source @SAFEDEL_HOME@/posix/paths.bash
