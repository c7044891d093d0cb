// Drives `loratune-fix server` as an editor does, with the protocol
// packages VS Code's own client is built on: a Python script, a Jupyter
// notebook (LSP 3.17 notebook documents) and a LLaMA-Factory YAML config.
// Diagnostics must arrive, and a code action applied must remove its
// finding. Usage: node client.cjs BINARY WORKDIR (WORKDIR holds
// train.py, llama_finetune.ipynb, lora_sft.yaml, and a pyproject.toml that
// ignores LTF006 and a requirements.txt). Exit 0 when all hold.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const P = require('vscode-languageserver-protocol');
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');
const { TextDocument } = require('vscode-languageserver-textdocument');

const [bin, dir] = process.argv.slice(2);
const server = spawn(bin, ['server'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));

const published = new Map(); // uri -> the latest publishDiagnostics params
const waiting = [];
conn.onNotification(P.PublishDiagnosticsNotification.type, (p) => {
  published.set(p.uri, p);
  for (const w of waiting.splice(0)) w();
});
conn.listen();

function fail(msg) {
  throw new Error(msg);
}

// diagnostics resolves with the diagnostics of uri once their version is
// at least version.
async function diagnostics(uri, version) {
  const deadline = Date.now() + 60000;
  for (;;) {
    const p = published.get(uri);
    if (p && p.version !== undefined && p.version >= version) return p.diagnostics;
    if (Date.now() > deadline) fail(`no diagnostics of version ${version} for ${uri}`);
    await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 1000); });
  }
}

function codes(ds) {
  return ds.map((d) => d.code).sort().join(',');
}

function only(ds, code) {
  const d = ds.find((x) => x.code === code);
  if (!d) fail(`no ${code} among ${codes(ds)}`);
  return d;
}

// applyEdit applies a workspace edit's edits of one document to its text.
function applyEdit(text, uri, edit) {
  let edits = [];
  for (const dc of edit.documentChanges || []) if (dc.textDocument.uri === uri) edits = edits.concat(dc.edits);
  if (edit.changes && edit.changes[uri]) edits = edits.concat(edit.changes[uri]);
  if (edits.length === 0) fail(`the edit has nothing for ${uri}`);
  return TextDocument.applyEdits(TextDocument.create(uri, 'python', 0, text), edits);
}

async function fixOf(uri, d) {
  const actions = await conn.sendRequest(P.CodeActionRequest.type, {
    textDocument: { uri }, range: d.range, context: { diagnostics: [d], only: [P.CodeActionKind.QuickFix] },
  });
  const fix = actions.find((a) => a.diagnostics && a.diagnostics[0].code === d.code && !a.title.includes('suppress'));
  if (!fix) fail(`no fix for ${d.code}: ${JSON.stringify(actions.map((a) => a.title))}`);
  return fix;
}

