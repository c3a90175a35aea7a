// Settings → how the server is started. Pure, so it is unit-tested without VS Code.

import * as path from 'node:path';

export interface Settings {
  serverPath: string;
  serverArgs: string[];
  embeddingModel: string;
  excludePatterns: string[];
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export function serverCommand(settings: Settings): ServerCommand {
  return { command: settings.serverPath || 'code-intel', args: ['lsp', ...settings.serverArgs] };
}

/** Overrides of `.code-intel/config.json` sent as initializationOptions.config. */
export function initializationOptions(settings: Settings): { config?: Record<string, unknown> } {
  const config: Record<string, unknown> = {};
  if (settings.embeddingModel.trim()) config.embedding_model = settings.embeddingModel.trim();
  if (settings.excludePatterns.length) config.exclude_patterns = settings.excludePatterns;
  return Object.keys(config).length ? { config } : {};
}

/** The executable the command names, or undefined when it cannot be found. */
export function findExecutable(
  command: string,
  pathEnv: string,
  exists: (candidate: string) => boolean,
  platform: string = process.platform,
): string | undefined {
  const suffixes = platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  if (command.includes('/') || command.includes('\\')) {
    return suffixes.map((s) => command + s).find(exists);
  }
  for (const dir of pathEnv.split(platform === 'win32' ? ';' : ':').filter(Boolean)) {
    const found = suffixes.map((s) => path.join(dir, command + s)).find(exists);
    if (found) return found;
  }
  return undefined;
}
