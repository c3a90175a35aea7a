// Shapes of the code-intel answers the extension reads (docs/protocol.md).

export interface SymbolHit {
  rank: number;
  path: string;
  symbol: string;
  qualified_name: string;
  kind: string;
  start_line: number; // 1-based
  end_line: number;
  score: number;
}

export interface FileHit {
  rank: number;
  path: string;
  score: number;
  symbols: string[];
}

export interface QueryAnswer {
  status: 'ok' | 'partial' | 'initializing';
  files?: FileHit[];
  symbols?: SymbolHit[];
  notes?: string[];
  retry_after_seconds?: number;
}

export interface IndexStatus {
  state: 'starting' | 'indexing' | 'ready' | 'error';
  progress: { done: number; total: number; percent: number };
  counts?: { files?: number; symbols?: number };
  error?: string | null;
}

export interface BlockedWrite {
  path: string;
  reason: string;
  session_id?: string;
  timestamp?: number;
}

export interface SessionNotice {
  session_id: string;
  phase: string;
  risk: string;
  intent?: string;
  query?: string;
  ended: boolean;
  blocked_writes: BlockedWrite[];
}

export interface SlotValue {
  value?: string;
  quote?: string;
}

export interface SessionStatus {
  active: boolean;
  message?: string;
  session_id?: string;
  intent?: string;
  query?: string;
  phase?: string;
  risk?: string;
  query_frame?: Record<string, SlotValue | string | null | unknown>;
  requirements?: Record<string, unknown>;
  missing_requirements?: { kind: string; have?: number | null; need?: number | null; subject?: string }[];
  explored_files?: string[];
  blocked_writes?: BlockedWrite[];
  next_step?: string;
}
