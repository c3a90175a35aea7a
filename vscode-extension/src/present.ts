// Pure presentation logic: answers → quick-pick items, locations and status texts.
// No `vscode` import, so it is unit-tested without VS Code.

import type { IndexStatus, QueryAnswer, SessionNotice, SessionStatus } from './protocol';

export interface PickItem {
  label: string;
  description: string;
  detail: string;
  path: string; // workspace-relative
  line: number; // 0-based, for vscode.Position
}

/** Ranked symbols first, then the files no symbol already points into. */
export function quickPickItems(answer: QueryAnswer): PickItem[] {
  const items: PickItem[] = [];
  const seen = new Set<string>();
  for (const s of answer.symbols ?? []) {
    items.push({
      label: `$(symbol-${iconFor(s.kind)}) ${s.symbol}`,
      description: `${s.path}:${s.start_line}`,
      detail: `${s.kind} ${s.qualified_name} · score ${s.score.toFixed(3)}`,
      path: s.path,
      line: Math.max(0, s.start_line - 1),
    });
    seen.add(s.path);
  }
  for (const f of answer.files ?? []) {
    if (seen.has(f.path)) continue;
    items.push({
      label: `$(file) ${f.path.split('/').pop() ?? f.path}`,
      description: f.path,
      detail: f.symbols.length ? `symbols: ${f.symbols.slice(0, 5).join(', ')}` : `score ${f.score.toFixed(3)}`,
      path: f.path,
      line: 0,
    });
  }
  return items;
}

function iconFor(kind: string): string {
  switch (kind) {
    case 'class':
    case 'interface':
    case 'enum':
      return kind;
    case 'method':
    case 'function':
      return kind;
    case 'field':
    case 'property':
      return 'field';
    default:
      return 'misc';
  }
}

/** What the search command tells the user instead of a list, if anything. */
export function searchMessage(answer: QueryAnswer): string | undefined {
  if (answer.status === 'initializing') {
    return `Code Intel: the search model is loading; try again in ${answer.retry_after_seconds ?? 5} s.`;
  }
  if (!(answer.symbols?.length || answer.files?.length)) {
    return 'Code Intel: nothing found.';
  }
  return undefined;
}

/** Status-bar text for the index. */
export function indexStatusText(status: IndexStatus | undefined): string {
  if (!status) return '$(sync~spin) Code Intel: starting';
  switch (status.state) {
    case 'starting':
      return '$(sync~spin) Code Intel: starting';
    case 'indexing':
      return `$(sync~spin) Code Intel: indexing ${status.progress.percent}%`;
    case 'ready':
      return `$(check) Code Intel: ${status.counts?.files ?? 0} files`;
    case 'error':
      return '$(error) Code Intel: index error';
  }
}

const PHASE_ICON: Record<string, string> = {
  EXPLORATION: '$(search)',
  SEMANTIC: '$(lightbulb)',
  VERIFICATION: '$(checklist)',
  READY: '$(pass)',
};

/** Status-bar text for the agent session; empty when none is active. */
export function sessionStatusText(notice: SessionNotice | undefined): string {
  if (!notice || notice.ended) return '';
  const blocked = notice.blocked_writes.length ? ` · ${notice.blocked_writes.length} blocked` : '';
  return `${PHASE_ICON[notice.phase] ?? '$(circle-outline)'} ${notice.phase} · ${notice.risk}${blocked}`;
}

function slotText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value && 'value' in value) return String((value as { value: unknown }).value ?? '—');
  return JSON.stringify(value);
}

/** The "Show session" document. */
export function sessionMarkdown(status: SessionStatus): string {
  if (!status.active) return `# Code Intel\n\n${status.message ?? 'No active agent session.'}\n`;
  const frame = status.query_frame ?? {};
  const lines = [
    `# Session ${status.session_id}`,
    '',
    `**Phase** ${status.phase} · **risk** ${status.risk} · **intent** ${status.intent ?? ''}`,
    '',
    `> ${status.query ?? ''}`,
    '',
    '## Slots',
    ...['target_feature', 'trigger_condition', 'observed_issue', 'desired_action'].map(
      (slot) => `- ${slot}: ${slotText(frame[slot])}`,
    ),
    '',
    '## Missing requirements',
    ...(status.missing_requirements?.length
      ? status.missing_requirements.map((m) => `- ${m.kind}${m.subject ? ` (${m.subject})` : ''}: ${m.have ?? ''}/${m.need ?? ''}`)
      : ['- none']),
    '',
    '## Explored files',
    ...(status.explored_files?.length ? status.explored_files.map((f) => `- ${f}`) : ['- none']),
    '',
    '## Blocked writes',
    ...(status.blocked_writes?.length ? status.blocked_writes.map((b) => `- ${b.path}: ${b.reason}`) : ['- none']),
    '',
    `**Next:** ${status.next_step ?? ''}`,
    '',
  ];
  return lines.join('\n');
}
