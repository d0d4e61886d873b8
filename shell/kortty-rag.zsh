# kortty-rag shell integration for zsh: put in ~/.zshrc
#   eval "$(kortty-rag shell-init zsh)"
# Emits the semantic prompt marks OSC 133 A (prompt), B (command line), C (output) and D;status
# (command end) from precmd/preexec hooks (the hook arrays: other hooks stay), and keeps A and B
# around a prompt that a theme rebuilds. Inside tmux it also records, per pane, the last command
# line, its exit code and its line positions in a small owner-only file that `kortty-rag last`
# reads. Nothing captured is ever evaluated. Sourcing it again changes nothing.
if [[ -o interactive ]]; then

zmodload -F zsh/files b:zf_mv 2>/dev/null
zmodload -F zsh/system b:sysopen 2>/dev/null

# tmux before 3.4 drops OSC 133; wrapped in DCS passthrough it reaches the outer terminal
# (tmux 3.3 needs `set -g allow-passthrough on` for that). tmux 3.4+ reads the marks itself.
if [[ -z ${__kr_wrap-} ]]; then
  typeset -g __kr_wrap=0
  if [[ -n ${TMUX-} && $(tmux -V 2>/dev/null) =~ '([0-9]+)\.([0-9]+)' ]] &&
    (( match[1] < 3 || (match[1] == 3 && match[2] < 4) )); then
    __kr_wrap=1
  fi
fi
if [[ $__kr_wrap == 1 ]]; then
  typeset -g __kr_ps1_a=$'%{\ePtmux;\e\e]133;A\a\e\\%}' __kr_ps1_b=$'%{\ePtmux;\e\e]133;B\a\e\\%}'
else
  typeset -g __kr_ps1_a=$'%{\e]133;A\a%}' __kr_ps1_b=$'%{\e]133;B\a%}'
fi
typeset -g __kr_ran=0
typeset -ga __kr_last __kr_run __kr_rows
typeset -g __kr_pos __kr_hs __kr_cy __kr_cx __kr_geo

__kr_mark() {
  if [[ $__kr_wrap == 1 ]]; then
    printf '\033Ptmux;\033\033]133;%s\007\033\\' "$1"
  else
    printf '\033]133;%s\007' "$1"
  fi
}

