# safedel: run the user's own .zprofile with their ZDOTDIR in place, then point ZDOTDIR
# back here for the files zsh reads next and for child shells. It leaves no variable
# behind: the bootstrap in the user's .zshrc has globals of its own.
ZDOTDIR=${SAFEDEL_USER_ZDOTDIR:-${HOME}}
[[ -r "${ZDOTDIR}/.zprofile" ]] && builtin source "${ZDOTDIR}/.zprofile"
ZDOTDIR=@SAFEDEL_HOME@/zsh
