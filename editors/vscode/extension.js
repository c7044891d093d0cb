// Starts `loratune-fix server` for Python files, launch configs (YAML,
// JSON, shell) and Jupyter notebooks. The server does the rest: it
// announces notebook document sync, so notebook cells go to it as one
// notebook.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

async function activate(context) {
  const cfg = vscode.workspace.getConfiguration('loratune-fix');
  const server = { command: cfg.get('path'), args: ['server', ...cfg.get('args')] };
  const documentSelector = ['python', 'yaml', 'json', 'shellscript'].flatMap((language) => [
    { scheme: 'file', language },
    { scheme: 'untitled', language },
  ]);
  client = new LanguageClient('loratune-fix', 'loratune-fix', { run: server, debug: server }, { documentSelector });
  context.subscriptions.push(client);
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
