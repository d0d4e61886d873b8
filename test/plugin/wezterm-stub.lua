-- A stand-in for WezTerm's `wezterm` module (WezTerm itself cannot run here). It implements the
-- calls plugin/init.lua makes, with WezTerm's signatures, and records them for assertions.
local stub = {
  handlers = {},
  children = {},
  child_result = { true, 'RAG idle\n', '' },
  logs = {},
}

function stub.on(event, fn)
  stub.handlers[event] = stub.handlers[event] or {}
  table.insert(stub.handlers[event], fn)
end

function stub.action_callback(fn)
  return { callback = fn }
end

-- wezterm.action.Name(args) builds a key assignment; here a record of its name and arguments.
stub.action = setmetatable({}, {
  __index = function(_, name)
    return function(args)
      return { action = name, args = args }
    end
  end,
})

function stub.run_child_process(args)
  assert(type(args) == 'table', 'run_child_process takes an argv table')
  local copy = {}
  for i, a in ipairs(args) do
    copy[i] = a
  end
  table.insert(stub.children, copy)
  return table.unpack(stub.child_result)
end

function stub.format(items)
  local out = {}
  for _, it in ipairs(items) do
    if it.Text then
      out[#out + 1] = it.Text
    end
  end
  return table.concat(out)
end

function stub.log_error(msg)
  table.insert(stub.logs, msg)
end
stub.log_warn = stub.log_error
stub.log_info = stub.log_error

return stub
