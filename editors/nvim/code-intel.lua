-- code-intel for Neovim (0.10 and later; 0.11+ uses vim.lsp.config / vim.lsp.enable).
--
-- Install: copy this file to ~/.config/nvim/lua/code-intel.lua and in init.lua
--
--     require('code-intel').setup({ cmd = '/path/to/.venv/bin/code-intel' })
--
-- or, without copying:  dofile('/path/to/code-intel/editors/nvim/code-intel.lua').setup({})
--
-- Options (all optional):
--   cmd          the code-intel executable (default 'code-intel' on PATH)
--   args         extra arguments after `code-intel lsp`
--   filetypes    filetypes to attach to (default: every language the index supports)
--   root_markers files or directories that mark a workspace root
--   top          how many results :CodeIntelSearch lists (default 30)
--
-- Commands:
--   :CodeIntelSearch {text}  hybrid search (English or Japanese) into the quickfix list
--   :CodeIntelSession        the active agent session: phase, risk, slots, requirements,
--                            explored files, blocked writes, in a scratch buffer
--   :CodeIntelReindex        re-index the workspace from scratch
-- Statusline: require('code-intel').statusline() gives e.g. "CI READY/LOW".
-- Writes the agent's gate refused arrive as Warning diagnostics (source code-intel).

local M = {}

M.name = 'code_intel'
M.session = nil -- the last codeIntel/sessionChanged notice

local DEFAULT_FILETYPES = {
  'python', 'php', 'blade', 'javascript', 'javascriptreact', 'typescript',
  'typescriptreact', 'go', 'java', 'html', 'css', 'scss', 'vue',
}
local DEFAULT_MARKERS = { '.code-intel', '.git', 'composer.json', 'pyproject.toml', 'package.json' }

local options = { top = 30 }

local function client_for(bufnr)
  local clients = vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = M.name })
  end
  return clients[1]
end

-- client:request on 0.11+, client.request on 0.10
local function request(client, method, params, handler)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

local function with_client(fn)
  local client = client_for(0)
  if not client then
    vim.notify('code-intel: no language server attached (is `code-intel` installed?)', vim.log.levels.WARN)
    return
  end
  fn(client)
end

--- Quickfix items from a codeIntel/query answer: symbols first, then files not named yet.
function M.quickfix_items(result, root)
  local items, seen = {}, {}
  local function file(path)
    return root and (root .. '/' .. path) or path
  end
  for _, s in ipairs(result.symbols or {}) do
    table.insert(items, {
      filename = file(s.path),
      lnum = s.start_line,
      col = 1,
      text = string.format('%s %s  (%.3f)', s.kind, s.qualified_name, s.score),
    })
    seen[s.path] = true
  end
  for _, f in ipairs(result.files or {}) do
    if not seen[f.path] then
      table.insert(items, {
        filename = file(f.path),
        lnum = 1,
        col = 1,
        text = string.format('file  %s  (%.3f)', table.concat(f.symbols or {}, ', '), f.score),
      })
    end
  end
  return items
end

