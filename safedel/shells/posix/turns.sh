# safedel: one command line, one turn, in dash and busybox sh. They have no preexec
# hook, but they expand $(...) in PS1 before each prompt. That runs in a subshell, which
# cannot set a variable here, so the turn lives in SAFEDEL_TURN_FILE (which the shims
# read before SAFEDEL_TURN) as PREFIX-N, and the prompt moves it on to PREFIX-(N+1).
# Sourced by the sh bootstrap, and by env.sh for interactive sh started under it.

__safedel_rotate_turn() {
  __safedel_turn=
  \command read -r __safedel_turn < "${SAFEDEL_TURN_FILE}" 2>/dev/null || :
  __safedel_count=${__safedel_turn##*-}
  case ${__safedel_turn} in *-*) ;; *) __safedel_count= ;; esac
  case ${__safedel_count} in
    '' | *[!0-9]*) __safedel_turn="${SAFEDEL_TURN:-sh}-0" __safedel_count=0 ;;
  esac
  \command printf '%s\n' "${__safedel_turn%-*}-$((__safedel_count + 1))" \
    > "${SAFEDEL_TURN_FILE}" 2>/dev/null || :
}

# The substitution prints nothing; it only rotates the turn. Added once.
case ${PS1-} in
  *__safedel_rotate_turn*) ;;
  *) PS1='$(__safedel_rotate_turn)'"${PS1-\$ }" ;;
esac
