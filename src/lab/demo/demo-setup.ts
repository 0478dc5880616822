import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { formatCsvRow } from '../../domain/csv/csv-writer.ts';
import type { Services } from '../../start/compose.ts';
import {
  contactListCsv,
  generateVoterRows,
  sampleContactList,
  VOTER_COLUMNS,
} from '../synthetic/synthetic-voters.ts';

const DEMO_KEY_NAME = 'demo';
const DEMO_SEED = 20261121;
const DEMO_VOTERS = 100_000;

/**
 * Prepares the demo on embedded storage: a synthetic voter file (imported once), a fresh demo key
 * (earlier demo keys are revoked: a key is shown only once), and a sample contact list.
 */
export async function prepareDemo(
  services: Services,
): Promise<{ key: string; samplePath: string; voters: number }> {
  const dataDir = resolve(services.config.DATA_DIR);
  const demoDir = join(dataDir, 'demo');
  await mkdir(demoDir, { recursive: true });
  let stats = await services.voters.stats();
  if (stats === null) {
    const votersPath = join(demoDir, 'synthetic-voters.csv');
    await writeRows(
      votersPath,
      [...VOTER_COLUMNS],
      generateVoterRows({ rows: DEMO_VOTERS, seed: DEMO_SEED }),
    );
    await services.voters.importFile(votersPath, { replace: true });
    stats = await services.voters.stats();
  }
  for (const key of await services.keys.list()) {
    if (key.name === DEMO_KEY_NAME && key.revokedAt === null) await services.keys.revoke(key.id);
  }
  const { key, record } = await services.keys.createKey({
    name: DEMO_KEY_NAME,
    entitlements: { listMatching: true, onboarding: true, directUpload: true },
  });
  await services.keys.setProfile(record.id, 'default', {
    appendedFields: [
      'party',
      'registration_status',
      'vote_2024_general',
      'first_name',
      'last_name',
      'city',
    ].map((f) => ({
      source: f,
      as: f,
    })),
    contactFields: ['email', 'landline', 'wireless', 'voip'],
  });
  const samplePath = join(demoDir, 'sample-list.csv');
  const list = sampleContactList({
    voters: generateVoterRows({ rows: DEMO_VOTERS, seed: DEMO_SEED }),
    rows: 1000,
    seed: 7,
    matchRate: 0.8,
  });
  await writeFile(samplePath, contactListCsv(list));
  return { key, samplePath, voters: stats?.rows ?? 0 };
}

async function writeRows(path: string, header: string[], rows: Iterable<string[]>): Promise<void> {
  const out = createWriteStream(path);
  let chunk = formatCsvRow(header);
  for (const row of rows) {
    chunk += formatCsvRow(row);
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  await new Promise<void>((done, fail) => {
    out.once('error', fail);
    out.end(chunk, () => done());
  });
}

/** The copy-paste walk-through printed by `npm run demo`. */
export function demoInstructions(base: string, key: string, samplePath: string): string {
  const extract = `sed -E 's/.*"url":"([^"]*)".*/\\1/'`;
  return [
    '',
    '=== listmatch demo ===',
    `service:  ${base}   (API reference: ${base}/openapi.json)`,
    `API key:  ${key}`,
    '          (shown once; running the demo again revokes it and prints a new one)',
    '',
    'Try it (copy and paste into another shell):',
    '',
    `  export LISTMATCH_KEY='${key}'`,
    `  URL=$(curl -s -H "x-api-key: $LISTMATCH_KEY" "${base}/service/smartmatch?filename=demo_list&max_matches=2" | ${extract})`,
    `  curl -s -o /dev/null -w '%{http_code}\\n' -T ${samplePath} "$URL"`,
    `  sleep 2; RESULT=$(curl -s -H "x-api-key: $LISTMATCH_KEY" "${base}/service/smartmatch/poll?filename=demo_list" | ${extract})`,
    '  curl -s "$RESULT" | head -5',
    '',
    'Stop with Ctrl-C. Data lives in DATA_DIR.',
    '',
  ].join('\n');
}
