# kortty-rag shell integration for bash (>= 4.4): put in ~/.bashrc
#   eval "$(kortty-rag shell-init bash)"
# Emits the semantic prompt marks OSC 133 A (prompt), B (command line), C (output) and D;status
# (command end) through PS1, PS0 and PROMPT_COMMAND, keeping whatever they already hold. Inside
# tmux it also records, per pane, the last command line, its exit code and its line positions in
# a small owner-only file that `kortty-rag last` reads. Nothing captured is ever evaluated.
# Sourcing it again changes nothing.
if [[ $- == *i* ]] && ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then

# tmux before 3.4 drops OSC 133; wrapped in DCS passthrough it reaches the outer terminal
# (tmux 3.3 needs `set -g allow-passthrough on` for that). tmux 3.4+ reads the marks itself.
if [[ -z ${__kr_wrap+x} ]]; then
  __kr_wrap=0
  if [[ -n ${TMUX-} ]] && [[ $(tmux -V 2>/dev/null) =~ ([0-9]+)\.([0-9]+) ]] &&
    ((BASH_REMATCH[1] < 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] < 4))); then
    __kr_wrap=1
  fi
fi
if [[ $__kr_wrap == 1 ]]; then
  __kr_ps1_a='\[\ePtmux;\e\e]133;A\a\e\\\]'
  __kr_ps1_b='\[\ePtmux;\e\e]133;B\a\e\\\]'
else
  __kr_ps1_a='\[\e]133;A\a\]'
  __kr_ps1_b='\[\e]133;B\a\]'
fi
__kr_ran=0

__kr_mark() {
  if [[ $__kr_wrap == 1 ]]; then
    printf '\033Ptmux;\033\033]133;%s\007\033\\' "$1"
  else
    printf '\033]133;%s\007' "$1"
  fi
}

