import { PLATFORM_RENDERINGS } from '../../src/domain/onboarding/identifiers/platform-rendering.ts';
import {
  createVoterRowRenderer,
  PATTERN1_SCHEMA,
  PATTERN1_VOTER_COLUMNS,
} from '../../src/domain/onboarding/identifiers/voter-identifiers.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../src/lab/synthetic/synthetic-voters.ts';
import { log } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import { type BenchOptions, median } from './options.ts';

const ROWS = 1_000_000;
/** Rows generated, then rendered, at a time: the social platform's batch size. */
const BATCH = 10_000;
const HASH = /^[0-9a-f]{64}$/;

/**
 * Pattern #1 normalization and hashing, in process: 1M synthetic voter records → Meta's hashed
 * cells (PATTERN1_SCHEMA), one renderer per run as one job has. Only the rendering is timed: the
 * records are generated (and their columns picked, the voter snapshot's work) between timed
 * batches. Target ≥ 200,000 rows/s (the issue's benchmark); the median of `--runs` runs.
 */
export async function onboardingNormalizeBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  const positions = PATTERN1_VOTER_COLUMNS.map((column) => VOTER_COLUMNS.indexOf(column));
  if (positions.some((p) => p < 0))
    throw new Error('a Pattern #1 column is missing from the synthetic voters');
  const rates: number[] = [];
  const filled = new Array<number>(PATTERN1_SCHEMA.length).fill(0);
  let malformed = 0;
  for (let run = 1; run <= options.runs; run++) {
    const render = createVoterRowRenderer(PLATFORM_RENDERINGS.meta);
    const batch: string[][] = [];
    let ms = 0;
    let rendered = 0;
    const flush = () => {
      const started = performance.now();
      const out = new Array<string[]>(batch.length);
      for (let i = 0; i < batch.length; i++) out[i] = render(batch[i]!);
      ms += performance.now() - started;
      if (run === 1) {
        for (const row of out) {
          for (let k = 0; k < row.length; k++) {
            const cell = row[k]!;
            if (cell === '') continue;
            filled[k]!++;
            if (!HASH.test(cell)) malformed++;
          }
        }
      }
      rendered += batch.length;
      batch.length = 0;
    };
    for (const voter of generateVoterRows({ rows: ROWS, seed: 1 })) {
      batch.push(positions.map((p) => voter[p] ?? ''));
      if (batch.length === BATCH) flush();
    }
    if (batch.length > 0) flush();
    const rate = rendered / (ms / 1000);
    rates.push(rate);
    log(`onboarding-normalize run ${run}: ${formatNumber(rate)} rows/s`);
  }
  recorder.metric(
    `Pattern #1 normalize + SHA-256, 1M voter records → ${PATTERN1_SCHEMA.length} Meta cells (in process; median of ${rates.length})`,
    median(rates),
    'rows/s',
    {
      target: { min: 200_000 },
      note: `runs ${rates.map((r) => formatNumber(r)).join(', ')} rows/s; fill ${PATTERN1_SCHEMA.map(
        (key, k) => `${key} ${Math.round(((filled[k] ?? 0) / ROWS) * 100)}%`,
      ).join(', ')}`,
    },
  );
  recorder.check('every non-blank cell is 64 lower-case hex', String(malformed), '0');
  recorder.raw['onboarding-normalize'] = { rates, filled, rows: ROWS };
}
