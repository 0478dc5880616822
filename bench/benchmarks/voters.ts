import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readCsvTable } from '../../src/domain/csv/csv-reader.ts';
import { formatCsvRow } from '../../src/domain/csv/csv-writer.ts';
import type { ListSummary } from '../../src/domain/list-matching/match-list.ts';
import type { VoterImportReport } from '../../src/domain/voters/voter-snapshot.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../src/lab/synthetic/synthetic-voters.ts';
import { log, runCli, tempDir } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import { type BenchOptions, median } from './options.ts';

const ROWS = 1_000_000;
const SEED = 1;
/** Column positions in VOTER_COLUMNS order. */
const V = {
  voterbaseId: VOTER_COLUMNS.indexOf('voterbase_id'),
  state: VOTER_COLUMNS.indexOf('state'),
  voterId: VOTER_COLUMNS.indexOf('voter_id'),
  smartvanId: VOTER_COLUMNS.indexOf('smartvan_id'),
  exactTrack: VOTER_COLUMNS.indexOf('exact_track'),
  firstName: VOTER_COLUMNS.indexOf('first_name'),
  lastName: VOTER_COLUMNS.indexOf('last_name'),
};
const CLI_TIMEOUT_MS = 9 * 60_000;

/** Buffers CSV lines and writes them to a file descriptor in ~1 MiB pieces. */
function lineWriter(path: string) {
  const fd = openSync(path, 'w');
  let pending: string[] = [];
  let pendingLength = 0;
  let bytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const chunk = Buffer.from(pending.join(''), 'utf8');
    writeSync(fd, chunk);
    bytes += chunk.length;
    pending = [];
    pendingLength = 0;
  };
  return {
    write(line: string) {
      pending.push(line);
      pendingLength += line.length;
      if (pendingLength >= 1 << 20) flush();
    },
    close(): number {
      flush();
      closeSync(fd);
      return bytes;
    },
  };
}

/**
 * The 1M-row synthetic voter file and the DATA_DIRs it is imported into, shared by `import` and
 * `pipeline` (the pipeline needs it imported). Generation happens once; every import goes into a
 * fresh DATA_DIR (so each is the same first import), and only the newest one is kept.
 */
export class VoterFixture {
  readonly root: string;
  readonly voterCsv: string;
  generation: { rows: number; bytes: number; ms: number } | null = null;
  readonly imports: ImportRun[] = [];
  private readonly removeDir: () => Promise<void>;

  private constructor(root: string, remove: () => Promise<void>) {
    this.root = root;
    this.voterCsv = join(root, 'voters.csv');
    this.removeDir = remove;
  }

  static async create(): Promise<VoterFixture> {
    const dir = await tempDir('voters');
    return new VoterFixture(dir.path, dir.remove);
  }

  /** Writes the voter CSV with generateVoterRows + formatCsvRow, timed. */
  generate(): { rows: number; bytes: number; ms: number } {
    if (this.generation !== null) return this.generation;
    log(`voters: generating ${formatNumber(ROWS)} synthetic voter rows`);
    const started = performance.now();
    const out = lineWriter(this.voterCsv);
    out.write(formatCsvRow(VOTER_COLUMNS));
    let rows = 0;
    for (const row of generateVoterRows({ rows: ROWS, seed: SEED })) {
      out.write(formatCsvRow(row));
      rows++;
    }
    const bytes = out.close();
    this.generation = { rows, bytes, ms: performance.now() - started };
    return this.generation;
  }

  /** `listmatch voters import FILE --json` into a fresh DATA_DIR, timed from spawn to exit. */
  async importOnce(nodeArgs: string[]): Promise<ImportRun> {
    this.generate();
    const previous = this.imports.at(-1);
    const dataDir = join(this.root, `data-${this.imports.length + 1}`);
    log(`voters: listmatch voters import (${dataDir})`);
    const run = await runCli(['voters', 'import', this.voterCsv, '--json'], {
      dataDir,
      timeoutMs: CLI_TIMEOUT_MS,
      nodeArgs,
    });
    const result = { dataDir, ms: run.ms, report: JSON.parse(run.stdout) as VoterImportReport };
    this.imports.push(result);
    if (previous !== undefined) await rm(previous.dataDir, { recursive: true, force: true });
    return result;
  }