# Field text on one line: % and line breaks percent-encoded, cut to $2 characters first.
__kr_enc() {
  local s=${1:0:$2}
  s=${s//%/%25}
  s=${s//$'\n'/%0A}
  REPLY=${s//$'\r'/%0D}
}

# One tmux call: the pane's positions and its visible rows (from the last history row). tmux
# reads the pane's output asynchronously, so the end of a long output may not be parsed yet:
# insert mode is switched on first and the call repeated until tmux shows it, which proves
# everything written before it is on its screen; then it is switched off again.
# Sets __kr_pos ("history_size cursor_y cursor_x width height history_limit") and __kr_rows.
__kr_query() {
  local out i
  printf '\033[4h' >/dev/tty
  for ((i = 0; i < 100; i++)); do
    out=$(tmux display -p -t "$TMUX_PANE" '#{insert_flag} #{history_size} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height} #{history_limit}' \; capture-pane -p -t "$TMUX_PANE" -S -1 2>/dev/null) || break
    [[ $out == 1\ * ]] && break
  done
  printf '\033[4l' >/dev/tty
  mapfile -t __kr_rows <<<"$out"
  __kr_pos=${__kr_rows[0]#1 }
  [[ ${__kr_rows[0]} =~ ^1\ ([0-9]+)\ ([0-9]+)\ ([0-9]+)\ [0-9]+\ [0-9]+\ [0-9]+$ ]] || return 1
  __kr_hs=${BASH_REMATCH[1]} __kr_cy=${BASH_REMATCH[2]} __kr_cx=${BASH_REMATCH[3]}
}

# The text of pane row $1 (-1: the last history row) from __kr_rows, encoded, in REPLY.
__kr_row() {
  local off=0 r=$1
  ((__kr_hs > 0)) && off=1
  if ((r < 0 && off == 0)); then REPLY=; return; fi
  __kr_enc "${__kr_rows[1 + off + r]-}" 1024
}

# Writes the pane's state file: $1 = start (the command about to run) or end (it ended, $2 = status).
# Runs in a subshell (umask, variables), writes a temporary file and renames it over the old one.
__kr_record() {
  umask 077
  local home=${KORTTY_HOME:-$HOME/.kortty} srv=${TMUX#*,}
  srv=${srv%%,*}
  local dir=$home/rag/last
  local f=$dir/$srv-${TMUX_PANE#%}.state line
  local -a last=() run=() out
  [[ -d $dir ]] || mkdir -p "$dir" || return
  if [[ -f $f ]]; then
    while IFS= read -r line; do
      case $line in
      last-*) last+=("$line") ;;
      run-*) run+=("$line") ;;
      esac
    done <"$f"
  fi
  # Without tmux's answer the command line and status are still recorded (no rows), so an older
  # command is never mistaken for the last one.
  local placed=1
  __kr_query || placed=0
  out=('kortty-rag-last 1' "pane $TMUX_PANE")
  if [[ $1 == start ]]; then
    local cmd=
    # history 1 is this command only when the history grew (HISTCONTROL may have dropped it).
    # A dropped duplicate is recognised on the command row itself.
    local h
    h=$(HISTTIMEFORMAT= builtin history 1)
    [[ $h =~ ^\ *[0-9]+\*?\ \ (.*)$ ]] && h=${BASH_REMATCH[1]} || h=
    if ((HISTCMD > ${__kr_hc:-0})); then
      cmd=$h
    elif [[ -n $h && $placed == 1 ]]; then
      local row=${__kr_rows[1 + (__kr_hs > 0) + __kr_cy - 1]-}
      row=${row%"${row##*[![:space:]]}"}
      [[ $row == *"${h##*$'\n'}" ]] && cmd=$h
    fi
    __kr_enc "$cmd" 4096
    out+=("${last[@]}" "run-command $REPLY")
    if ((placed)); then
      out+=("run-start $__kr_pos")
      __kr_row $((__kr_cy - 1))
      out+=("run-anchor $REPLY")
    fi
  else
    ((${#run[@]})) || return
    if ((placed)) && [[ ${run[1]-} == 'run-start '* ]]; then
      out+=("${run[@]/#run-/last-}" "last-end $__kr_pos" "last-exit $2")
      if ((__kr_cx > 0)); then __kr_row "$__kr_cy"; else __kr_row $((__kr_cy - 1)); fi
      out+=("last-end-anchor $REPLY")
    else
      out+=("${run[0]/#run-/last-}" "last-exit $2")
    fi
  fi
  printf '%s\n' "${out[@]}" >|"$f.$BASHPID" && mv -f "$f.$BASHPID" "$f"
}

__kr_precmd() {
  local s=$?
  if [[ $__kr_ran == 1 ]]; then
    __kr_ran=0
    __kr_mark "D;$s"
    [[ -n ${TMUX_PANE-} ]] && (__kr_record end "$s") 2>/dev/null
  fi
  __kr_hc=$HISTCMD
  return $s
}

__kr_preexec() {
  [[ -n ${TMUX_PANE-} ]] && __kr_record start >/dev/null 2>&1
  __kr_mark C
}

# Last in PROMPT_COMMAND: a prompt that was just rebuilt gets its A and B marks back.
__kr_prompt_marks() {
  local s=$?
  [[ $PS1 == "$__kr_ps1_a"* ]] || PS1=$__kr_ps1_a$PS1
  [[ $PS1 == *"$__kr_ps1_b" ]] || PS1=$PS1$__kr_ps1_b
  return $s
}

if [[ $(declare -p PROMPT_COMMAND 2>/dev/null) == 'declare -a'* ]]; then
  [[ " ${PROMPT_COMMAND[*]} " == *' __kr_precmd '* ]] ||
    PROMPT_COMMAND=(__kr_precmd "${PROMPT_COMMAND[@]}" __kr_prompt_marks)
elif [[ ${PROMPT_COMMAND-} != *__kr_precmd* ]]; then
  PROMPT_COMMAND=__kr_precmd$'\n'${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}__kr_prompt_marks
fi
# PS0 is expanded in the shell itself: the subscript sets __kr_ran there; $(…) runs in a subshell.
[[ ${PS0-} == *__kr_preexec* ]] || PS0=${PS0-}'${__kr_none[__kr_ran=1]-}$(__kr_preexec)'

fi