async function python() {
  const file = path.join(dir, 'train.py');
  const uri = pathToFileURL(file).href;
  const text = fs.readFileSync(file, 'utf8');
  conn.sendNotification(P.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version: 1, text } });
  const ds = await diagnostics(uri, 1);
  // The configuration beside the script: pyproject.toml ignores LTF006,
  // requirements.txt pins transformers.
  if (ds.some((x) => x.code === 'LTF006')) fail(`LTF006 despite pyproject.toml's ignore: ${codes(ds)}`);
  if (!only(ds, 'LTF005').message.includes('requirements.txt')) fail(`LTF005 does not name the pin: ${only(ds, 'LTF005').message}`);
  const d = only(ds, 'LTF002');
  if (!d.codeDescription || !d.codeDescription.href.endsWith('docs/rules.md#ltf002')) fail(`LTF002's link: ${JSON.stringify(d)}`);
  if (d.severity !== P.DiagnosticSeverity.Error || !d.data || d.data.fix !== 'safe') fail(`LTF002: ${JSON.stringify(d)}`);
  const hover = await conn.sendRequest(P.HoverRequest.type, { textDocument: { uri }, position: d.range.start });
  if (!hover || !hover.contents.value.includes('**Why.**')) fail(`hover: ${JSON.stringify(hover)}`);
  const fix = await fixOf(uri, d);
  const fixed = applyEdit(text, uri, fix.edit);
  if (!fixed.includes('attn_implementation="eager"')) fail('the fix did not add eager attention');
  conn.sendNotification(P.DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
  const after = await diagnostics(uri, 2);
  if (after.some((x) => x.code === 'LTF002')) fail(`LTF002 after its fix: ${codes(after)}`);
  console.log(`python: ${codes(ds)}; after the fix of LTF002: ${codes(after)}`);
  conn.sendNotification(P.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  try {
    await conn.sendRequest(P.HoverRequest.type, { textDocument: { uri }, position: d.range.start });
    fail('hover of a closed document answered');
  } catch (e) {
    if (e.code !== -32803) throw e;
  }
  console.log('python: a request for the closed document is an error (-32803)');
}

async function notebook() {
  const file = path.join(dir, 'llama_finetune.ipynb');
  const uri = pathToFileURL(file).href;
  const nb = JSON.parse(fs.readFileSync(file, 'utf8'));
  const cells = [];
  const docs = [];
  nb.cells.forEach((c, i) => {
    const cellURI = `vscode-notebook-cell:${pathToFileURL(file).pathname}#W${i}`;
    const code = c.cell_type === 'code';
    const text = Array.isArray(c.source) ? c.source.join('') : c.source;
    cells.push({ kind: code ? P.NotebookCellKind.Code : P.NotebookCellKind.Markup, document: cellURI });
    docs.push({ uri: cellURI, languageId: code ? 'python' : 'markdown', version: 1, text });
  });
  conn.sendNotification(P.DidOpenNotebookDocumentNotification.type, {
    notebookDocument: { uri, notebookType: 'jupyter-notebook', version: 1, cells }, cellTextDocuments: docs,
  });
  const cell5 = docs[4];
  const ds = await diagnostics(cell5.uri, 1);
  const fix = await fixOf(cell5.uri, only(ds, 'LTF002'));
  const fixed = applyEdit(cell5.text, cell5.uri, fix.edit);
  conn.sendNotification(P.DidChangeNotebookDocumentNotification.type, {
    notebookDocument: { uri, version: 2 },
    change: { cells: { textContent: [{ document: { uri: cell5.uri, version: 2 }, changes: [{ text: fixed }] }] } },
  });
  const after = await diagnostics(cell5.uri, 2);
  if (after.some((x) => x.code === 'LTF002')) fail(`LTF002 after its fix: ${codes(after)}`);
  console.log(`notebook: cell 5 ${codes(ds)}; after the fix of LTF002: ${codes(after)}; cell 4 ${codes(await diagnostics(docs[3].uri, 1))}`);
}

async function yaml() {
  const file = path.join(dir, 'lora_sft.yaml');
  const uri = pathToFileURL(file).href;
  const text = fs.readFileSync(file, 'utf8');
  conn.sendNotification(P.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  const ds = await diagnostics(uri, 1);
  if (codes(ds) !== 'LTF001,LTF002,LTF009') fail(`yaml: ${codes(ds)}`);
  const actions = await conn.sendRequest(P.CodeActionRequest.type, {
    textDocument: { uri }, range: ds[0].range, context: { diagnostics: [], only: [P.CodeActionKind.SourceFixAll] },
  });
  if (actions.length !== 1 || actions[0].kind !== 'source.fixAll.loratune-fix') fail(`fix all: ${JSON.stringify(actions)}`);
  const fixed = applyEdit(text, uri, actions[0].edit);
  conn.sendNotification(P.DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
  const after = await diagnostics(uri, 2);
  if (after.length !== 0) fail(`yaml after fix all: ${codes(after)}`);
  console.log(`yaml: ${codes(ds)}; after fix all: none`);
}

async function main() {
  const init = await conn.sendRequest(P.InitializeRequest.type, {
    processId: process.pid, rootUri: pathToFileURL(dir).href,
    capabilities: { workspace: { workspaceEdit: { documentChanges: true } }, notebookDocument: { synchronization: {} } },
  });
  if (!init.capabilities.notebookDocumentSync) fail('no notebookDocumentSync');
  conn.sendNotification(P.InitializedNotification.type, {});
  await python();
  await notebook();
  await yaml();
  await conn.sendRequest(P.ShutdownRequest.type);
  conn.sendNotification(P.ExitNotification.type);
  const code = await new Promise((resolve) => server.on('exit', resolve));
  if (code !== 0) fail(`the server exited ${code}`);
  console.log('node client: 3 passed, 0 failed');
}

main().then(() => process.exit(0), (e) => {
  console.error(`node client: ${e.stack || e}`);
  server.kill();
  process.exit(1);
});
