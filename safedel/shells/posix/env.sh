# safedel: read by non-interactive bash (BASH_ENV), and by interactive sh and posix-mode
# bash (ENV). PATH already routes rm, rmdir, unlink and find to safedel's launchers. This
# file adds what PATH cannot reach: commands named by absolute path (/bin/rm) in bash.
# It must stay quiet and harmless under `set -eu`, in dash, busybox sh and bash.

# Chain to the user's own file for the variable this shell read: an interactive shell
# reads ENV, a non-interactive bash BASH_ENV. The value is expanded as the shell expands
# its own (`$HOME/.bash_env` stored literally works), and a file that cannot be read is
# skipped without a word.
case $- in
  *i*) __safedel_chain=${SAFEDEL_USER_ENV-} ;;
  *) __safedel_chain=${SAFEDEL_USER_BASH_ENV-} ;;
esac
if [ -n "${__safedel_chain}" ]; then
  eval "__safedel_chain=\"${__safedel_chain}\"" 2>/dev/null || __safedel_chain=
  if [ -r "${__safedel_chain}" ]; then
    . "${__safedel_chain}"
  fi
fi
unset __safedel_chain

# bash outside posix mode accepts function names with a slash; dash and busybox sh
# cannot even parse them, so they live in a file only bash (and zsh) sources.
if [ -n "${BASH_VERSION-}" ] && ! \builtin shopt -qo posix; then
  . @SAFEDEL_HOME@/posix/paths.bash
fi

# An interactive dash or busybox sh started under the sh bootstrap inherits its turn
# file; rotating it at each of this shell's prompts keeps one command line, one turn.
case $- in
  *i*)
    if [ -z "${BASH_VERSION-}${ZSH_VERSION-}" ] && [ -n "${SAFEDEL_TURN_FILE-}" ]; then
      . @SAFEDEL_HOME@/posix/turns.sh
    fi
    ;;
esac
