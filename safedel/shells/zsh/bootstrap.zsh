# safedel for interactive zsh. In ~/.zshrc: eval "$(safedel bootstrap zsh)"
# It exports the shim environment, makes each command line its own turn, and routes
# /bin/rm-style paths to the launchers. Quiet under the options rc files set (ERR_EXIT,
# NO_UNSET, KSH_ARRAYS, SH_WORD_SPLIT, WARN_CREATE_GLOBAL), and sourcing it twice leaves
# one hook and one PATH entry.
@ENVIRONMENT@
# zsh rotates SAFEDEL_TURN itself; a turn file inherited from an sh parent would win.
\builtin unset SAFEDEL_TURN_FILE
@SESSION@
typeset -g __safedel_turn_prefix=@TURN_PREFIX@
typeset -gi __safedel_turns=${__safedel_turns:-0}

# Child zsh processes need ZDOTDIR pointing at safedel's start-up files (for /bin/rm in
# `zsh -c` and scripts), but this shell keeps the user's: compinit and frameworks put
# .zcompdump and history under it. So ZDOTDIR is safedel's only while a command line
# runs. What it is now (the rc runs with the user's, or none) is the user's, even when
# ~/.zshenv set it without exporting it, which `safedel bootstrap` cannot see: child
# shells chain to the same dotfiles. Loaded again from a command line, it is already ours.
if [[ ${ZDOTDIR-} != @ZDOTDIR@ ]]; then
  if (( ${+ZDOTDIR} )); then
    typeset -g __safedel_own_zdotdir=${ZDOTDIR}
  else
    \builtin unset __safedel_own_zdotdir
  fi
fi
\builtin export SAFEDEL_USER_ZDOTDIR=${__safedel_own_zdotdir:-${HOME}}

# The hooks always return 0: zsh hands $? and $pipestatus back by itself after them, and
# a non-zero return would close a shell whose rc set ERR_EXIT.
# SAFEDEL_TURN_START says when the turn began, so that what a command line made itself
# is not counted by the bulk guard: `seconds:turn`, from zsh/datetime's clock. Without
# that module it is left unset.
\builtin zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null || :

__safedel_preexec() {
  __safedel_turns+=1
  typeset -gx SAFEDEL_TURN="${__safedel_turn_prefix}-${__safedel_turns}"
  if [[ -n ${EPOCHREALTIME-} ]]; then
    typeset -gx SAFEDEL_TURN_START="${EPOCHREALTIME/,/.}:${SAFEDEL_TURN}"
  else
    \builtin unset SAFEDEL_TURN_START
  fi
  typeset -gx ZDOTDIR=@ZDOTDIR@
  \builtin return 0
}

__safedel_precmd() {
  if (( ${+__safedel_own_zdotdir} )); then
    ZDOTDIR=${__safedel_own_zdotdir}
  else
    \builtin unset ZDOTDIR
  fi
  \builtin return 0
}

# `source ~/.zshrc` at the prompt runs while ZDOTDIR is safedel's: give the file the
# user's, as at start-up, so that ${ZDOTDIR:-$HOME} (history, .zcompdump) stays theirs.
\builtin alias source='ZDOTDIR=${__safedel_own_zdotdir:-${HOME}} \builtin source'
\builtin alias .='ZDOTDIR=${__safedel_own_zdotdir:-${HOME}} \builtin .'

__safedel_preexec
\builtin typeset -ga preexec_functions precmd_functions
# Matched by value, never by index: KSH_ARRAYS shifts indices.
if [[ ${preexec_functions[(r)__safedel_preexec]-} != __safedel_preexec ]]; then
  preexec_functions+=(__safedel_preexec)
fi
if [[ ${precmd_functions[(r)__safedel_precmd]-} != __safedel_precmd ]]; then
  precmd_functions+=(__safedel_precmd)
fi
__safedel_precmd

\builtin source @SAFEDEL_HOME@/posix/paths.bash
