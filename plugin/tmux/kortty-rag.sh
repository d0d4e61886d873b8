#!/usr/bin/env bash
# kortty-rag for tmux. A thin shell over the kortty-rag CLI: it reads options (each with a
# *_default), binds keys, and hands terminal text to the CLI. The selection never appears in a
# command line: copy-pipe writes it to this script's stdin, the script stores it in a private
# temp file (mode 0600) and the popup redirects that file into `kortty-rag ask --stdin`.
# TPM discards the output of plugins, so every error is shown with `tmux display-message`.
#
#   kortty-rag.sh init                 bind keys (run by kortty-rag.tmux), start the watcher if asked
#   kortty-rag.sh copy-key CLIENT PANE SELECTED   copy-mode key: no selection -> a message, else copy-pipe
#   kortty-rag.sh selection CLIENT     stdin = copy-mode selection -> popup with the answer
#   kortty-rag.sh ask-buffer CLIENT    most recent tmux buffer -> popup with the answer
#   kortty-rag.sh ask-last CLIENT PANE the pane's last command -> popup with the answer
#   kortty-rag.sh popup-ask FILE       (inside the popup) kortty-rag ask --stdin < FILE
#   kortty-rag.sh popup-last PANE      (inside the popup) kortty-rag ask --last --pane PANE
#   kortty-rag.sh manager              (inside the popup) kortty-rag tui
#   kortty-rag.sh watch                kortty-rag watch --if-not-running --log (a tmux job)

set -u

CURRENT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCRIPT="$CURRENT_DIR/kortty-rag.sh"
REPO_DIR="$(cd "$CURRENT_DIR/../.." && pwd)"

manager_key_option='@kortty-rag-manager-key'
# Defaults are free in tmux's own key tables and avoid the keys users bind most (R: reload config).
manager_key_default='B'
ask_key_option='@kortty-rag-ask-key'
ask_key_default='A'
# O (Output of the last command): free in tmux's default table, where L is switch-client -l.
last_key_option='@kortty-rag-last-key'
last_key_default='O'
copy_mode_key_option='@kortty-rag-copy-mode-key'
copy_mode_key_default='a'
popup_size_option='@kortty-rag-popup-size'
popup_size_default='80%'
action_option='@kortty-rag-action'
action_default='ask'
profile_option='@kortty-rag-profile'
profile_default=''
bin_option='@kortty-rag-bin'
bin_default="$REPO_DIR/bin/kortty-rag.js"
node_option='@kortty-rag-node'
node_default='node'
watch_option='@kortty-rag-watch'
watch_default='off'
status_option='@kortty-rag-status'
status_default='off'

get_option() {
	local value
	value="$(tmux show-option -gqv "$1" 2>/dev/null)"
	printf '%s' "${value:-$2}"
}

# tmux expands formats (#{...}, #(...)) in messages: double every # so text is shown, never run.
display_error() {
	local msg="kortty-rag: $*"
	msg="${msg//$'\n'/ }"
	tmux display-message "${msg//#/##}" 2>/dev/null || printf '%s\n' "$msg" >&2
}

# One word for sh, whatever it contains. tmux's command parser reads the same quoting.
sh_quote() {
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

# A message on one client (the one that pressed the key) when known.
display_to() {
	local client=$1 msg="kortty-rag: $2"
	msg="${msg//$'\n'/ }"
	if [[ -n $client ]]; then
		tmux display-message -c "$client" "${msg//#/##}" 2>/dev/null && return 0
	fi
	display_error "$2"
}

# Characters of a file that are not blank (UTF-8 continuation bytes are not counted).
nonblank_chars() {
	LC_ALL=C tr -d ' \t\r\n\v\f\200-\277' <"$1" | wc -c | tr -d ' '
}

# CLI=(the command that runs kortty-rag): a .js path runs through node.
cli_command() {
	local bin node
	bin="$(get_option "$bin_option" "$bin_default")"
	node="$(get_option "$node_option" "$node_default")"
	case "$bin" in
	*.js) CLI=("$node" "$bin") ;;
	*) CLI=("$bin") ;;
	esac
}

# "80%" or "90%x60%" -> "W H"
popup_size() {
	local size
	size="$(get_option "$popup_size_option" "$popup_size_default")"
	case "$size" in
	*x*) printf '%s %s' "${size%%x*}" "${size#*x}" ;;
	*) printf '%s %s' "$size" "$size" ;;
	esac
}

# display-popup needs tmux 3.2; older servers get a window instead.
supports_popup() {
	local v major minor
	v="$(tmux -V 2>/dev/null)"
	[[ $v =~ ([0-9]+)\.([0-9]+) ]] || return 0
	major=${BASH_REMATCH[1]}
	minor=${BASH_REMATCH[2]}
	((major > 3 || (major == 3 && minor >= 2)))
}