  /** The DATA_DIR of the newest import, importing first if nothing was. */
  async importedDataDir(): Promise<string> {
    return (this.imports.at(-1) ?? (await this.importOnce([]))).dataDir;
  }

  async remove(): Promise<void> {
    await this.removeDir();
  }
}

interface ImportRun {
  dataDir: string;
  /** Wall time of the CLI, spawn to exit. */
  ms: number;
  report: VoterImportReport;
}

export async function importBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const generation = fixture.generate();
  recorder.metric('generate voter CSV (generateVoterRows + formatCsvRow)', rate(generation), 'rows/s', {
    note: `${formatNumber(generation.rows)} rows, ${formatNumber(generation.bytes / 1e6, 1)} MB in ${seconds(generation.ms)} s`,
  });
  const runs: ImportRun[] = [];
  for (let run = 1; run <= options.runs; run++) {
    runs.push(await fixture.importOnce(options.profileArgs('import', 'cli')));
  }
  const wallRates = runs.map((r) => rate({ rows: r.report.rowsRead, ms: r.ms }));
  const innerRates = runs.map((r) => rate({ rows: r.report.rowsRead, ms: r.report.durationMs }));
  const mid = median(wallRates);
  const midRun = runs[wallRates.indexOf(mid)]!;
  recorder.metric(`voters import (CLI, spawn to exit; median of ${runs.length})`, mid, 'rows/s', {
    target: { min: 200_000 },
    note:
      `${seconds(midRun.ms)} s wall; runs ${wallRates.map((r) => formatNumber(r)).join(', ')} rows/s; ` +
      `importFile alone (report durationMs) median ${formatNumber(median(innerRates))} rows/s`,
  });
  recorder.check(
    'rows imported (every run)',
    runs.map((r) => formatNumber(r.report.imported)).join(', '),
    runs.map(() => formatNumber(ROWS)).join(', '),
  );
  recorder.check(
    'rows rejected (every run)',
    runs.map((r) => `${r.report.rejected} ${JSON.stringify(r.report.rejectedByReason)}`).join(', '),
    runs.map(() => '0 {}').join(', '),
    runs.every((r) => r.report.rejected === 0),
  );
  recorder.raw['generation'] = generation;
  recorder.raw['imports'] = runs.map((r) => ({ wallMs: r.ms, report: r.report }));
}

// ---------------------------------------------------------------------------------------------
// Pipeline

const CONTACT_HEADER = [
  'matchback_id',
  'first_name',
  'last_name',
  'state',
  'voterbase_id',
  'voter_id',
  'smartvan_id',
  'exact_track',
] as const;
const METHODS = ['voterbase_id', 'voter_id', 'smartvan_id', 'exact_track'] as const;
type Method = (typeof METHODS)[number];

interface ContactList {
  path: string;
  rows: number;
  bytes: number;
  ms: number;
  /** Per data row (0-based): the voterbase_id it must match, '' when its id does not exist. */
  expectedVoterbase: string[];
  /** Per data row: index into METHODS of the id it carries. */
  method: Uint8Array;
  expectedByMethod: Record<Method, number>;
  expectedMatches: number;
}

/**
 * One contact row per voter row (same seed, so the same rows as the imported file). Row i carries
 * one id: i % 3 = 0 voterbase_id; 1 voter_id + state (leading zeros stripped on every other one);
 * 2 smartvan_id + state or exact_track, alternating. Every tenth row (i % 10 = 9) gets an id of
 * the right kind that cannot exist (outside the generator's id space), so exactly 90% match.
 */
