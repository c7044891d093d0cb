-- Neovim's built-in LSP client against `loratune-fix server`: open a
-- script, read its diagnostics, apply the code action of one finding and
-- see the finding go. Run headless (lsp/nvim_test.go):
--   LTF_BIN=... LTF_FILE=train.py LTF_OUT=result.txt nvim --headless -u NONE -i NONE -n -c "luafile check.lua"
-- Written for Neovim 0.7 (Debian 12) and later.
local bin, file, out = os.getenv('LTF_BIN'), os.getenv('LTF_FILE'), os.getenv('LTF_OUT')

local function finish(ok, msg)
  local f = assert(io.open(out, 'w'))
  f:write((ok and 'ok: ' or 'fail: ') .. msg .. '\n')
  f:close()
  vim.cmd(ok and 'qa!' or 'cq!')
end

-- The LSP code of a vim.diagnostic entry (where 0.7 and later keep it).
local function code(d)
  if d.code then return d.code end
  local lsp = d.user_data and d.user_data.lsp
  return lsp and lsp.code
end

local function has(buf, c)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code(d) == c then return d end
  end
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'python'
  local id = vim.lsp.start_client({ name = 'loratune-fix', cmd = { bin, 'server' }, root_dir = vim.fn.fnamemodify(file, ':p:h') })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(buf, id)
  if not vim.wait(60000, function() return has(buf, 'LTF002') ~= nil end, 50) then
    error('no LTF002 diagnostic in 60 s')
  end
  local n = #vim.diagnostic.get(buf)
  local d = has(buf, 'LTF002')
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
    context = { diagnostics = {}, only = { 'quickfix' } },
  }
  local results = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 30000)
  local action
  for _, r in pairs(results or {}) do
    for _, a in ipairs(r.result or {}) do
      if not action and a.title:find('suppress', 1, true) == nil and a.diagnostics and a.diagnostics[1].code == 'LTF002' then
        action = a
      end
    end
  end
  assert(action, 'no code action for LTF002')
  vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  assert(text:find('attn_implementation="eager"', 1, true), 'the action did not add eager attention')
  if not vim.wait(60000, function() return has(buf, 'LTF002') == nil and #vim.diagnostic.get(buf) > 0 end, 50) then
    error('LTF002 still there after its code action')
  end
  finish(true, string.format('%d diagnostics; "%s" applied; %d left', n, action.title, #vim.diagnostic.get(buf)))
end)
if not ok then finish(false, tostring(err)) end
