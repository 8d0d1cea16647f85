# safedel for interactive bash. In ~/.bashrc: eval "$(safedel bootstrap bash)"
# It exports the shim environment, makes each command line its own turn, and routes
# /bin/rm-style paths to the launchers. Quiet, safe under `set -euo pipefail`, and
# sourcing it twice leaves one hook and one PATH entry.
@ENVIRONMENT@
# bash rotates SAFEDEL_TURN itself; a turn file inherited from an sh parent would win.
\builtin unset SAFEDEL_TURN_FILE
@SESSION@
# The turn is a number: a random prefix times a million, plus one per command line.
\builtin export SAFEDEL_TURN=@TURN_BASE@
# When the turn began, so that what a command line made itself is not counted by the
# bulk guard: `seconds:turn`. bash before 5.0 has no clock to read, so it is left unset.
if [[ -n ${EPOCHREALTIME-} ]]; then
  \builtin export SAFEDEL_TURN_START=${EPOCHREALTIME/,/.}:${SAFEDEL_TURN}
else
  \builtin unset SAFEDEL_TURN_START
fi

# Arithmetic in PS0's expansion raises it. bash expands PS0 in this shell before each
# command line runs, and the expansion is no command: no DEBUG trap sees it, $? and
# PIPESTATUS stay as they were, errexit cannot fire, and a later assignment to
# PROMPT_COMMAND or PS1 (prompt themes, bash-preexec) leaves it in place. The array is
# never set, so the expansion is empty. Arithmetic cannot write `seconds:turn`, so the
# same expansion stamps the turn's start as one number: the microseconds since the epoch
# times 1000, plus the turn's last three digits, which tie it to this turn (core/
# regenerable.py reads it).
if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)) && \builtin shopt -q promptvars; then
  case ${PS0-} in
    *__safedel_turn_step*) ;;
    *)
      if [[ -n ${SAFEDEL_TURN_START-} ]]; then
        PS0=${PS0-}'${__safedel_turn_step[SAFEDEL_TURN+=1, SAFEDEL_TURN_START=${EPOCHREALTIME/[.,]/}*1000+SAFEDEL_TURN%1000]-}'
      else
        PS0=${PS0-}'${__safedel_turn_step[SAFEDEL_TURN+=1]-}'
      fi
      ;;
  esac
else
  # No PS0 (bash before 4.4), or prompts are not expanded: a PROMPT_COMMAND entry of
  # its own, after the user's, so that their prompt code still sees PIPESTATUS. With
  # prompt expansion, arithmetic in PS1 is a second hook, so that prompt code assigning
  # either variable later leaves the other: the entry steps the turn and marks it
  # stepped, the expansion clears the mark, or steps itself when nothing did. Whichever
  # runs first at a prompt, the turn moves on once (twice at the very first prompt).
  # The PS1 hook exists only before 4.4, where there is no clock to stamp the start.
  __safedel_stepped=${__safedel_stepped-0}
  __safedel_prompt_hook() {
    SAFEDEL_TURN=$((SAFEDEL_TURN + 1))
    if [[ -n ${EPOCHREALTIME-} ]]; then
      SAFEDEL_TURN_START=${EPOCHREALTIME/,/.}:${SAFEDEL_TURN}
    fi
    __safedel_stepped=1
  }
  case ${PROMPT_COMMAND[*]-} in
    *__safedel_prompt_hook*) ;;
    *) PROMPT_COMMAND=${PROMPT_COMMAND:+${PROMPT_COMMAND}$'\n'}__safedel_prompt_hook ;;
  esac
  if \builtin shopt -q promptvars; then
    case ${PS1-} in
      *__safedel_turn_step*) ;;
      *) PS1='${__safedel_turn_step[__safedel_stepped ? (__safedel_stepped = 0) : (SAFEDEL_TURN += 1)]-}'${PS1-} ;;
    esac
  fi
fi

if ! \builtin shopt -qo posix; then
  \builtin source @SAFEDEL_HOME@/posix/paths.bash
fi
