#!/usr/bin/env bash
# TPM entry: TPM runs every *.tmux file at a plugin's root and discards its output.
# Everything happens in plugin/tmux/kortty-rag.sh, which reports errors with display-message.
CURRENT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$CURRENT_DIR/plugin/tmux/kortty-rag.sh" init
