-- Driven by tests/e2e/test_nvim.py: open a file with code-intel attached through
-- editors/nvim/code-intel.lua, ask for a definition and references, run
-- :CodeIntelSearch for each query, and write what Neovim got as JSON.
local env = vim.env
local out = { errors = {} }
local ci = require('code-intel-under-test')

local log = io.open(env.CI_OUT .. '.log', 'w')
local function note(msg)
  log:write(os.date('%H:%M:%S ') .. msg .. '\n')
  log:flush()
end

local function wait(ms, cond, what)
  note('waiting for ' .. what)
  if not vim.wait(ms, cond, 100) then
    error('timed out waiting for ' .. what)
  end
end

-- poll(): like wait(), for checks that themselves wait (request_sync, vim.wait), which
-- cannot run inside a vim.wait callback
local function poll(ms, check, what)
  note('polling for ' .. what)
  local deadline = vim.uv.now() + ms
  while not check() do
    if vim.uv.now() > deadline then
      error('timed out waiting for ' .. what)
    end
    vim.wait(300)
  end
end

local ok, err = pcall(function()
  vim.cmd.edit(env.CI_FILE)
  local client
  wait(30000, function()
    client = vim.lsp.get_clients({ name = 'code_intel', bufnr = 0 })[1]
    return client ~= nil and client.initialized
  end, 'the code_intel client to attach')
  poll(90000, function()
    local res = client:request_sync('codeIntel/indexStatus', vim.empty_dict(), 5000, 0)
    return res and res.result and res.result.state == 'ready'
  end, 'the index')

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    position = { line = tonumber(env.CI_LINE), character = tonumber(env.CI_COL) },
  }
  out.definition = client:request_sync('textDocument/definition', params, 10000, 0).result
  params.context = { includeDeclaration = false }
  out.references = client:request_sync('textDocument/references', params, 10000, 0).result

  out.searches = {}
  for _, q in ipairs(vim.json.decode(env.CI_QUERIES)) do
    local found = {}
    -- the model loads and embeds in the background; retry until the vectors answer
    poll(120000, function()
      vim.fn.setqflist({}, 'r', { items = {} })
      vim.cmd('CodeIntelSearch ' .. q.text)
      vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 50)
      found = {}
      for _, item in ipairs(vim.fn.getqflist()) do
        table.insert(found, { file = vim.api.nvim_buf_get_name(item.bufnr), lnum = item.lnum, text = item.text })
      end
      for _, f in ipairs(found) do
        if f.file:find(q.expect, 1, true) then return true end
      end
      return false
    end, 'search results for ' .. q.text)
    note('found ' .. #found .. ' for ' .. q.text)
    table.insert(out.searches, { query = q.text, results = found })
  end
  out.statusline_before = ci.statusline()
  out.session_command = vim.fn.exists(':CodeIntelSession') == 2
end)
if not ok then
  table.insert(out.errors, tostring(err))
end
local f = io.open(env.CI_OUT, 'w')
f:write(vim.json.encode(out))
f:close()
vim.cmd('qa!')
