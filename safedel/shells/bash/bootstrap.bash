# safedel for interactive bash. In ~/.bashrc: eval "$(safedel bootstrap bash)"
# It exports the shim environment, makes each command line its own turn, and routes
# /bin/rm-style paths to the launchers. Quiet, safe under `set -euo pipefail`, and
# sourcing it twice leaves one hook and one PATH entry.
@ENVIRONMENT@
# bash rotates SAFEDEL_TURN itself; a turn file inherited from an sh parent would win.
\builtin unset SAFEDEL_TURN_FILE
__safedel_turn_prefix=@TURN_PREFIX@
__safedel_turns=${__safedel_turns:-0}

__safedel_next_turn() {
  __safedel_turns=$((__safedel_turns + 1))
  \builtin export SAFEDEL_TURN="${__safedel_turn_prefix}-${__safedel_turns}"
}

# PROMPT_COMMAND runs before every prompt, so the next command line starts a new turn.
# It needs no DEBUG trap, and handing back $? keeps the user's prompt and hooks honest.
__safedel_prompt_hook() {
  \builtin local __safedel_status=$?
  __safedel_next_turn
  \builtin return "${__safedel_status}"
}

__safedel_next_turn
case ";${PROMPT_COMMAND[*]-};" in
  *";__safedel_prompt_hook;"*) ;;
  *) PROMPT_COMMAND="__safedel_prompt_hook${PROMPT_COMMAND:+;${PROMPT_COMMAND}}" ;;
esac

if ! \builtin shopt -qo posix; then
  \builtin source @SAFEDEL_HOME@/posix/paths.bash
fi
