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

# Arithmetic in PS0's expansion raises it. bash expands PS0 in this shell before each
# command line runs, and the expansion is no command: no DEBUG trap sees it, $? and
# PIPESTATUS stay as they were, errexit cannot fire, and a later assignment to
# PROMPT_COMMAND or PS1 (prompt themes, bash-preexec) leaves it in place. The array is
# never set, so the expansion is empty.
if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)) && \builtin shopt -q promptvars; then
  case ${PS0-} in
    *__safedel_turn_step*) ;;
    *) PS0=${PS0-}'${__safedel_turn_step[SAFEDEL_TURN+=1]-}' ;;
  esac
else
  # No PS0 (bash before 4.4), or prompts are not expanded: a PROMPT_COMMAND entry of
  # its own, after the user's, so that their prompt code still sees PIPESTATUS.
  __safedel_prompt_hook() {
    SAFEDEL_TURN=$((SAFEDEL_TURN + 1))
  }
  case ${PROMPT_COMMAND[*]-} in
    *__safedel_prompt_hook*) ;;
    *) PROMPT_COMMAND=${PROMPT_COMMAND:+${PROMPT_COMMAND}$'\n'}__safedel_prompt_hook ;;
  esac
fi

if ! \builtin shopt -qo posix; then
  \builtin source @SAFEDEL_HOME@/posix/paths.bash
fi
