// VS Code glue: start `code-intel lsp`, show the index and the agent session in the
// status bar, and the four commands. Logic worth testing lives in present.ts and
// settings.ts; this file only wires it to the VS Code API.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

import { indexStatusText, quickPickItems, searchMessage, sessionMarkdown, sessionStatusText } from './present';
import type { IndexStatus, QueryAnswer, SessionNotice, SessionStatus } from './protocol';
import { findExecutable, initializationOptions, serverCommand, type Settings } from './settings';

const README = 'https://github.com/code-intel/code-intel#use-it-in-your-editor';
const LANGUAGES = [
  'python', 'php', 'blade', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact',
  'go', 'java', 'html', 'css', 'scss', 'vue',
];

let client: LanguageClient | undefined;
let indexItem: vscode.StatusBarItem;
let sessionItem: vscode.StatusBarItem;
let lastSession: SessionNotice | undefined;
let poll: NodeJS.Timeout | undefined;

function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('codeIntel');
  return {
    serverPath: c.get<string>('serverPath', 'code-intel'),
    serverArgs: c.get<string[]>('serverArgs', []),
    embeddingModel: c.get<string>('embeddingModel', ''),
    excludePatterns: c.get<string[]>('excludePatterns', []),
  };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const settings = readSettings();
  const { command, args } = serverCommand(settings);
  const executable = findExecutable(command, process.env.PATH ?? '', (p) => fs.existsSync(p));
  if (!executable) {
    const choice = await vscode.window.showErrorMessage(
      `Code Intel: cannot find the server executable "${command}". Install code-intel ` +
        '(pip install -e . in its repository) and set "codeIntel.serverPath" to its code-intel script.',
      'Open README',
      'Open Settings',
    );
    if (choice === 'Open README') void vscode.env.openExternal(vscode.Uri.parse(README));
    if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'codeIntel');
    indexItem.text = '$(error) Code Intel: server not found';
    return;
  }
  const serverOptions: ServerOptions = { command: executable, args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
    initializationOptions: initializationOptions(settings),
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*') },
  };
  client = new LanguageClient('codeIntel', 'Code Intel', serverOptions, clientOptions);
  client.onNotification('codeIntel/sessionChanged', (notice: SessionNotice) => {
    lastSession = notice;
    showSessionItem();
  });
  await client.start();
  context.subscriptions.push({ dispose: () => void client?.stop() });
  pollIndex();
}

function showSessionItem(): void {
  const text = sessionStatusText(lastSession);
  sessionItem.text = text;
  sessionItem.tooltip = lastSession?.query;
  if (text) sessionItem.show();
  else sessionItem.hide();
}

/** Poll the index state while it is starting or indexing, then every 30 s. */
function pollIndex(): void {
  if (poll) clearTimeout(poll);
  const tick = async () => {
    if (!client) return;
    let status: IndexStatus | undefined;
    try {
      status = await client.sendRequest<IndexStatus>('codeIntel/indexStatus', {});
    } catch {
      status = undefined;
    }
    indexItem.text = indexStatusText(status);
    indexItem.show();
    const busy = !status || status.state === 'starting' || status.state === 'indexing';
    poll = setTimeout(() => void tick(), busy ? 500 : 30_000);
  };
  void tick();
}

async function semanticSearch(): Promise<void> {
  if (!client) return;
  const text = await vscode.window.showInputBox({
    prompt: 'Code Intel: what are you looking for? (English or Japanese)',
    placeHolder: 'e.g. ログイン処理, where orders are paid',
  });
  if (!text?.trim()) return;
  const answer = await client.sendRequest<QueryAnswer>('codeIntel/query', { text, top: 30 });
  const message = searchMessage(answer);
  if (message) {
    void vscode.window.showInformationMessage(message);
    return;
  }
  const picked = await vscode.window.showQuickPick(quickPickItems(answer), {
    matchOnDescription: true,
    matchOnDetail: true,
    placeHolder: text,
  });
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!picked || !folder) return;
  const uri = vscode.Uri.joinPath(folder.uri, picked.path);
  const position = new vscode.Position(picked.line, 0);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position) });
}

async function showSession(): Promise<void> {
  if (!client) return;
  const status = await client.sendRequest<SessionStatus>('workspace/executeCommand', {
    command: 'codeIntel.showSession',
    arguments: lastSession && !lastSession.ended ? [lastSession.session_id] : [],
  });
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: sessionMarkdown(status) });
  await vscode.window.showTextDocument(doc, { preview: true });
}

async function reindex(): Promise<void> {
  if (!client) return;
  indexItem.text = '$(sync~spin) Code Intel: re-indexing';
  await client.sendRequest('codeIntel/syncIndex', { force: true });
  pollIndex();
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  if (poll) clearTimeout(poll);
  if (client) await client.stop();
  client = undefined;
  await start(context);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  indexItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  indexItem.command = 'codeIntel.reindex';
  sessionItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 9);
  sessionItem.command = 'codeIntel.showSession';
  context.subscriptions.push(
    indexItem,
    sessionItem,
    vscode.commands.registerCommand('codeIntel.semanticSearch', semanticSearch),
    vscode.commands.registerCommand('codeIntel.showSession', showSession),
    vscode.commands.registerCommand('codeIntel.reindex', reindex),
    vscode.commands.registerCommand('codeIntel.restartServer', () => restart(context)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('codeIntel')) void restart(context);
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  if (poll) clearTimeout(poll);
  await client?.stop();
}
