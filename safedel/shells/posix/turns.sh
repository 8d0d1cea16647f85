# safedel: one command line, one turn, in dash and busybox sh. They have no preexec
# hook, but they expand $(...) in PS1 before each prompt. That runs in a subshell, which
# cannot set a variable here, so the turn lives in SAFEDEL_TURN_FILE (which the shims
# read before SAFEDEL_TURN) as PREFIX-N, and the prompt moves it on to PREFIX-(N+1).
# Rewriting it also stamps the turn's start: the shims take the file's mtime for it.
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
__safedel_arm() {
  case ${PS1-} in
    *__safedel_rotate_turn*) ;;
    *) PS1='$(__safedel_rotate_turn)'"${PS1-\$ }" ;;
  esac
}
__safedel_arm

# A PS1 assigned later (further down the rc file, or typed) drops the hook, and POSIX sh
# cannot notice an assignment. So rm, rmdir, unlink, find and safedel become functions
# that run in this shell, put the hook back, then run what PATH finds (the launchers).
# They only re-arm: a function in a subshell cannot know whether its line already began
# a turn, and splitting one line into turns would let it pass the guard. safedel is
# told (SAFEDEL_PROMPT_HOOK), so that doctor and guard status can say what happened.
__safedel_hook=${__safedel_hook:-armed}
__safedel_rearm() {
  case ${PS1-} in
    *__safedel_rotate_turn*) ;;
    *) __safedel_hook=lost && __safedel_arm ;;
  esac
}
# A function the user defined is kept (and ours, loaded before). An alias is saved,
# removed while ours is defined (it would expand inside the definition), then restored.
for __safedel_name in rm rmdir unlink find safedel; do
  __safedel_alias=
  __safedel_found=$(\command -v "${__safedel_name}" 2>/dev/null || :)
  case ${__safedel_found} in
    "alias "*)
      __safedel_alias=$(\command alias "${__safedel_name}")
      \command unalias "${__safedel_name}"
      __safedel_found=$(\command -v "${__safedel_name}" 2>/dev/null || :)
      ;;
  esac
  case ${__safedel_found} in
    /* | '')
      __safedel_env=
      [ "${__safedel_name}" != safedel ] || __safedel_env='SAFEDEL_PROMPT_HOOK=${__safedel_hook}'
      eval "${__safedel_name}() { __safedel_rearm; ${__safedel_env} \\command ${__safedel_name} \"\$@\"; }"
      ;;
  esac
  [ -z "${__safedel_alias}" ] || eval "\\command alias ${__safedel_alias}"
done
unset __safedel_name __safedel_alias __safedel_found __safedel_env