function writeContactList(path: string): ContactList {
  log(`pipeline: building a ${formatNumber(ROWS)}-row contact list`);
  const started = performance.now();
  const out = lineWriter(path);
  out.write(formatCsvRow(CONTACT_HEADER));
  const expectedVoterbase = new Array<string>(ROWS);
  const method = new Uint8Array(ROWS);
  const expectedByMethod: Record<Method, number> = {
    voterbase_id: 0,
    voter_id: 0,
    smartvan_id: 0,
    exact_track: 0,
  };
  let i = 0;
  for (const v of generateVoterRows({ rows: ROWS, seed: SEED })) {
    const miss = i % 10 === 9;
    const third = i % 3;
    const alternate = Math.floor(i / 3) % 2 === 0;
    const m: Method =
      third === 0 ? 'voterbase_id' : third === 1 ? 'voter_id' : alternate ? 'smartvan_id' : 'exact_track';
    const state = v[V.state]!;
    const row = [
      `MB${String(i + 1).padStart(7, '0')}`,
      v[V.firstName]!,
      v[V.lastName]!,
      state,
      '',
      '',
      '',
      '',
    ];
    const n = String(i).padStart(9, '0');
    switch (m) {
      case 'voterbase_id':
        row[4] = miss ? `NF-${n}` : v[V.voterbaseId]!;
        break;
      case 'voter_id': {
        // Real voter ids are 10 zero-padded digits below 10^9; 12 digits cannot exist.
        const id = v[V.voterId]!;
        row[5] = miss ? `999${n}` : alternate ? id.replace(/^0+/, '') : id;
        break;
      }
      case 'smartvan_id':
        // Real smartvan ids are 10^7..10^9-1; 11 digits cannot exist.
        row[6] = miss ? `88${n}` : v[V.smartvanId]!;
        break;
      case 'exact_track':
        // Real ones start with ET.
        row[7] = miss ? `EX${n}` : v[V.exactTrack]!;
        break;
    }
    out.write(formatCsvRow(row));
    expectedVoterbase[i] = miss ? '' : v[V.voterbaseId]!;
    method[i] = METHODS.indexOf(m);
    if (!miss) expectedByMethod[m]++;
    i++;
  }
  const bytes = out.close();
  const expectedMatches = Object.values(expectedByMethod).reduce((a, b) => a + b, 0);
  return {
    path,
    rows: i,
    bytes,
    ms: performance.now() - started,
    expectedVoterbase,
    method,
    expectedByMethod,
    expectedMatches,
  };
}

interface OutputCheck {
  physicalLines: number;
  dataRows: number;
  matched: number;
  /** Rows whose match flag, method or voterbase_id differ from what was constructed. */
  wrong: number;
  firstWrong: string[];
  outOfOrder: number;
}

/** Reads the result CSV once: counts lines and compares every row with the constructed answer. */
async function checkOutput(path: string, list: ContactList): Promise<OutputCheck> {
  let physicalLines = 0;
  async function* counted() {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      let at = chunk.indexOf(0x0a);
      while (at !== -1) {
        physicalLines++;
        at = chunk.indexOf(0x0a, at + 1);
      }
      yield chunk;
    }
  }
  const check: OutputCheck = {
    physicalLines: 0,
    dataRows: 0,
    matched: 0,
    wrong: 0,
    firstWrong: [],
    outOfOrder: 0,
  };
  let columns = { inputRow: -1, match: -1, method: -1, voterbase: -1 };
  for await (const event of readCsvTable(counted(), { maxRowBytes: 1 << 20, onWarning: () => {} })) {
    if (event.kind === 'header') {
      const at = (name: string) => {
        const index = event.header.indexOf(name);
        if (index < 0) throw new Error(`the result has no ${name} column: ${event.header.join(',')}`);
        return index;
      };
      columns = {
        inputRow: at('sm.input_row'),
        match: at('sm.match'),
        method: at('sm.method'),
        voterbase: at('vb.voterbase_id'),
      };
      continue;
    }
    for (const { fields } of event.rows) {
      check.dataRows++;
      const inputRow = Number(fields[columns.inputRow]);
      if (inputRow !== check.dataRows) check.outOfOrder++;
      const expected = list.expectedVoterbase[inputRow - 1];
      const matched = fields[columns.match] === 'Y';
      if (matched) check.matched++;
      const ok =
        expected === undefined
          ? false
          : expected === ''
            ? !matched
            : matched &&
              fields[columns.voterbase] === expected &&
              fields[columns.method] === METHODS[list.method[inputRow - 1]!];
      if (!ok) {
        check.wrong++;
        if (check.firstWrong.length < 5) check.firstWrong.push(fields.join(','));
      }
    }
  }
  check.physicalLines = physicalLines;
  return check;
}

