import { describe, expect, it } from 'vitest';

import { findExecutable, initializationOptions, serverCommand, type Settings } from '../src/settings';

const base: Settings = { serverPath: 'code-intel', serverArgs: [], embeddingModel: '', excludePatterns: [] };

describe('serverCommand', () => {
  it('runs `<serverPath> lsp` plus the extra arguments', () => {
    expect(serverCommand({ ...base, serverPath: '/venv/bin/code-intel', serverArgs: ['--tcp', '127.0.0.1:9000'] })).toEqual({
      command: '/venv/bin/code-intel',
      args: ['lsp', '--tcp', '127.0.0.1:9000'],
    });
    expect(serverCommand({ ...base, serverPath: '' }).command).toBe('code-intel');
  });
});

describe('initializationOptions', () => {
  it('sends only the settings the user set', () => {
    expect(initializationOptions(base)).toEqual({});
    expect(initializationOptions({ ...base, embeddingModel: ' e5-small-q4 ', excludePatterns: ['dist/**'] })).toEqual({
      config: { embedding_model: 'e5-small-q4', exclude_patterns: ['dist/**'] },
    });
  });
});

describe('findExecutable', () => {
  const files = new Set(['/usr/local/bin/code-intel', '/venv/bin/code-intel']);
  const exists = (p: string) => files.has(p);
  it('searches PATH for a bare name', () => {
    expect(findExecutable('code-intel', '/usr/bin:/usr/local/bin', exists, 'linux')).toBe('/usr/local/bin/code-intel');
  });
  it('checks an explicit path as given', () => {
    expect(findExecutable('/venv/bin/code-intel', '', exists, 'linux')).toBe('/venv/bin/code-intel');
    expect(findExecutable('/nope/code-intel', '/usr/local/bin', exists, 'linux')).toBeUndefined();
  });
  it('is undefined when nothing on PATH matches', () => {
    expect(findExecutable('code-intel', '/usr/bin', exists, 'linux')).toBeUndefined();
  });
});
