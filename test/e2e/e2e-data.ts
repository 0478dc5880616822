import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

/** A voter file of `n` people with every id kind; deterministic. */
export function voterCsv(n: number): string {
  const lines = ['voterbase_id,state,voter_id,smartvan_id,exact_track,first_name,last_name,party'];
  for (let i = 1; i <= n; i++) {
    const state = i % 2 === 0 ? 'NC' : 'OH';
    lines.push(
      `${state}-${i},${state},${String(i).padStart(9, '0')},${i + 500},ET${i.toString(36).toUpperCase()},FIRST${i},LAST${i},${i % 3 === 0 ? 'DEM' : 'REP'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A contact list of `n` rows whose ids point at voters in a fixed pattern (every 10th is unknown). */
export function listCsv(n: number, voters: number): string {
  const lines = ['matchback_id,voterbase_id,voter_id,state,exact_track'];
  for (let i = 1; i <= n; i++) {
    const v = ((i * 7919) % voters) + 1;
    const state = v % 2 === 0 ? 'NC' : 'OH';
    if (i % 10 === 0) lines.push(`${i},ZZ-${i},,,`);
    else if (i % 3 === 0) lines.push(`${i},,${v},${state},`);
    else if (i % 3 === 1) lines.push(`${i},${state}-${v},,,`);
    else lines.push(`${i},,,,ET${v.toString(36).toUpperCase()}`);
  }
  return `${lines.join('\n')}\n`;
}

/** PUTs a file as a client does: streamed, with its length, no Content-Type. */
export async function putFile(url: string, path: string): Promise<number> {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'content-length': String((await stat(path)).size) },
    body: createReadStream(path) as unknown as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  await response.arrayBuffer();
  return response.status;
}
