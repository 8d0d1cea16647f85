# safedel: zsh reads $ZDOTDIR/.zshenv even for `zsh -c` and scripts. Chain to the
# user's own file first, with their ZDOTDIR in place while it runs. A ZDOTDIR it sets
# (often without exporting it) names their dotfiles from then on: the later chained
# files and child shells use it. Then add the absolute-path functions that PATH cannot
# reach. zsh reads no $ENV, so neither does this file. It leaves no variable behind.
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-${HOME}}
[[ -r "${ZDOTDIR}/.zshenv" ]] && builtin source "${ZDOTDIR}/.zshenv"
export SAFEDEL_USER_ZDOTDIR=${ZDOTDIR:-${HOME}}
ZDOTDIR=@SAFEDEL_HOME@/zsh
builtin source @SAFEDEL_HOME@/posix/paths.bash