# open_view CLIENT TITLE COMMAND: COMMAND is built here from quoted, non-user words only.
open_view() {
	local client=$1 title=$2 command=$3 w h
	read -r w h <<<"$(popup_size)"
	if supports_popup; then
		# (no empty-array expansion: bash 3.2 with set -u rejects it)
		if [[ -n $client ]]; then
			tmux display-popup -c "$client" -E -w "$w" -h "$h" -T " $title " "$command"
		else
			tmux display-popup -E -w "$w" -h "$h" -T " $title " "$command"
		fi || display_error "could not open a popup for $title"
	else
		tmux new-window -n kortty-rag "$command" || display_error "could not open a window for $title"
	fi
}

new_selection_file() {
	umask 077
	mktemp "${TMPDIR:-/tmp}/kortty-rag-selection.XXXXXX"
}

ask_file() {
	local client=$1 file=$2
	if [[ ! -s $file ]]; then
		rm -f "$file"
		display_error "nothing selected: select text in copy mode first"
		return 1
	fi
	open_view "$client" "kortty-rag $(get_option "$action_option" "$action_default")" \
		"$(sh_quote "$SCRIPT") popup-ask $(sh_quote "$file")"
}

# The copy-mode key. With nothing selected copy-pipe would leave copy mode without a word: say so
# and stay in copy mode. tmux older than 3.1 has no #{selection_present} (SELECTED is empty).
cmd_copy_key() {
	local client=${1:-} pane=${2:-} selected=${3:-}
	if [[ $selected == 0 ]]; then
		display_to "$client" "nothing selected: start a selection first (Space or v in vi mode, C-Space in emacs mode)"
		return 0
	fi
	local q_script
	q_script="$(sh_quote "$SCRIPT")"
	tmux send-keys -t "$pane" -X copy-pipe-and-cancel "${q_script//#/##} selection $(sh_quote "$client")"
}

cmd_selection() {
	local client=${1:-} file n
	file="$(new_selection_file)" || {
		display_error "cannot create a temporary file in ${TMPDIR:-/tmp}"
		return 1
	}
	cat >"$file"
	n="$(nonblank_chars "$file")"
	if ((n == 0)); then
		rm -f "$file"
		display_to "$client" "nothing selected: the selection is blank"
		return 0
	fi
	if ((n < 3)); then
		# A stray click or a 1-2 character selection is more likely a slip than a question: ask
		# first. copy-pipe also kept the selection as the newest buffer, which "y" asks about.
		rm -f "$file"
		local cmd
		cmd="$(sh_quote "$SCRIPT") ask-buffer $(sh_quote "$client")"
		tmux confirm-before ${client:+-t "$client"} -p "kortty-rag: ask about a $n-character selection? (y/n)" \
			"run-shell -b $(sh_quote "${cmd//#/##}")" || display_to "$client" "could not ask for confirmation"
		return 0
	fi
	ask_file "$client" "$file"
}

cmd_ask_buffer() {
	local file
	file="$(new_selection_file)" || {
		display_error "cannot create a temporary file in ${TMPDIR:-/tmp}"
		return 1
	}
	if ! tmux save-buffer - >"$file" 2>/dev/null; then
		rm -f "$file"
		display_error "no tmux buffer to ask about: copy some text first"
		return 1
	fi
	ask_file "${1:-}" "$file"
}

# The key for the last command: the pane is named by tmux (#{pane_id}, `%N`), never by terminal
# text; the popup captures it through `kortty-rag ask --last --pane`.
cmd_ask_last() {
	local client=${1:-} pane=${2:-}
	if [[ ! $pane =~ ^%[0-9]+$ ]]; then
		display_to "$client" "cannot tell which pane to read the last command from (got '$pane')"
		return 1
	fi
	open_view "$client" "kortty-rag last command" "$(sh_quote "$SCRIPT") popup-last $(sh_quote "$pane")"
}

wait_for_key() {
	printf '\n[press any key to close]'
	read -rsn1 _ || true
}

cmd_popup_ask() {
	local file=$1 action profile rc
	action="$(get_option "$action_option" "$action_default")"
	profile="$(get_option "$profile_option" "$profile_default")"
	local args=(ask --action "$action" --stdin)
	[[ -n $profile ]] && args+=(--profile "$profile")
	cli_command
	"${CLI[@]}" "${args[@]}" <"$file"
	rc=$?
	rm -f "$file"
	if ((rc != 0)); then
		display_error "ask failed (exit $rc); the popup shows why"
	fi
	wait_for_key
	return 0
}

cmd_popup_last() {
	local pane=$1 action profile rc
	action="$(get_option "$action_option" "$action_default")"
	profile="$(get_option "$profile_option" "$profile_default")"
	local args=(ask --action "$action" --last --pane "$pane")
	[[ -n $profile ]] && args+=(--profile "$profile")
	cli_command
	"${CLI[@]}" "${args[@]}" </dev/null
	rc=$?
	if ((rc != 0)); then
		display_error "ask about the last command failed (exit $rc); the popup shows why"
	fi
	wait_for_key
	return 0
}

cmd_manager() {
	local rc
	cli_command
	"${CLI[@]}" tui
	rc=$?
	if ((rc != 0)); then
		display_error "the manager exited with status $rc"
		wait_for_key
	fi
	return 0
}

# The watcher lives as long as this tmux server: a job whose server is gone stops it (tmux only
# signals the job's own process on exit, and not every version does).
cmd_watch() {
	local err pid rc
	err="$(mktemp "${TMPDIR:-/tmp}/kortty-rag-watch.XXXXXX")" || return 1
	cli_command
	"${CLI[@]}" watch --if-not-running --log 2>"$err" &
	pid=$!
	trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2 &
		wait $! 2>/dev/null
		tmux list-sessions >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null
	done
	wait "$pid"
	rc=$?
	if ((rc != 0 && rc != 143)); then
		display_error "watcher stopped (exit $rc): $(tail -n 1 "$err")"
	fi
	rm -f "$err"
}

# The pre-rendered status line (jobs, edits, the watcher and the query service rewrite it): tmux
# shows it with `cat`, no Node process per refresh. Appended to the user's status-right, once: a
# reload finds it already there. The file is created now if no command has written it yet.
add_status_line() {
	local home file snippet right length
	home="${KORTTY_HOME:-$HOME/.kortty}"
	file="$home/rag/status.tmux"
	case "$file" in
	*'('* | *')'* | *$'\n'*)
		display_error "cannot add the status line: $file contains a parenthesis or a newline"
		return 1
		;;
	esac
	snippet="#(cat $(sh_quote "${file//#/##}") 2>/dev/null)"
	right="$(tmux show-option -gqv status-right)"
	case "$right" in
	*'/rag/status.tmux'*) ;;
	*)
		tmux set-option -g status-right "${right:+$right }$snippet" || display_error "cannot set status-right"
		# tmux's default status-right-length (40) has no room for both.
		length="$(tmux show-option -gqv status-right-length)"
		if [[ ${length:-0} =~ ^[0-9]+$ ]] && ((length < 80)); then
			tmux set-option -g status-right-length 80
		fi
		;;
	esac
	if [[ ! -s $file ]]; then
		cli_command
		("${CLI[@]}" status --format tmux </dev/null >/dev/null 2>&1 &)
	fi
}