export async function pipelineBenchmark(
  recorder: Recorder,
  options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const dataDir = await fixture.importedDataDir();
  const list = writeContactList(join(fixture.root, 'contacts.csv'));
  recorder.raw['contactList'] = {
    rows: list.rows,
    bytes: list.bytes,
    ms: list.ms,
    expectedByMethod: list.expectedByMethod,
    expectedMatches: list.expectedMatches,
  };
  const out = join(fixture.root, 'result.csv');
  const runs: { ms: number; innerSeconds: number | null; summary: ListSummary; stderr: string }[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const summaryPath = join(fixture.root, `summary-${run}.json`);
    log(`pipeline: listmatch match --max-matches 1 (run ${run} of ${options.runs})`);
    const cli = await runCli(
      ['match', list.path, '--out', out, '--max-matches', '1', '--summary', summaryPath],
      {
        dataDir,
        timeoutMs: CLI_TIMEOUT_MS,
        nodeArgs: options.profileArgs('pipeline', 'cli'),
      },
    );
    // The CLI prints "… N s (R rows/s)" for matchList alone (without start-up and snapshot load).
    const inner = /([\d.]+) s \((\d+) rows\/s\)/.exec(cli.stderr);
    runs.push({
      ms: cli.ms,
      innerSeconds: inner === null ? null : Number(inner[1]),
      summary: JSON.parse(await readFile(summaryPath, 'utf8')) as ListSummary,
      stderr: cli.stderr.trim(),
    });
  }
  const wallRates = runs.map((r) => rate({ rows: list.rows, ms: r.ms }));
  const mid = median(wallRates);
  const midRun = runs[wallRates.indexOf(mid)]!;
  const innerRates = runs.flatMap((r) => (r.innerSeconds === null ? [] : [list.rows / r.innerSeconds]));
  recorder.metric(`match (CLI, spawn to exit; median of ${runs.length})`, mid, 'rows/s', {
    target: { min: 200_000 },
    note:
      `${formatNumber(list.rows)} rows (${formatNumber(list.bytes / 1e6, 1)} MB) in ${seconds(midRun.ms)} s wall; ` +
      `runs ${wallRates.map((r) => formatNumber(r)).join(', ')} rows/s` +
      (innerRates.length === 0
        ? ''
        : `; matchList alone (CLI's own timing) median ${formatNumber(median(innerRates))} rows/s`),
  });

  log('pipeline: checking the result file of the last run');
  const output = await checkOutput(out, list);
  const outBytes = (await stat(out)).size;
  const summary = runs.at(-1)!.summary;
  const expectedRate = list.expectedMatches / list.rows;
  recorder.check('output rows = input rows', formatNumber(output.dataRows), formatNumber(list.rows));
  recorder.check(
    'physical lines (header + rows)',
    formatNumber(output.physicalLines),
    formatNumber(list.rows + 1),
  );
  recorder.check(
    'match rate (every run)',
    `${(summary.matchRate * 100).toFixed(2)}% (${formatNumber(summary.matchedRows)} rows)`,
    `${(expectedRate * 100).toFixed(2)}% (${formatNumber(list.expectedMatches)} rows)`,
    runs.every((r) => r.summary.matchedRows === list.expectedMatches && r.summary.outputRows === list.rows) &&
      output.matched === list.expectedMatches,
    `unmatched ${JSON.stringify(summary.unmatchedReasons)}`,
  );
  recorder.check(
    'matches by method as constructed',
    JSON.stringify(summary.matchesByMethod),
    JSON.stringify(list.expectedByMethod),
    runs.every((r) => METHODS.every((m) => (r.summary.matchesByMethod[m] ?? 0) === list.expectedByMethod[m])),
  );
  recorder.check(
    'rows matched to the constructed voter',
    `${formatNumber(output.wrong)} wrong, ${formatNumber(output.outOfOrder)} out of order`,
    '0 wrong, 0 out of order',
    output.wrong === 0 && output.outOfOrder === 0,
    output.firstWrong.length === 0 ? '' : `first: ${output.firstWrong.join(' / ')}`,
  );
  recorder.raw['matches'] = runs.map((r) => ({
    wallMs: r.ms,
    innerSeconds: r.innerSeconds,
    cliStderr: r.stderr,
    summary: r.summary,
  }));
  recorder.raw['output'] = { ...output, bytes: outBytes };
}

const rate = (x: { rows: number; ms: number }) => x.rows / (x.ms / 1000);
const seconds = (ms: number) => (ms / 1000).toFixed(2);
