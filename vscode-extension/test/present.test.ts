import { describe, expect, it } from 'vitest';

import { indexStatusText, quickPickItems, searchMessage, sessionMarkdown, sessionStatusText } from '../src/present';
import type { QueryAnswer, SessionNotice } from '../src/protocol';

const answer: QueryAnswer = {
  status: 'ok',
  symbols: [
    { rank: 1, path: 'app/Http/Controllers/Auth/LoginController.php', symbol: 'login', kind: 'method',
      qualified_name: 'App\\Http\\Controllers\\Auth\\LoginController::login', start_line: 38, end_line: 60, score: 0.0321 },
  ],
  files: [
    { rank: 1, path: 'app/Http/Controllers/Auth/LoginController.php', score: 0.05, symbols: ['login'] },
    { rank: 2, path: 'routes/web.php', score: 0.01, symbols: [] },
  ],
};

describe('quickPickItems', () => {
  it('lists symbols first with 0-based lines, then files not already listed', () => {
    const items = quickPickItems(answer);
    expect(items.map((i) => [i.path, i.line])).toEqual([
      ['app/Http/Controllers/Auth/LoginController.php', 37],
      ['routes/web.php', 0],
    ]);
    expect(items[0].description).toBe('app/Http/Controllers/Auth/LoginController.php:38');
    expect(items[0].detail).toContain('LoginController::login');
    expect(items[1].label).toContain('web.php');
  });

  it('never produces a negative line', () => {
    const items = quickPickItems({ status: 'ok', symbols: [{ ...answer.symbols![0], start_line: 0 }] });
    expect(items[0].line).toBe(0);
  });
});

describe('searchMessage', () => {
  it('asks to retry while the model loads', () => {
    expect(searchMessage({ status: 'initializing', retry_after_seconds: 3 })).toMatch(/loading.*3 s/);
  });
  it('says when nothing was found, and nothing when there are results', () => {
    expect(searchMessage({ status: 'ok', symbols: [], files: [] })).toMatch(/nothing found/);
    expect(searchMessage(answer)).toBeUndefined();
  });
});

describe('indexStatusText', () => {
  it.each([
    [undefined, 'starting'],
    [{ state: 'starting', progress: { done: 0, total: 0, percent: 0 } }, 'starting'],
    [{ state: 'indexing', progress: { done: 5, total: 10, percent: 50 } }, 'indexing 50%'],
    [{ state: 'ready', progress: { done: 10, total: 10, percent: 100 }, counts: { files: 191 } }, '191 files'],
    [{ state: 'error', progress: { done: 0, total: 0, percent: 0 }, error: 'boom' }, 'index error'],
  ] as const)('%o → %s', (status, text) => {
    expect(indexStatusText(status as never)).toContain(text);
  });
});

describe('sessionStatusText', () => {
  const notice: SessionNotice = { session_id: 's1', phase: 'EXPLORATION', risk: 'HIGH', ended: false, blocked_writes: [] };
  it.each(['EXPLORATION', 'SEMANTIC', 'VERIFICATION', 'READY'])('shows phase %s and the risk', (phase) => {
    const text = sessionStatusText({ ...notice, phase });
    expect(text).toContain(phase);
    expect(text).toContain('HIGH');
  });
  it('counts blocked writes', () => {
    expect(sessionStatusText({ ...notice, blocked_writes: [{ path: 'a.php', reason: 'x' }] })).toContain('1 blocked');
  });
  it('is empty without a session or once it ended', () => {
    expect(sessionStatusText(undefined)).toBe('');
    expect(sessionStatusText({ ...notice, ended: true })).toBe('');
  });
});

describe('sessionMarkdown', () => {
  it('shows phase, slots, missing requirements, explored files and blocked writes', () => {
    const md = sessionMarkdown({
      active: true, session_id: 's1', phase: 'SEMANTIC', risk: 'HIGH', intent: 'MODIFY', query: 'ログイン機能直して',
      query_frame: { target_feature: { value: 'ログイン機能', quote: 'ログイン機能' }, observed_issue: null },
      missing_requirements: [{ kind: 'symbols_identified', have: 3, need: 5 }],
      explored_files: ['app/Services/AuthService.php'],
      blocked_writes: [{ path: 'app/Models/User.php', reason: 'not explored' }],
      next_step: 'submit_semantic',
    });
    expect(md).toContain('SEMANTIC');
    expect(md).toContain('target_feature: ログイン機能');
    expect(md).toContain('observed_issue: —');
    expect(md).toContain('symbols_identified: 3/5');
    expect(md).toContain('- app/Services/AuthService.php');
    expect(md).toContain('app/Models/User.php: not explored');
  });
  it('says when there is no session', () => {
    expect(sessionMarkdown({ active: false, message: 'no active agent session' })).toContain('no active agent session');
  });
});