function M.search(text)
  if not text or vim.trim(text) == '' then
    vim.notify('code-intel: say what to search for, e.g. :CodeIntelSearch ログイン処理', vim.log.levels.WARN)
    return
  end
  with_client(function(client)
    request(client, 'codeIntel/query', { text = text, top = options.top }, function(err, result)
      if err then
        vim.notify('code-intel: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      if result.status == 'initializing' then
        vim.notify(('code-intel: the search model is loading; retry in %ss'):format(result.retry_after_seconds),
          vim.log.levels.INFO)
        return
      end
      local items = M.quickfix_items(result, client.config.root_dir)
      vim.fn.setqflist({}, ' ', { title = 'code-intel: ' .. text, items = items })
      if result.status == 'partial' then
        vim.notify('code-intel: ' .. table.concat(result.notes or {}, '; '), vim.log.levels.INFO)
      end
      if #items > 0 then
        vim.cmd('copen')
      else
        vim.notify('code-intel: nothing found for ' .. text, vim.log.levels.INFO)
      end
    end)
  end)
end

--- Lines describing a session status (codeIntel.showSession's answer).
function M.session_lines(s)
  if not s.active then
    return { 'code-intel: ' .. (s.message or 'no active agent session') }
  end
  local lines = {
    ('session %s  %s  phase %s  risk %s'):format(s.session_id, s.intent or '', s.phase, s.risk),
    'request: ' .. (s.query or ''),
    '',
    'slots:',
  }
  local frame = s.query_frame or {}
  for _, slot in ipairs({ 'target_feature', 'trigger_condition', 'observed_issue', 'desired_action' }) do
    local v = frame[slot]
    local shown = type(v) == 'table' and (v.value or vim.inspect(v)) or (v == nil and '—' or tostring(v))
    table.insert(lines, ('  %-18s %s'):format(slot, shown == vim.NIL and '—' or shown))
  end
  table.insert(lines, '')
  table.insert(lines, 'missing requirements:')
  for _, m in ipairs(s.missing_requirements or {}) do
    table.insert(lines, ('  %s %s/%s %s'):format(m.kind, tostring(m.have), tostring(m.need), m.subject or ''))
  end
  if #(s.missing_requirements or {}) == 0 then
    table.insert(lines, '  none')
  end
  table.insert(lines, '')
  table.insert(lines, 'explored files:')
  for _, f in ipairs(s.explored_files or {}) do
    table.insert(lines, '  ' .. f)
  end
  table.insert(lines, '')
  table.insert(lines, 'blocked writes:')
  for _, b in ipairs(s.blocked_writes or {}) do
    table.insert(lines, ('  %s: %s'):format(b.path, b.reason))
  end
  table.insert(lines, '')
  table.insert(lines, 'next: ' .. (s.next_step or ''))
  return lines
end

function M.show_session()
  with_client(function(client)
    local params = { command = 'codeIntel.showSession', arguments = M.session and { M.session.session_id } or {} }
    request(client, 'workspace/executeCommand', params, function(err, result)
      if err then
        vim.notify('code-intel: ' .. err.message, vim.log.levels.ERROR)
        return
      end
      local buf = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.session_lines(result))
      vim.bo[buf].modifiable = false
      vim.bo[buf].filetype = 'codeintelsession'
      vim.cmd('botright split')
      vim.api.nvim_win_set_buf(0, buf)
    end)
  end)
end

function M.reindex()
  with_client(function(client)
    request(client, 'codeIntel/syncIndex', { force = true }, function(err, result)
      if err then
        vim.notify('code-intel: ' .. err.message, vim.log.levels.ERROR)
        return
      end
      vim.notify(('code-intel: re-indexed %d files in %.1fs'):format(#result.added + #result.modified,
        result.elapsed_seconds))
    end)
  end)
end

function M.statusline()
  local s = M.session
  if not s or s.ended then
    return ''
  end
  return ('CI %s/%s'):format(s.phase, s.risk)
end

local function on_session_changed(_, params)
  M.session = params
  pcall(vim.cmd, 'redrawstatus')
end

function M.setup(opts)
  opts = opts or {}
  options.top = opts.top or options.top
  local cmd = { opts.cmd or 'code-intel', 'lsp' }
  vim.list_extend(cmd, opts.args or {})
  local markers = opts.root_markers or DEFAULT_MARKERS
  local config = {
    cmd = cmd,
    filetypes = opts.filetypes or DEFAULT_FILETYPES,
    root_markers = markers,
    handlers = { ['codeIntel/sessionChanged'] = on_session_changed },
  }
  if vim.lsp.config and vim.lsp.enable then
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd('FileType', {
      pattern = config.filetypes,
      callback = function(args)
        vim.lsp.start(vim.tbl_extend('force', config, {
          name = M.name,
          root_dir = vim.fs.root(args.buf, markers) or vim.fn.getcwd(),
        }))
      end,
    })
  end
  vim.api.nvim_create_user_command('CodeIntelSearch', function(c) M.search(c.args) end,
    { nargs = '+', desc = 'code-intel: hybrid search into the quickfix list' })
  vim.api.nvim_create_user_command('CodeIntelSession', M.show_session,
    { desc = 'code-intel: show the active agent session' })
  vim.api.nvim_create_user_command('CodeIntelReindex', M.reindex,
    { desc = 'code-intel: re-index the workspace' })
  return M
end

return M