# Field text on one line: % and line breaks percent-encoded, cut to $2 characters first.
__kr_enc() {
  local s=${1[1,$2]}
  s=${s//\%/%25}
  s=${s//$'\n'/%0A}
  REPLY=${s//$'\r'/%0D}
}

# One tmux call: the pane's positions and its visible rows (from the last history row). tmux
# reads the pane's output asynchronously: insert mode is switched on first and the call repeated
# until tmux shows it, which proves everything written before it is on its screen.
__kr_query() {
  local out i
  print -n $'\e[4h' >/dev/tty
  for ((i = 0; i < 100; i++)); do
    out=$(tmux display -p -t "$TMUX_PANE" '#{insert_flag} #{history_size} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height} #{history_limit}' \; capture-pane -p -N -t "$TMUX_PANE" -S -1 2>/dev/null) || break
    [[ $out == '1 '* ]] && break
  done
  print -n $'\e[4l' >/dev/tty
  __kr_rows=("${(@f)out}")
  [[ ${__kr_rows[1]} =~ '^1 ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+ [0-9]+ [0-9]+)$' ]] || return 1
  __kr_pos=${__kr_rows[1]#1 }
  __kr_hs=$match[1] __kr_cy=$match[2] __kr_cx=$match[3] __kr_geo=$match[4]
}

# zsh prints its PROMPT_EOL_MARK after an output without a final newline, padded to the end of
# the row, before any hook runs. Such an output really ended just before the mark: the end is
# moved there, so the mark is not taken for output.
__kr_unmark_end() {
  setopt localoptions extendedglob
  [[ -o prompt_sp ]] && (( __kr_cy > 0 && __kr_cx == 0 )) || return
  local off=0 mark=${(%)${PROMPT_EOL_MARK-%B%S%#%s%b}}
  (( __kr_hs > 0 )) && off=1
  mark=${mark//$'\e'\[[0-9;]#m/}
  local row=${__kr_rows[2 + off + __kr_cy - 1]-}
  local text=${row%%[[:space:]]#}
  (( ${#row} >= ${__kr_geo%% *} )) && [[ -n $mark && $text == *$mark ]] || return
  text=${text%$mark}
  __kr_cy=$((__kr_cy - 1)) __kr_cx=${#text}
  __kr_pos="$__kr_hs $__kr_cy $__kr_cx $__kr_geo"
  __kr_enc "$text" 1024
  __kr_end_row=$REPLY
}

# The text of pane row $1 (-1: the last history row) from __kr_rows, encoded, in REPLY.
__kr_row() {
  setopt localoptions extendedglob
  local off=0 r=$1
  (( __kr_hs > 0 )) && off=1
  if (( r < 0 && off == 0 )); then REPLY=; return; fi
  local row=${__kr_rows[2 + off + r]-}
  __kr_enc "${row%%[[:space:]]#}" 1024
}

# Writes the pane's state file: $1 = start ($2 the command line) or end ($2 its status), through a
# temporary file (0600) renamed over the old one.
__kr_record() {
  local home=${KORTTY_HOME:-$HOME/.kortty} srv=${TMUX#*,}
  srv=${srv%%,*}
  local dir=$home/rag/last
  local f=$dir/$srv-${TMUX_PANE#%}.state fd
  [[ -d $dir ]] || (umask 077; mkdir -p "$dir") || return
  # Without tmux's answer the command line and status are still recorded (no rows), so an older
  # command is never mistaken for the last one.
  local placed=1
  __kr_query || placed=0
  if [[ $1 == start ]]; then
    __kr_enc "$2" 4096
    __kr_run=("run-command $REPLY")
    if (( placed )); then
      __kr_run+=("run-start $__kr_pos")
      __kr_row $((__kr_cy - 1))
      __kr_run+=("run-anchor $REPLY")
    fi
  else
    (( ${#__kr_run} )) || return
    if (( placed && ${#__kr_run} > 1 )); then
      local __kr_end_row=
      if __kr_unmark_end; then REPLY=$__kr_end_row
      elif (( __kr_cx > 0 )); then __kr_row $__kr_cy
      else __kr_row $((__kr_cy - 1)); fi
      __kr_last=("${(@)__kr_run/#run-/last-}" "last-end $__kr_pos" "last-exit $2" "last-end-anchor $REPLY")
    else
      __kr_last=("${__kr_run[1]/#run-/last-}" "last-exit $2")
    fi
    __kr_run=()
  fi
  local tmp=$f.$$
  sysopen -w -o creat,truncate -m 600 -u fd $tmp || return
  print -rl -u $fd -- 'kortty-rag-last 1' "pane $TMUX_PANE" "${(@)__kr_last}" "${(@)__kr_run}"
  exec {fd}>&-
  zf_mv -f $tmp $f 2>/dev/null || command mv -f $tmp $f
}

__kr_precmd() {
  local s=$?
  if (( __kr_ran )); then
    __kr_ran=0
    __kr_mark "D;$s"
    [[ -n ${TMUX_PANE-} ]] && __kr_record end $s 2>/dev/null
  fi
  return $s
}

__kr_preexec() {
  __kr_ran=1
  [[ -n ${TMUX_PANE-} ]] && __kr_record start "$1" 2>/dev/null
  __kr_mark C
}

# Last among the precmd hooks: a prompt that was just rebuilt gets its A and B marks back.
__kr_prompt_marks() {
  [[ $PS1 == "$__kr_ps1_a"* ]] || PS1=$__kr_ps1_a$PS1
  [[ $PS1 == *"$__kr_ps1_b" ]] || PS1=$PS1$__kr_ps1_b
}

(( ${precmd_functions[(Ie)__kr_precmd]} )) || precmd_functions=(__kr_precmd $precmd_functions __kr_prompt_marks)
(( ${preexec_functions[(Ie)__kr_preexec]} )) || preexec_functions+=(__kr_preexec)

fi
