import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { reopenFsSnapshot, type SharedFsSnapshot } from './snapshot-files.ts';

/**
 * Reopens, in a worker thread, a voter snapshot from what its `shared()` gave in the thread that
 * loaded it. Throws for a kind of snapshot that cannot be shared.
 */
export function openSharedSnapshot(shared: object, matchIndex: MatchIndex | null): VoterSnapshot {
  const kind = (shared as { kind?: unknown }).kind;
  if (kind === 'fs') return reopenFsSnapshot(shared as SharedFsSnapshot, matchIndex);
  throw new Error(`a voter snapshot of kind ${String(kind)} cannot be opened in another thread`);
}
