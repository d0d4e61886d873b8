-- kortty-rag for WezTerm. A thin shell over the kortty-rag CLI:
--   local kortty = wezterm.plugin.require('https://github.com/<you>/kortty-rag')
--   kortty.apply_to_config(config, { bin = { 'kortty-rag' } })
-- The selection reaches the CLI only through a private temp file redirected to stdin: the
-- command run in the split is a fixed `sh -c` script whose variable parts are positional
-- arguments (the file name and the CLI's own argv), so no terminal text is ever interpolated
-- into a command line or an argument.

local wezterm = require('wezterm')

local M = {}

M.defaults = {
  -- The command that runs kortty-rag, as an argv prefix ({ 'node', '/path/bin/kortty-rag.js' } works too).
  bin = { 'kortty-rag' },
  action = 'ask',
  profile = nil,
  -- Free in WezTerm's default key table (CTRL+SHIFT+R is its own "reload configuration").
  ask_key = { key = 'a', mods = 'CTRL|SHIFT' },
  -- Ask about the last command (O: its Output); CTRL+SHIFT+L is WezTerm's debug overlay.
  ask_last_key = { key = 'o', mods = 'CTRL|SHIFT' },
  -- Rows of the last command's output read from the pane at most (its last rows); the CLI bounds
  -- it again to its own limit.
  last_max_lines = 2000,
  manager_key = { key = 'b', mods = 'CTRL|SHIFT' },
  -- Where answers and the manager open: 'Bottom' | 'Right' | 'Top' | 'Left' split, or 'tab'.
  ask_direction = 'Bottom',
  ask_size = 0.4,
  manager_direction = 'Right',
  manager_size = 0.5,
  status = true,
  -- The pre-rendered status line (kortty-rag rewrites it on every change and while a job runs):
  -- read on each update-right-status, no process started. nil = $KORTTY_HOME/rag/status.txt
  -- (KORTTY_HOME defaulting to ~/.kortty).
  status_file = nil,
  -- When the file cannot be read: seconds between two `kortty-rag status` runs (which also write it).
  status_interval = 5,
  -- Injectable for tests.
  clock = os.time,
  tmpname = os.tmpname,
}

-- $1 = selection file, $2... = kortty-rag argv. Quoted once, here, with no user data in it.
M.ASK_SCRIPT = table.concat({
  'f=$1; shift',
  '"$@" < "$f"; rc=$?',
  'rm -f -- "$f"',
  '[ "$rc" -eq 0 ] || printf "\\nkortty-rag ask failed (exit %s)\\n" "$rc"',
  'printf "\\n[press Enter to close]"; read -r _',
}, '\n')

local function merge(opts)
  local o = {}
  for k, v in pairs(M.defaults) do
    o[k] = v
  end
  for k, v in pairs(opts or {}) do
    o[k] = v
  end
  return o
end

local function argv(o, ...)
  local out = {}
  for _, a in ipairs(o.bin) do
    out[#out + 1] = a
  end
  for _, a in ipairs({ ... }) do
    out[#out + 1] = a
  end
  return out
end

local function notify(window, message)
  if window and window.toast_notification then
    window:toast_notification('kortty-rag', message, nil, 4000)
  else
    wezterm.log_error('kortty-rag: ' .. message)
  end
end

--- Writes text to a new private file (os.tmpname creates it with mode 0600) and returns its name.
function M.write_selection(o, text)
  local path = o.tmpname()
  local f, err = io.open(path, 'wb')
  if not f then
    return nil, err
  end
  f:write(text)
  f:close()
  return path
end

--- The argv run in the split for one ask: the selection is only the file's content.
function M.ask_args(o, path)
  local args = { 'sh', '-c', M.ASK_SCRIPT, 'kortty-rag-ask', path }
  local cli = argv(o, 'ask', '--action', o.action, '--stdin')
  if o.profile and o.profile ~= '' then
    cli[#cli + 1] = '--profile'
    cli[#cli + 1] = o.profile
  end
  for _, a in ipairs(cli) do
    args[#args + 1] = a
  end
  return args
end

local function open_view(window, pane, direction, size, args)
  if direction == 'tab' then
    window:mux_window():spawn_tab({ args = args })
  else
    pane:split({ direction = direction, size = size, args = args })
  end
end

--- Characters of a selection that are not blank.
function M.nonblank_chars(text)
  local stripped = text:gsub('%s', '')
  return utf8.len(stripped) or #stripped
end

local function ask_now(o, window, pane, text)
  local path, err = M.write_selection(o, text)
  if not path then
    notify(window, 'cannot write the selection to a temporary file: ' .. tostring(err))
    return
  end
  open_view(window, pane, o.ask_direction, o.ask_size, M.ask_args(o, path))
end

function M.ask_selection(o)
  return wezterm.action_callback(function(window, pane)
    local text = window:get_selection_text_for_pane(pane)
    local n = text and M.nonblank_chars(text) or 0
    if n == 0 then
      notify(window, 'nothing selected: select text first')
      return
    end
    if n < 3 then
      -- One or two characters are more likely a slip than a question: ask first.
      window:perform_action(
        wezterm.action.PromptInputLine({
          description = 'kortty-rag: ask about a ' .. n .. '-character selection? (y/n)',
          action = wezterm.action_callback(function(w, p, line)
            if line and line:match('^%s*[yY]') then
              ask_now(o, w, p, text)
            end
          end),
        }),
        pane
      )
      return
    end
    ask_now(o, window, pane, text)
  end)
end

--- The last complete command of a pane from its semantic zones (OSC 133, written by the shell
--- integration): the Input zone (command line) and Output zones between the two last prompts.
--- Returns { command, output, truncated } or nil and the reason.
function M.last_command(pane, max_lines)
  local zones = pane.get_semantic_zones and pane:get_semantic_zones() or {}
  local current
  for i = #zones, 1, -1 do
    if zones[i].semantic_type == 'Prompt' then
      current = i
      break
    end
  end
  if not current then
    return nil, 'no shell integration marks in this pane: source the output of `kortty-rag shell-init bash|zsh|fish` in your shell'
  end
  local input, first, last
  for i = current - 1, 1, -1 do
    local z = zones[i]
    if z.semantic_type == 'Prompt' then
      break
    elseif z.semantic_type == 'Output' then
      first = z
      last = last or z
    elseif z.semantic_type == 'Input' then
      input = z
    end
  end
  if not input then
    return nil, 'no complete command before the prompt'
  end
  local command = pane:get_text_from_semantic_zone(input):gsub('%s+$', '')
  local output, truncated = '', false
  if first then
    local zone = {
      semantic_type = 'Output',
      start_y = first.start_y,
      start_x = first.start_x,
      end_y = last.end_y,
      end_x = last.end_x,
    }
    if zone.end_y - zone.start_y + 1 > max_lines then
      -- Only the last rows are read: a 100k-line output is never copied whole.
      zone.start_y = zone.end_y - max_lines + 1
      zone.start_x = 0
      truncated = true
    end
    output = pane:get_text_from_semantic_zone(zone)
  end
  return { command = command, output = output, truncated = truncated }
end

local JSON_ESCAPES = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

--- A Lua string as a JSON string (UTF-8 passes through; control characters become \u00XX).
function M.json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return JSON_ESCAPES[c] or string.format('\\u%04x', c:byte())
  end) .. '"'
end

--- The argv run in the split for the last command: its JSON is only the file's content.
function M.ask_last_args(o, path)
  local args = { 'sh', '-c', M.ASK_SCRIPT, 'kortty-rag-ask', path }
  local cli = argv(o, 'ask', '--action', o.action, '--last', '--stdin')
  if o.profile and o.profile ~= '' then
    cli[#cli + 1] = '--profile'
    cli[#cli + 1] = o.profile
  end
  for _, a in ipairs(cli) do
    args[#args + 1] = a
  end
  return args
end

function M.ask_last(o)
  return wezterm.action_callback(function(window, pane)
    local last, why = M.last_command(pane, o.last_max_lines)
    if not last then
      notify(window, why)
      return
    end
    -- WezTerm keeps no exit code in its zones: the CLI says it is not known. A cut made here is
    -- below the CLI's own bound (last_max_lines is larger), which cuts again and says so.
    local json = '{"command":' .. M.json_string(last.command) .. ',"output":' .. M.json_string(last.output) .. '}'
    local path, err = M.write_selection(o, json)
    if not path then
      notify(window, 'cannot write the last command to a temporary file: ' .. tostring(err))
      return
    end
    open_view(window, pane, o.ask_direction, o.ask_size, M.ask_last_args(o, path))
  end)
end

function M.open_manager(o)
  return wezterm.action_callback(function(window, pane)
    open_view(window, pane, o.manager_direction, o.manager_size, argv(o, 'tui'))
  end)
end

function M.status_file(o)
  if o.status_file then
    return o.status_file
  end
  local home = os.getenv('KORTTY_HOME')
  if home == nil or home == '' then
    home = (os.getenv('HOME') or '') .. '/.kortty'
  end
  return home .. '/rag/status.txt'
end

local function read_line(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local line = f:read('l')
  f:close()
  return line
end

--- update-right-status handler: shows the pre-rendered line from the status file (a small file
--- read, no process). Only when the file is missing or empty does it run
--- `kortty-rag status --format plain` (an argv, no shell), at most once per status_interval.
function M.status_handler(o)
  local path = M.status_file(o)
  local last_run, text = nil, ''
  return function(window, _pane)
    local line = read_line(path)
    if line and line ~= '' then
      text = line:gsub('%s+$', '')
    else
      local now = o.clock()
      if last_run == nil or now - last_run >= o.status_interval then
        last_run = now
        local ok, stdout, stderr = wezterm.run_child_process(argv(o, 'status', '--format', 'plain'))
        if ok then
          text = (stdout or ''):gsub('%s+$', '')
        else
          text = 'RAG ?'
          wezterm.log_warn('kortty-rag status failed: ' .. tostring(stderr))
        end
      end
    end
    window:set_right_status(wezterm.format({ { Text = text .. ' ' } }))
  end
end

function M.apply_to_config(config, opts)
  local o = merge(opts)
  config.keys = config.keys or {}
  table.insert(config.keys, { key = o.ask_key.key, mods = o.ask_key.mods, action = M.ask_selection(o) })
  table.insert(config.keys, { key = o.ask_last_key.key, mods = o.ask_last_key.mods, action = M.ask_last(o) })
  table.insert(config.keys, { key = o.manager_key.key, mods = o.manager_key.mods, action = M.open_manager(o) })
  if o.status then
    wezterm.on('update-right-status', M.status_handler(o))
  end
  return config
end

return M
