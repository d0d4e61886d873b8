-- Unit tests for plugin/init.lua under lua5.4 with the stub `wezterm` module.
-- usage: lua5.4 test/plugin/wezterm-plugin-test.lua REPO_ROOT ARGS_OUT [BIN] [PWNED_PREFIX]
-- Prints "ok - name" per test; exits non-zero on the first failure. ARGS_OUT receives the argv
-- the ask action would run, NUL-separated (and ARGS_OUT.expected the selection), so the driving
-- test can execute it for real.
local root, args_out = arg[1], arg[2]
package.path = root .. '/test/plugin/?.lua;' .. package.path
package.loaded['wezterm'] = require('wezterm-stub')
local wezterm = package.loaded['wezterm']
local plugin = dofile(root .. '/plugin/init.lua')

local function check(cond, msg)
  if not cond then
    error(msg, 2)
  end
end

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name = name, fn = fn }
end

local PWNED = arg[4] or '/tmp/pwned-lua'
local HOSTILE = 'kiwi $(touch ' .. PWNED .. '-a) `touch ' .. PWNED .. "-b` '; touch " .. PWNED .. '-c #\n"quoted" \\ \27[31mred\27[0m \27]0;t\7 %s\nlast\n'

local function fake_window(selection)
  local w = { statuses = {}, toasts = {}, performed = {} }
  function w:perform_action(action, pane)
    table.insert(self.performed, { action = action, pane = pane })
  end
  function w:get_selection_text_for_pane(_pane)
    return selection
  end
  function w:set_right_status(s)
    table.insert(self.statuses, s)
  end
  function w:toast_notification(title, msg)
    table.insert(self.toasts, title .. ': ' .. msg)
  end
  return w
end

local function fake_pane()
  local p = { splits = {} }
  function p:split(spec)
    table.insert(self.splits, spec)
    return {}
  end
  return p
end

local function find_key(config, key, mods)
  for _, k in ipairs(config.keys) do
    if k.key == key and k.mods == mods then
      return k
    end
  end
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('a')
  f:close()
  return s
end

