# kortty-rag shell integration for fish (>= 3.1): put at the end of ~/.config/fish/config.fish
#   kortty-rag shell-init fish | source
# Emits the semantic prompt marks OSC 133 A (prompt), B (command line), C (output) and D;status
# (command end) from fish's events, wrapping fish_prompt to mark its end. Inside tmux it also
# records, per pane, the last command line, its exit code and its line positions in a small
# owner-only file that `kortty-rag last` reads. Nothing captured is ever evaluated. Sourcing it
# again changes nothing.
if status is-interactive

    # tmux before 3.4 drops OSC 133; wrapped in DCS passthrough it reaches the outer terminal
    # (tmux 3.3 needs `set -g allow-passthrough on` for that). tmux 3.4+ reads the marks itself.
    if not set -q __kr_wrap
        set -g __kr_wrap 0
        if set -q TMUX
            set -l v (string match -r '([0-9]+)\.([0-9]+)' -- (tmux -V 2>/dev/null))
            if test (count $v) -ge 3; and begin
                    test $v[2] -lt 3; or begin
                        test $v[2] -eq 3; and test $v[3] -lt 4
                    end
                end
                set -g __kr_wrap 1
            end
        end
    end
    set -q __kr_ran; or set -g __kr_ran 0
    set -q __kr_last; or set -g __kr_last
    set -q __kr_run; or set -g __kr_run

    function __kr_mark
        if test "$__kr_wrap" = 1
            printf '\ePtmux;\e\e]133;%s\a\e\\' $argv[1]
        else
            printf '\e]133;%s\a' $argv[1]
        end
    end

    # Field text on one line: % and line breaks percent-encoded, cut to $argv[2] characters first.
    function __kr_enc
        string sub -l $argv[2] -- $argv[1] | string replace -a % %25 | string replace -a \r %0D | string join %0A
    end

    # One tmux call: the pane's positions and its visible rows (from the last history row). tmux
    # reads the pane's output asynchronously: insert mode is switched on first and the call
    # repeated until tmux shows it, which proves everything written before it is on its screen.
    function __kr_query
        printf '\e[4h' >/dev/tty
        for i in (seq 100)
            set -g __kr_rows (tmux display -p -t $TMUX_PANE '#{insert_flag} #{history_size} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height} #{history_limit}' \; capture-pane -p -t $TMUX_PANE -S -1 2>/dev/null)
            or break
            string match -q '1 *' -- $__kr_rows[1]; and break
        end
        printf '\e[4l' >/dev/tty
        set -l m (string match -r '^1 (([0-9]+) ([0-9]+) ([0-9]+) [0-9]+ [0-9]+ [0-9]+)$' -- $__kr_rows[1])
        or return 1
        set -g __kr_pos $m[2]
        set -g __kr_hs $m[3]
        set -g __kr_cy $m[4]
        set -g __kr_cx $m[5]
    end

    # The text of pane row $argv[1] (-1: the last history row), encoded.
    function __kr_row
        set -l off 0
        test $__kr_hs -gt 0; and set off 1
        set -l i (math 2 + $off + $argv[1])
        if test $i -lt 1; or test $i -gt (count $__kr_rows)
            echo
        else
            __kr_enc $__kr_rows[$i] 1024
        end
    end

    # Writes the pane's state file: start (argv[2] the command line) or end (argv[2] its status),
    # through a temporary file (0600) renamed over the old one.
    function __kr_record
        set -l home $HOME/.kortty
        set -q KORTTY_HOME; and test -n "$KORTTY_HOME"; and set home $KORTTY_HOME
        set -l srv (string split , -- $TMUX)[2]
        set -l dir $home/rag/last
        set -l f $dir/$srv-(string replace % '' -- $TMUX_PANE).state
        set -l old (umask)
        umask 077
        test -d $dir; or mkdir -p $dir
        # Without tmux's answer the command line and status are still recorded (no rows), so an
        # older command is never mistaken for the last one.
        set -l placed 1
        __kr_query; or set placed 0
        if test $argv[1] = start
            set -g __kr_run "run-command "(__kr_enc $argv[2] 4096)
            if test $placed = 1
                set -a __kr_run "run-start $__kr_pos" "run-anchor "(__kr_row (math $__kr_cy - 1))
            end
        else if test (count $__kr_run) -gt 0
            set -l r (string replace -r '^run-' last- -- $__kr_run)
            if test $placed = 1; and test (count $__kr_run) -gt 1
                set -l e (math $__kr_cy - 1)
                test $__kr_cx -gt 0; and set e $__kr_cy
                set -g __kr_last $r "last-end $__kr_pos" "last-exit $argv[2]" "last-end-anchor "(__kr_row $e)
            else
                set -g __kr_last $r[1] "last-exit $argv[2]"
            end
            set -g __kr_run
        end
        printf '%s\n' 'kortty-rag-last 1' "pane $TMUX_PANE" $__kr_last $__kr_run >$f.$fish_pid
        and command mv -f $f.$fish_pid $f
        umask $old
    end

    function __kr_preexec --on-event fish_preexec
        set -g __kr_ran 1
        set -q TMUX_PANE; and __kr_record start $argv[1] 2>/dev/null
        __kr_mark C
    end

    function __kr_postexec --on-event fish_postexec
        set -l s $status
        if test "$__kr_ran" = 1
            set -g __kr_ran 0
            __kr_mark "D;$s"
            set -q TMUX_PANE; and __kr_record end $s 2>/dev/null
        end
    end

    function __kr_prompt_start --on-event fish_prompt
        __kr_mark A
    end

    # fish has no event after the prompt: fish_prompt itself is wrapped to end with B.
    if not functions -q __kr_user_prompt
        functions -q fish_prompt; and functions -c fish_prompt __kr_user_prompt
        function fish_prompt
            functions -q __kr_user_prompt; and __kr_user_prompt
            __kr_mark B
        end
    end
end