cmd_init() {
	local manager_key ask_key last_key copy_key q_script f_script w h
	manager_key="$(get_option "$manager_key_option" "$manager_key_default")"
	ask_key="$(get_option "$ask_key_option" "$ask_key_default")"
	last_key="$(get_option "$last_key_option" "$last_key_default")"
	copy_key="$(get_option "$copy_mode_key_option" "$copy_mode_key_default")"
	read -r w h <<<"$(popup_size)"
	q_script="$(sh_quote "$SCRIPT")"
	# run-shell and copy-pipe expand formats in their command; display-popup does not.
	f_script="${q_script//#/##}"

	if supports_popup; then
		tmux bind-key "$manager_key" display-popup -E -w "$w" -h "$h" -T ' kortty-rag ' "$q_script manager" ||
			display_error "cannot bind $manager_key_option ($manager_key)"
	else
		tmux bind-key "$manager_key" new-window -n kortty-rag "$q_script manager" ||
			display_error "cannot bind $manager_key_option ($manager_key)"
	fi
	tmux bind-key "$ask_key" run-shell -b "$f_script ask-buffer '#{client_name}'" ||
		display_error "cannot bind $ask_key_option ($ask_key)"
	tmux bind-key "$last_key" run-shell -b "$f_script ask-last '#{client_name}' '#{pane_id}'" ||
		display_error "cannot bind $last_key_option ($last_key)"
	local table
	for table in copy-mode-vi copy-mode; do
		tmux bind-key -T "$table" "$copy_key" run-shell -b "$f_script copy-key '#{client_name}' '#{pane_id}' '#{selection_present}'" ||
			display_error "cannot bind $copy_mode_key_option ($copy_key) in $table"
	done

	cli_command
	if ! command -v "${CLI[0]}" >/dev/null 2>&1; then
		display_error "${CLI[0]} not found; set $bin_option (and $node_option) to the kortty-rag command"
	elif [[ ${CLI[1]-} == *.js && ! -f ${CLI[1]} ]]; then
		display_error "${CLI[1]} does not exist; run npm ci in $REPO_DIR or set $bin_option"
	fi
	case "$(get_option "$watch_option" "$watch_default")" in
	on | yes | true | 1) tmux run-shell -b "exec $f_script watch" ;;
	esac
	case "$(get_option "$status_option" "$status_default")" in
	on | yes | true | 1) add_status_line ;;
	esac
}

main() {
	local sub=${1:-init}
	shift || true
	case "$sub" in
	init) cmd_init ;;
	copy-key) cmd_copy_key "$@" ;;
	selection) cmd_selection "$@" ;;
	ask-buffer) cmd_ask_buffer "$@" ;;
	popup-ask) cmd_popup_ask "$@" ;;
	ask-last) cmd_ask_last "$@" ;;
	popup-last) cmd_popup_last "$@" ;;
	manager) cmd_manager ;;
	watch) cmd_watch ;;
	*)
		display_error "unknown subcommand $sub"
		return 2
		;;
	esac
}

main "$@"