-- A pane whose screen is `rows` (0-based rows, as WezTerm's stable row indices) and whose
-- semantic zones are `zones`; get_text_from_semantic_zone reads the zone's cells like WezTerm.
local function zoned_pane(rows, zones)
  local p = fake_pane()
  p.read = {}
  function p:get_semantic_zones()
    return zones
  end
  function p:get_text_from_semantic_zone(z)
    table.insert(self.read, z)
    local out = {}
    for y = z.start_y, z.end_y do
      local line = rows[y + 1] or ''
      local from = (y == z.start_y) and z.start_x + 1 or 1
      local to = (y == z.end_y) and z.end_x + 1 or #line
      out[#out + 1] = line:sub(from, to)
    end
    return table.concat(out, '\n')
  end
  return p
end

local function zone(kind, sy, sx, ey, ex)
  return { semantic_type = kind, start_y = sy, start_x = sx, end_y = ey, end_x = ex }
end

test('apply_to_config keeps existing keys and registers the ask and manager keys', function()
  local config = { keys = { { key = 'x', mods = 'ALT', action = 'existing' } } }
  local out = plugin.apply_to_config(config, {})
  check(out == config, 'returns the config')
  check(#config.keys == 4, 'four keys, got ' .. #config.keys)
  check(find_key(config, 'o', 'CTRL|SHIFT').action.callback, 'last-command key with a callback')
  check(config.keys[1].action == 'existing', 'existing key kept')
  check(find_key(config, 'a', 'CTRL|SHIFT').action.callback, 'ask key with a callback')
  check(find_key(config, 'b', 'CTRL|SHIFT').action.callback, 'manager key with a callback')
  check(#wezterm.handlers['update-right-status'] == 1, 'status handler registered')
end)

test('keys and options are configurable; status can be turned off', function()
  wezterm.handlers = {}
  local config = plugin.apply_to_config({}, { ask_key = { key = 'q', mods = 'LEADER' }, manager_key = { key = 'm', mods = 'LEADER' }, status = false })
  check(find_key(config, 'q', 'LEADER'), 'custom ask key')
  check(find_key(config, 'm', 'LEADER'), 'custom manager key')
  check(wezterm.handlers['update-right-status'] == nil, 'no status handler')
end)

test('ask: the selection goes to a 0600 file redirected to stdin, never into argv', function()
  local config = plugin.apply_to_config({}, { bin = { 'node', '/opt/kortty/bin/kortty-rag.js' }, profile = 'local' })
  local window, pane = fake_window(HOSTILE), fake_pane()
  find_key(config, 'a', 'CTRL|SHIFT').action.callback(window, pane)
  check(#pane.splits == 1, 'one split')
  local spec = pane.splits[1]
  check(spec.direction == 'Bottom', 'split below')
  local args = spec.args
  check(args[1] == 'sh' and args[2] == '-c' and args[3] == plugin.ASK_SCRIPT, 'fixed sh -c script')
  local path = args[5]
  check(read_file(path) == HOSTILE, 'file holds the exact selection')
  local mode = io.popen('stat -c %a ' .. path):read('l')
  check(mode == '600', 'file mode 600, got ' .. tostring(mode))
  local want = { 'node', '/opt/kortty/bin/kortty-rag.js', 'ask', '--action', 'ask', '--stdin', '--profile', 'local' }
  for i, w in ipairs(want) do
    check(args[5 + i] == w, 'argv[' .. (5 + i) .. '] = ' .. tostring(args[5 + i]) .. ', want ' .. w)
  end
  check(#args == 5 + #want, 'nothing else in argv')
  for _, a in ipairs(args) do
    check(not a:find('kiwi', 1, true) and not a:find(PWNED, 1, true), 'selection text in argv: ' .. a)
  end
  check(not plugin.ASK_SCRIPT:find('kiwi', 1, true), 'selection text in the script')
  os.remove(path)
end)

test('ask with nothing selected opens nothing and says so', function()
  local config = plugin.apply_to_config({}, {})
  local window, pane = fake_window(''), fake_pane()
  find_key(config, 'a', 'CTRL|SHIFT').action.callback(window, pane)
  check(#pane.splits == 0, 'no split')
  check(window.toasts[1] and window.toasts[1]:find('nothing selected'), 'toast shown')
end)

-- WezTerm's own default CTRL+SHIFT assignments (docs/config/default-keys.md, wezterm show-keys).
local WEZTERM_CTRL_SHIFT = {
  'c', 'v', 'n', 't', 'w', 'r', 'k', 'l', 'p', 'u', 'f', 'x', 'z', 'm',
  '1', '2', '3', '4', '5', '6', '7', '8', '9', 'Space', 'Tab', 'PageUp', 'PageDown',
  'LeftArrow', 'RightArrow', 'UpArrow', 'DownArrow',
}

test('default keys shadow none of WezTerm\'s own CTRL+SHIFT assignments', function()
  for _, k in ipairs({ plugin.defaults.ask_key, plugin.defaults.ask_last_key, plugin.defaults.manager_key }) do
    check(k.mods == 'CTRL|SHIFT', 'mods ' .. k.mods)
    for _, taken in ipairs(WEZTERM_CTRL_SHIFT) do
      check(k.key:lower() ~= taken:lower(), 'CTRL+SHIFT+' .. k.key .. ' is a WezTerm default')
    end
  end
end)

test('a selection of fewer than 3 non-blank characters asks first; yes asks, no does nothing', function()
  local written = {}
  local config = plugin.apply_to_config({}, {
    tmpname = function()
      local p = os.tmpname()
      written[#written + 1] = p
      return p
    end,
  })
  for _, answer in ipairs({ 'n', 'y' }) do
    local window, pane = fake_window(' ok\n'), fake_pane()
    find_key(config, 'a', 'CTRL|SHIFT').action.callback(window, pane)
    check(#pane.splits == 0, 'no split before the answer')
    local prompt = window.performed[1] and window.performed[1].action
    check(prompt and prompt.action == 'PromptInputLine', 'a prompt')
    check(prompt.args.description:find('2%-character selection'), prompt.args.description)
    prompt.args.action.callback(window, pane, answer)
    if answer == 'n' then
      check(#pane.splits == 0, 'no split after no')
      check(#written == 0, 'no selection file written')
    else
      check(#pane.splits == 1, 'split after yes')
      check(read_file(pane.splits[1].args[5]) == ' ok\n', 'the selection as it was')
      os.remove(pane.splits[1].args[5])
    end
  end
  local window, pane = fake_window('abc'), fake_pane()
  find_key(config, 'a', 'CTRL|SHIFT').action.callback(window, pane)
  check(#window.performed == 0 and #pane.splits == 1, 'three characters ask at once')
  os.remove(pane.splits[1].args[5])
  local blank = fake_window(' \n\t')
  find_key(config, 'a', 'CTRL|SHIFT').action.callback(blank, fake_pane())
  check(blank.toasts[1] and blank.toasts[1]:find('nothing selected'), 'a blank selection is nothing')
end)

test('manager key opens kortty-rag tui in a split (argv, no shell)', function()
  local config = plugin.apply_to_config({}, { bin = { '/usr/local/bin/kortty-rag' } })
  local window, pane = fake_window('x'), fake_pane()
  find_key(config, 'b', 'CTRL|SHIFT').action.callback(window, pane)
  local spec = pane.splits[1]
  check(spec.direction == 'Right', 'split right')
  check(#spec.args == 2 and spec.args[1] == '/usr/local/bin/kortty-rag' and spec.args[2] == 'tui', 'argv bin tui')
end)

test('status: reads the pre-rendered line from the status file, no process, follows its changes', function()
  wezterm.handlers = {}
  wezterm.children = {}
  local path = os.tmpname()
  local function put(s)
    local f = assert(io.open(path, 'wb'))
    f:write(s)
    f:close()
  end
  put('RAG idle\n')
  plugin.apply_to_config({}, { bin = { 'kortty-rag' }, status_file = path })
  local handler = wezterm.handlers['update-right-status'][1]
  local window = fake_window('')
  handler(window, fake_pane())
  check(window.statuses[1] == 'RAG idle ', 'shows the file, got ' .. tostring(window.statuses[1]))
  put('RAG syncing Notes 40%\n')
  handler(window, fake_pane())
  check(window.statuses[2] == 'RAG syncing Notes 40% ', 'follows the file, got ' .. tostring(window.statuses[2]))
  check(#wezterm.children == 0, 'no process started')
  os.remove(path)
end)

test('status: the default file is $KORTTY_HOME/rag/status.txt', function()
  local want = (os.getenv('KORTTY_HOME') and os.getenv('KORTTY_HOME') ~= '') and os.getenv('KORTTY_HOME') or ((os.getenv('HOME') or '') .. '/.kortty')
  check(plugin.status_file(plugin.defaults) == want .. '/rag/status.txt', 'got ' .. plugin.status_file(plugin.defaults))
end)

test('status: without the file, runs the CLI with an argv table, throttled, and shows its line', function()
  wezterm.handlers = {}
  wezterm.children = {}
  local now = 1000
  plugin.apply_to_config({}, { bin = { 'kortty-rag' }, status_interval = 5, status_file = '/nonexistent/kortty/status.txt', clock = function()
    return now
  end })
  local handler = wezterm.handlers['update-right-status'][1]
  local window = fake_window('')
  handler(window, fake_pane())
  check(#wezterm.children == 1, 'ran once')
  local a = wezterm.children[1]
  check(#a == 4 and a[1] == 'kortty-rag' and a[2] == 'status' and a[3] == '--format' and a[4] == 'plain', 'argv')
  check(window.statuses[1] == 'RAG idle ', 'shows the line, got ' .. tostring(window.statuses[1]))
  now = now + 2
  wezterm.child_result = { true, 'RAG syncing Notes 40%\n', '' }
  handler(window, fake_pane())
  check(#wezterm.children == 1, 'throttled')
  check(window.statuses[2] == 'RAG idle ', 'cached line')
  now = now + 5
  handler(window, fake_pane())
  check(#wezterm.children == 2, 'ran again after the interval')
  check(window.statuses[3] == 'RAG syncing Notes 40% ', 'new line')
  wezterm.child_result = { false, '', 'boom' }
  now = now + 5
  handler(window, fake_pane())
  check(window.statuses[4] == 'RAG ? ', 'failure shown as RAG ?')
end)

-- Rows as a bash prompt with the shell integration leaves them: prompt, command, output, prompt.
local LAST_ROWS = {
  'old$ echo old',
  'old',
  'me@host:~$ ls /nonexistent "$(touch ' .. PWNED .. '-l)"',
  "ls: cannot access '/nonexistent': No such file or directory",
  '\27[31mred\27[0m "q" \\ tab\there',
  'me@host:~$ ',
}
local LAST_ZONES = {
  zone('Prompt', 0, 0, 0, 3),
  zone('Input', 0, 4, 0, 12),
  zone('Output', 1, 0, 1, 2),
  zone('Prompt', 2, 0, 2, 10),
  zone('Input', 2, 11, 2, 200),
  zone('Output', 3, 0, 4, 200),
  zone('Prompt', 5, 0, 5, 10),
}

test('last command: the Input and Output zones between the two last prompts', function()
  local pane = zoned_pane(LAST_ROWS, LAST_ZONES)
  local last = assert(plugin.last_command(pane, 100))
  check(last.command == LAST_ROWS[3]:sub(12), 'command: ' .. last.command)
  check(last.output == LAST_ROWS[4] .. '\n' .. LAST_ROWS[5], 'output: ' .. last.output)
  check(last.truncated == false, 'not cut')
  -- While the user types the next command, its Input zone follows the current prompt.
  local typing = {}
  for i, z in ipairs(LAST_ZONES) do
    typing[i] = z
  end
  typing[#typing + 1] = zone('Input', 5, 11, 5, 20)
  check(plugin.last_command(zoned_pane(LAST_ROWS, typing), 100).command == last.command, 'typing ignored')
end)

test('last command: a long output is read from its last rows only, and said to be cut', function()
  local rows = { '$ seq 100000' }
  for i = 1, 50 do
    rows[#rows + 1] = 'row ' .. i
  end
  rows[#rows + 1] = '$ '
  local pane = zoned_pane(rows, {
    zone('Prompt', 0, 0, 0, 1),
    zone('Input', 0, 2, 0, 11),
    zone('Output', 1, 0, 50, 10),
    zone('Prompt', 51, 0, 51, 1),
  })
  local last = assert(plugin.last_command(pane, 10))
  check(last.truncated == true, 'cut')
  check(pane.read[2].start_y == 41 and pane.read[2].end_y == 50, 'read rows 41..50 only')
  check(last.output:match('^row 41\n') and last.output:match('row 50$'), last.output)
end)

test('last command: a command without output, no marks, no complete command', function()
  local quiet = zoned_pane({ '$ true', '$ ' }, {
    zone('Prompt', 0, 0, 0, 1),
    zone('Input', 0, 2, 0, 5),
    zone('Prompt', 1, 0, 1, 1),
  })
  local last = assert(plugin.last_command(quiet, 10))
  check(last.command == 'true' and last.output == '', 'empty output')
  local none, why = plugin.last_command(zoned_pane({ '$ ' }, {}), 10)
  check(none == nil and why:find('shell%-init'), tostring(why))
  local config = plugin.apply_to_config({}, {})
  local window = fake_window('')
  local pane = zoned_pane({ '$ ' }, { zone('Prompt', 0, 0, 0, 1) })
  find_key(config, 'o', 'CTRL|SHIFT').action.callback(window, pane)
  check(#pane.splits == 0, 'no split')
  check(window.toasts[1] and window.toasts[1]:find('no complete command'), tostring(window.toasts[1]))
end)

test('json_string escapes quotes, backslashes and control characters', function()
  check(plugin.json_string('a"b\\c\n\t\27[0m\1') == '"a\\"b\\\\c\\n\\t\\u001b[0m\\u0001"', plugin.json_string('a"b\\c\n\t\27[0m\1'))
  check(plugin.json_string('日本') == '"日本"', 'UTF-8 kept')
end)

test('the ask argv for the driving test', function()
  local config = plugin.apply_to_config({}, { bin = { arg[3] or 'kortty-rag' } })
  local window, pane = fake_window(HOSTILE), fake_pane()
  find_key(config, 'a', 'CTRL|SHIFT').action.callback(window, pane)
  local f = assert(io.open(args_out, 'wb'))
  for _, a in ipairs(pane.splits[1].args) do
    f:write(a, '\0')
  end
  f:close()
  f = assert(io.open(args_out .. '.expected', 'wb'))
  f:write(HOSTILE)
  f:close()
  -- The last-command key on the same pane contents: its argv, and the command and output expected.
  local pane2 = zoned_pane(LAST_ROWS, LAST_ZONES)
  find_key(config, 'o', 'CTRL|SHIFT').action.callback(fake_window(''), pane2)
  f = assert(io.open(args_out .. '.last', 'wb'))
  for _, a in ipairs(pane2.splits[1].args) do
    f:write(a, '\0')
  end
  f:close()
  f = assert(io.open(args_out .. '.last.expected', 'wb'))
  f:write(LAST_ROWS[3]:sub(12), '\0', LAST_ROWS[4] .. '\n' .. LAST_ROWS[5])
  f:close()
end)

local failed = 0
for _, t in ipairs(tests) do
  local ok, err = pcall(t.fn)
  if ok then
    print('ok - ' .. t.name)
  else
    print('not ok - ' .. t.name .. ': ' .. tostring(err))
    failed = failed + 1
  end
end
os.exit(failed == 0 and 0 or 1)
