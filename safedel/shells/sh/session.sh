# Each interactive shell is a session of its own, so that undo in one terminal never
# takes back another's work. A session made by a parent shell's bootstrap (shell-*) is
# replaced; one that `safedel run --session` or the user chose is kept; and loading the
# bootstrap again in this shell keeps this shell's.
case ${SAFEDEL_SESSION-} in
  '') SAFEDEL_SESSION=@NEW_SESSION@ ;;
  shell-*) [ "${SAFEDEL_SESSION}" = "${__safedel_session-}" ] || SAFEDEL_SESSION=@NEW_SESSION@ ;;
esac
__safedel_session=${SAFEDEL_SESSION}
@EXPORT@ SAFEDEL_SESSION
