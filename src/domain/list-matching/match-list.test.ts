import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import { AppError } from '../errors.ts';
import type { AppendedField } from '../keys/key-types.ts';
import { createDeterministicMatcher } from '../matching/deterministic-matcher.ts';
import { buildMatchIndex } from '../matching/index/build-match-index.ts';
import { IDENTIFIER_COLUMNS, type Matcher } from '../matching/matcher.ts';
import { createProbabilisticMatcher } from '../matching/probabilistic-matcher.ts';
import { InMemoryVoterSnapshot } from '../voters/in-memory-voter-snapshot.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { LEAD_COLUMNS } from './list-layout.ts';
import { listRun } from './list-run.ts';
import {
  inThreadExecutor,
  type ListSummary,
  MATCH_COLUMNS,
  type MatchListInput,
  matchList,
} from './match-list.ts';
import { outputsOf, type ResultSinks } from './stages/write.ts';

const VOTERS = new InMemoryVoterSnapshot(
  ['voterbase_id', 'state', 'voter_id', 'smartvan_id', 'exact_track', 'party', 'county'],
  [
    ['TX-000000001', 'TX', '00012345', '', 'ET0001', 'D', 'Travis'], // 0
    ['TX-000000002', 'TX', '777', '', 'ET0002', '=R', 'Harris, East'], // 1
    ['OH-000000003', 'OH', '42', '901', '', 'I', 'Franklin'], // 2
  ],
);
const matcher = createDeterministicMatcher(VOTERS);
const APPENDED: AppendedField[] = [
  { source: 'party', as: 'party' },
  { source: 'county', as: 'county' },
];
const LEAD_HEADER = 'ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id';
const MATCH_HEADER = 'sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain';
/** The result's header for a list's header: the lead columns, the appended fields, the service's own. */
const resultHeader = (client: string, appended = '') =>
  `${client},${LEAD_HEADER}${appended === '' ? '' : `,${appended}`},${MATCH_HEADER}`;

/** A list's run as these tests give it (the run's settings, the matcher, the sinks besides `output`). */
interface Options {
  matcher?: Matcher;
  voters?: VoterSnapshot;
  appendedFields?: AppendedField[];
  maxMatches?: number;
  searchRadiusMiles?: number | null;
  maxRowBytes?: number;
  asOf?: Date;
  /** The upload in these chunks (default: the csv in one). */
  chunks?: Buffer[];
  split?: ResultSinks['split'];
  onBestMatch?: (id: string) => void;
  onProgress?: (rows: number) => void;
}

function inputFor(csv: string | Buffer, output: PassThrough | undefined, options: Options): MatchListInput {
  const sinks: ResultSinks = {
    ...(output === undefined ? {} : { output }),
    ...(options.split === undefined ? {} : { split: options.split }),
    ...(options.onBestMatch === undefined ? {} : { onBestMatch: options.onBestMatch }),
  };
  const chosen = options.matcher ?? matcher;
  return {
    open: () => Readable.from(options.chunks ?? [Buffer.from(csv)]),
    sinks,
    run: listRun({
      maxMatches: options.maxMatches ?? 1,
      searchRadiusMiles: options.searchRadiusMiles ?? null,
      asOf: options.asOf ?? new Date('2024-06-01T00:00:00Z'),
      thresholdScore: 50,
      appendedFields: options.appendedFields ?? [],
      maxRowBytes: options.maxRowBytes ?? 1 << 20,
      outputs: outputsOf(sinks),
    }),
    voters: options.voters ?? VOTERS,
    executor: inThreadExecutor(() => chosen),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  };
}

/** Runs the pipeline and returns its summary and the output split into lines (final LF removed). */
async function run(
  csv: string | Buffer,
  options: Options = {},
): Promise<{ summary: ListSummary; lines: string[]; output: string }> {
  const output = new PassThrough();
  const collected = text(output);
  const summary = await matchList(inputFor(csv, output, options));
  const written = await collected;
  assert.ok(written.endsWith('\n'), 'output must end with LF');
  return { summary, lines: written.slice(0, -1).split('\n'), output: written };
}

/** Runs the pipeline with the every-rank output and the best/additional split, as text. */
async function runSplit(csv: string, options: Options = {}) {
  const [output, best, additional] = [new PassThrough(), new PassThrough(), new PassThrough()];
  const texts = Promise.all([output, best, additional].map((stream) => text(stream)));
  const summary = await matchList(inputFor(csv, output, { ...options, split: { best, additional } }));
  const [all, bestText, additionalText] = (await texts).map((t) => t.slice(0, -1).split('\n'));
  return { summary, all: all!, best: bestText!, additional: additionalText! };
}

/** The summary's 20 score bands, with `counts` by band start (0, 5, …, 95). */
const scoreBands = (counts: Record<number, number> = {}) =>
  Array.from({ length: 20 }, (_, band) => ({
    from: band * 5,
    to: band === 19 ? 100 : band * 5 + 4,
    count: counts[band * 5] ?? 0,
  }));

async function assertRefused(csv: string | Buffer, message: string, options: Options = {}): Promise<void> {
  const output = new PassThrough();
  output.resume();
  await assert.rejects(matchList(inputFor(csv, output, options)), (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, 'VALIDATION_FAILED');
    assert.equal(error.message, message);
    return true;
  });
}

describe('matchList output layout', () => {
  it('writes the input header unchanged, then the match columns, then vb.<as> for each appended field', async () => {
    const { lines } = await run('matchback_id,voterbase_id,Notes\nm1,TX-000000001,hi\n', {
      appendedFields: APPENDED,
    });
    assert.equal(lines[0], resultHeader('matchback_id,voterbase_id,Notes', 'vb.party,vb.county'));
    assert.deepEqual(MATCH_COLUMNS, MATCH_HEADER.split(','));
    assert.deepEqual(LEAD_COLUMNS, LEAD_HEADER.split(','));
  });

  it('writes a matched row with rank 1, Y, the score, the method, the voterbase_id and the appended fields', async () => {
    const { lines } = await run('matchback_id,voterbase_id,Notes\nm1,TX-000000001,hi\n', {
      appendedFields: APPENDED,
    });
    assert.deepEqual(lines.slice(1), [
      'm1,TX-000000001,hi,1,1,Y,TX-000000001,D,Travis,1,1,Y,100,voterbase_id,',
    ]);
  });

  it('keeps unmatched rows with N and empty match columns', async () => {
    const { lines } = await run('matchback_id,voterbase_id,Notes\nm2,TX-999999999,x\nm3,,y\n', {
      appendedFields: APPENDED,
    });
    assert.deepEqual(lines.slice(1), ['m2,TX-999999999,x,1,1,N,,,,1,,N,,,,', 'm3,,y,2,2,N,,,,2,,N,,,,']);
  });

  it('writes one line per match with ranks 1 and 2 when max_matches is 2', async () => {
    const { lines, summary } = await run(
      'matchback_id,voterbase_id,voter_id,state\nm1,TX-000000001,777,TX\n',
      {
        maxMatches: 2,
        appendedFields: [{ source: 'party', as: 'party' }],
      },
    );
    assert.deepEqual(lines.slice(1), [
      'm1,TX-000000001,777,TX,1,1,Y,TX-000000001,D,1,1,Y,100,voterbase_id,',
      "m1,TX-000000001,777,TX,1,2,Y,TX-000000002,'=R,1,2,Y,100,voter_id,",
    ]);
    assert.equal(summary.rows, 1);
    assert.equal(summary.matchedRows, 1);
    assert.equal(summary.outputRows, 2);
  });

  it('leaves an appended field that is not in the voter file empty, with a warning', async () => {
    const { lines, summary } = await run('voterbase_id\nTX-000000001\n', {
      appendedFields: [
        { source: 'no_such_column', as: 'missing' },
        { source: 'party', as: 'party' },
      ],
    });
    assert.deepEqual(lines, [
      resultHeader('voterbase_id', 'vb.missing,vb.party'),
      'TX-000000001,1,1,Y,TX-000000001,,D,1,1,Y,100,voterbase_id,',
    ]);
    assert.equal(summary.warnings.byKind['appended_field_missing'], 1);
  });

  it('writes UTF-8 with LF line ends and no BOM', async () => {
    const { output } = await run('\uFEFFvoterbase_id,name\r\nTX-000000001,Zoë\r\n');
    assert.equal(output.includes('\r'), false);
    assert.equal(output.charCodeAt(0), 'v'.charCodeAt(0));
    assert.ok(output.includes('Zoë'));
  });
});

describe('matchList input handling', () => {
  it('matches header names case-insensitively, with a BOM and CRLF line ends', async () => {
    const { lines, summary } = await run('\uFEFFVoterBase_ID,STATE,Voter_ID\r\nxx-1,tx,0012345\r\n');
    assert.deepEqual(lines, [
      resultHeader('VoterBase_ID,STATE,Voter_ID'),
      'xx-1,tx,0012345,1,1,Y,TX-000000001,1,1,Y,100,voter_id,',
    ]);
    assert.deepEqual(summary.identifierColumns, ['voterbase_id', 'state', 'voter_id']);
  });

  it('accepts spaces and hyphens for underscores in header names', async () => {
    const { lines } = await run(' Exact Track ,voter-id\nET0002,\n');
    assert.equal(lines[1], 'ET0002,,1,1,Y,TX-000000002,1,1,Y,100,exact_track,');
  });

  it('reads a file without a final newline', async () => {
    const { lines } = await run('voterbase_id\nTX-000000001');
    assert.equal(lines[1], 'TX-000000001,1,1,Y,TX-000000001,1,1,Y,100,voterbase_id,');
  });

  it('carries unknown columns through unchanged, in place', async () => {
    const { lines, summary } = await run(
      'Favorite Color,voterbase_id,"notes, misc",Donor Level\n"red, dark",TX-000000002,"said ""hi""",Gold\n',
    );
    assert.deepEqual(lines, [
      resultHeader('Favorite Color,voterbase_id,"notes, misc",Donor Level'),
      '"red, dark",TX-000000002,"said ""hi""",Gold,1,1,Y,TX-000000002,1,1,Y,100,voterbase_id,',
    ]);
    assert.deepEqual(summary.passthroughColumns, ['Favorite Color', 'notes, misc', 'Donor Level']);
    assert.deepEqual(summary.identifierColumns, ['voterbase_id']);
  });

  it('returns matchback_id byte for byte, even when it starts with =', async () => {
    const { lines } = await run('matchback_id,voterbase_id\n=1+1,TX-000000001\n@ref,TX-999\n-007,\n+x,\n');
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(',')[0]),
      ['=1+1', '@ref', '-007', '+x'],
    );
  });

  it('returns matchback_id byte for byte whatever its header case', async () => {
    const { lines } = await run('MatchBack_ID,voterbase_id\n=A1,TX-000000001\n');
    assert.equal(lines[1]!.split(',')[0], '=A1');
  });

  it("returns every cell of the client's columns byte for byte, formula-like ones included", async () => {
    const { lines } = await run(
      'voterbase_id,phone,a,b,c,d,e,f,g\n=cmd|x,+1 336 828 5232,=SUM(A1),+x,-x,@x,-78.91,+19195550100,\tt\n',
    );
    assert.equal(
      lines[1],
      '=cmd|x,+1 336 828 5232,=SUM(A1),+x,-x,@x,-78.91,+19195550100,\tt,1,1,N,,1,,N,,,,',
    );
  });

  it('returns the header names as written, even one a spreadsheet would read as a formula', async () => {
    const { lines } = await run('voterbase_id,+phone,@note\nTX-000000001,1,2\n');
    assert.equal(lines[0], resultHeader('voterbase_id,+phone,@note'));
  });

  it("prefixes ' to the formula-like cells of the columns it adds (the appended voter fields), leaving numbers alone", async () => {
    const voters = new InMemoryVoterSnapshot(
      ['voterbase_id', 'party', 'phone', 'lat'],
      [['=HYPERLINK("x")', '@R', '+1 336 828 5232', '-78.91']],
    );
    const { lines } = await run('matchback_id,voterbase_id\n=1,=HYPERLINK("x")\n', {
      voters,
      matcher: createDeterministicMatcher(voters),
      appendedFields: [
        { source: 'party', as: 'party' },
        { source: 'phone', as: 'phone' },
        { source: 'lat', as: 'lat' },
      ],
    });
    assert.equal(
      lines[1],
      `=1,"=HYPERLINK(""x"")",1,1,Y,"'=HYPERLINK(""x"")",'@R,'+1 336 828 5232,-78.91,1,1,Y,100,voterbase_id,`,
    );
  });

  it('turns embedded newlines into spaces', async () => {
    const { lines, output } = await run(
      'voterbase_id,note,matchback_id\nTX-000000001,"line 1\nline 2\r\nline 3","a\nb"\n',
    );
    assert.equal(output.split('\n').length, 3);
    assert.equal(
      lines[1],
      'TX-000000001,line 1 line 2 line 3,a b,1,1,Y,TX-000000001,1,1,Y,100,voterbase_id,',
    );
  });

  it('pads short rows, drops extra fields and counts both as warnings', async () => {
    const { lines, summary } = await run(
      'voterbase_id,a,b\nTX-000000001\nTX-000000002,1,2,3,4\nOH-000000003,x,y\n',
    );
    assert.deepEqual(lines.slice(1), [
      'TX-000000001,,,1,1,Y,TX-000000001,1,1,Y,100,voterbase_id,',
      'TX-000000002,1,2,2,2,Y,TX-000000002,2,1,Y,100,voterbase_id,',
      'OH-000000003,x,y,3,3,Y,OH-000000003,3,1,Y,100,voterbase_id,',
    ]);
    assert.equal(summary.warnings.total, 2);
    assert.deepEqual(summary.warnings.byKind, { ragged_row: 2 });
    assert.deepEqual(summary.warnings.first, [
      'line 2: 1 fields, header has 3',
      'line 3: 5 fields, header has 3',
    ]);
  });

  it('warns when voter_id comes without a state column', async () => {
    const { summary } = await run('voter_id\n777\n');
    assert.deepEqual(summary.warnings.byKind, { id_without_state_column: 1 });
    assert.deepEqual(summary.unmatchedReasons, { id_without_valid_state: 1 });
  });

  it('reports progress as cumulative row counts, block by block, ending at the row count', async () => {
    const seen: number[] = [];
    const output = new PassThrough();
    output.resume();
    // About 200 KiB: several blocks of whole records.
    const rows = Array.from({ length: 20_000 }, (_, i) => `ID-${String(i).padStart(6, '0')}`);
    const chunks = [Buffer.from(`voterbase_id\n${rows.join('\n')}\n`)];
    await matchList(inputFor('', output, { chunks, onProgress: (count) => seen.push(count) }));
    assert.ok(seen.length > 2, `progress after each block (${seen.length})`);
    assert.ok(
      seen.every((count, i) => i === 0 || count > seen[i - 1]!),
      'cumulative',
    );
    assert.equal(seen.at(-1), 20_000);
  });

  it('numbers rows across input chunks', async () => {
    const output = new PassThrough();
    const collected = text(output);
    const chunks = [Buffer.from('voterbase_id\nX1\nX2\n'), Buffer.from('TX-000000001\n')];
    await matchList(inputFor('', output, { chunks }));
    const lines = (await collected).trimEnd().split('\n');
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(',')[1]),
      ['1', '2', '3'],
    );
  });
});

describe('matchList refusals', () => {
  it('refuses an empty file', async () => {
    await assertRefused('', 'the uploaded file is empty');
  });

  it('refuses a file of blank lines or only a BOM as empty', async () => {
    await assertRefused('\n\r\n\n', 'the uploaded file is empty');
    await assertRefused('\uFEFF', 'the uploaded file is empty');
  });

  it('refuses a header without an identifier column, naming the identifiers', async () => {
    await assertRefused(
      'name,color,matchback_id\nAda,red,1\n',
      `the file has no recognizable identifier column; the header must name at least one of ${IDENTIFIER_COLUMNS.join(', ')}`,
    );
    assert.ok(IDENTIFIER_COLUMNS.includes('voterbase_id'));
  });

  it('refuses a first line longer than maxRowBytes as not a CSV header', async () => {
    const message =
      'the first line is longer than 1024 bytes, so it cannot be a CSV header; is this a CSV file?';
    await assertRefused(`voterbase_id,${'x'.repeat(2_000)}\nTX-000000001,a\n`, message, {
      maxRowBytes: 1024,
    });
    await assertRefused(`voterbase_id,${'x'.repeat(2_000)}`, message, { maxRowBytes: 1024 });
  });

  it('skips a data row longer than maxRowBytes with a warning when it arrives with the header', async () => {
    const { lines, summary } = await run(
      `voterbase_id,note\nTX-000000001,${'x'.repeat(2_000)}\nTX-000000002,ok\n`,
      {
        maxRowBytes: 1024,
      },
    );
    assert.deepEqual(lines.slice(1), ['TX-000000002,ok,1,1,Y,TX-000000002,1,1,Y,100,voterbase_id,']);
    assert.deepEqual(summary.warnings.byKind, { row_too_long: 1 });
  });

  it('skips a data row longer than maxRowBytes with a warning when it arrives after the header', async () => {
    const output = new PassThrough();
    const collected = text(output);
    const chunks = [
      Buffer.from('voterbase_id,note\n'),
      Buffer.from(`TX-000000001,${'x'.repeat(2_000)}\nTX-000000002,ok\n`),
    ];
    const summary = await matchList(inputFor('', output, { maxRowBytes: 1024, chunks }));
    assert.deepEqual((await collected).trimEnd().split('\n').slice(1), [
      'TX-000000002,ok,1,1,Y,TX-000000002,1,1,Y,100,voterbase_id,',
    ]);
    assert.deepEqual(summary.warnings.byKind, { row_too_long: 1 });
    assert.equal(summary.rows, 1);
  });

  it('refuses a quoted field that is never closed and reads the lines after it into one cell, naming its line', async () => {
    const rows = [
      'voterbase_id,note',
      'TX-000000001,ok',
      'TX-000000002,"open',
      'TX-000000003,lost',
      'TX-000000004,lost',
    ];
    await assertRefused(
      `${rows.join('\n')}\n`,
      'line 3: a quoted field is never closed, so the 3 lines after it were read into one cell; close or remove the quote and upload again',
    );
    // Past the row limit the record is skipped to the end of the file: refused all the same.
    await assertRefused(
      `voterbase_id,note\nTX-000000001,"open\n${'TX-000000002,x\r'.repeat(200)}`,
      'line 2: a quoted field is never closed, so the 200 lines after it were read into one cell; close or remove the quote and upload again',
      { maxRowBytes: 1024 },
    );
    // On the last line it loses nothing: a warning, and the row is there.
    const { summary } = await run('voterbase_id,note\nTX-000000001,"open');
    assert.deepEqual(summary.warnings.byKind, { unterminated_quote: 1 });
    assert.equal(summary.rows, 1);
  });

  it('answers a header without data rows with zero rows and a no_data_rows warning', async () => {
    const { lines, summary } = await run('matchback_id,voterbase_id\n');
    assert.deepEqual(lines, [resultHeader('matchback_id,voterbase_id')]);
    assert.deepEqual(summary, {
      rows: 0,
      matchedRows: 0,
      outputRows: 0,
      matchRate: 0,
      matchesByMethod: {},
      matchesByState: {},
      bestScoreHistogram: scoreBands(),
      unmatchedReasons: {},
      inputProblems: {},
      ambiguousMatches: 0,
      possibleMatches: 0,
      identifierColumns: ['voterbase_id'],
      passthroughColumns: ['matchback_id'],
      formulaCells: { total: 0, byColumn: {} },
      warnings: { total: 1, byKind: { no_data_rows: 1 }, first: ['the file has a header but no data rows'] },
    });
  });
});

describe('matchList summary', () => {
  it('counts rows, matches by method of the best match, output rows, match rate and unmatched reasons', async () => {
    const csv = [
      'matchback_id,voterbase_id,voter_id,state,exact_track',
      '1,TX-000000001,777,TX,', // voterbase_id (+ voter_id as rank 2)
      '2,,00042,OH,', // voter_id
      '3,,,,ET0002', // exact_track
      '4,TX-999999999,,,', // id_not_found
      '5,,,,', // no_id_values
      '6,,777,,', // id_without_valid_state
      '7,OH-000000003,,,', // voterbase_id
    ].join('\n');
    const { summary, lines } = await run(csv, { maxMatches: 2 });
    assert.equal(lines.length, 1 + 8);
    assert.deepEqual(summary, {
      rows: 7,
      matchedRows: 4,
      outputRows: 8,
      matchRate: 0.5714,
      matchesByMethod: { voterbase_id: 2, voter_id: 1, exact_track: 1 },
      matchesByState: { TX: 2, OH: 2 },
      bestScoreHistogram: scoreBands({ 95: 4 }),
      unmatchedReasons: { id_not_found: 1, no_id_values: 1, id_without_valid_state: 1 },
      inputProblems: {},
      ambiguousMatches: 0,
      possibleMatches: 0,
      identifierColumns: ['voterbase_id', 'voter_id', 'state', 'exact_track'],
      passthroughColumns: ['matchback_id'],
      formulaCells: { total: 0, byColumn: {} },
      warnings: { total: 0, byKind: {}, first: [] },
    });
  });

  it("counts the cells of the client's columns a spreadsheet would read as a formula, by column name, the header included", async () => {
    const csv = [
      'matchback_id,voterbase_id,voter_id,state,Phone,notes,=x',
      // 3 (matchback_id, Phone, notes), once although the row has two lines (ranks 1 and 2)
      '=1+1,TX-000000001,777,TX,+1 336 828 5232,@mention,a',
      '-x7,TX-000000002,,,+19195550100,-78.91,b', // 1 (matchback_id; plain numbers are not formulas)
      'ok,=cmd|x,,,\t336,"line\n=2",=y', // 3 (voterbase_id, Phone, =x), and the header's =x
    ].join('\n');
    const { summary } = await run(csv, { maxMatches: 2, appendedFields: APPENDED });
    assert.equal(summary.outputRows, 4);
    assert.deepEqual(summary.formulaCells, {
      total: 8,
      byColumn: { matchback_id: 2, voterbase_id: 1, Phone: 2, notes: 1, '=x': 2 },
    });
  });

  it('counts formula cells of columns named alike together, whatever the name', async () => {
    const { summary } = await run('voterbase_id,__proto__,note,note\nTX-000000001,=a,=b,=c\n');
    assert.equal(JSON.stringify(summary.formulaCells), '{"total":3,"byColumn":{"__proto__":1,"note":2}}');
  });

  it('counts no formula cells in the columns it adds', async () => {
    // TX-000000002's party is =R: written neutralized, counted nowhere.
    const { summary, lines } = await run('voterbase_id\nTX-000000002\n', { appendedFields: APPENDED });
    assert.match(lines[1]!, /,'=R,/);
    assert.deepEqual(summary.formulaCells, { total: 0, byColumn: {} });
  });

  it('has a match rate of 1 when every row matched', async () => {
    const { summary } = await run('voterbase_id\nTX-000000001\nTX-000000002\n');
    assert.equal(summary.matchRate, 1);
  });

  it('counts rows without a reason from the matcher as no_match', async () => {
    const silent: Matcher = {
      name: 'silent',
      matchBatch: (rows) => rows.map(() => ({ candidates: [] })),
    };
    const { summary, lines } = await run('voterbase_id\nA\nB\n', { matcher: silent });
    assert.deepEqual(summary.unmatchedReasons, { no_match: 2 });
    assert.equal(lines[2], 'B,2,2,N,,2,,N,,,,');
  });

  it('writes sm.explain, counts ambiguous best matches and unusable values', async () => {
    const stub: Matcher = {
      name: 'stub',
      matchBatch: (rows) =>
        rows.map((row) =>
          row.row === 1
            ? {
                candidates: [
                  { voter: 0, score: 51.4, method: 'name_zip', explain: 'first=exact zip=exact ambiguous' },
                ],
              }
            : {
                candidates: [],
                unmatchedReason: 'invalid_phone',
                problems: ['invalid_phone', 'invalid_dob'],
              },
        ),
    };
    const { summary, lines } = await run('first_name,zip\nANN,27601\nBO,x\n', { matcher: stub });
    assert.equal(summary.ambiguousMatches, 1);
    assert.deepEqual(summary.inputProblems, { invalid_phone: 1, invalid_dob: 1 });
    assert.deepEqual(summary.unmatchedReasons, { invalid_phone: 1 });
    assert.match(
      lines[1]!,
      /^ANN,27601,1,1,Y,TX-000000001,1,1,Y,51,name_zip,first=exact zip=exact ambiguous$/,
    );
  });

  it('bands best-match scores by 5 (95-100 last) and counts states, unknown when the voter has none', async () => {
    const voters = new InMemoryVoterSnapshot(
      ['voterbase_id', 'state'],
      [
        ['A', 'NC'],
        ['B', ''],
      ],
    );
    const scores = [94.6, 94.4, 100, 0, 4.6];
    const stub: Matcher = {
      name: 'stub',
      matchBatch: (rows) =>
        rows.map((row) => ({
          candidates: [
            // Rank 2 scores and states count nowhere: the summary is about best matches.
            { voter: row.row % 2, score: scores[row.row - 1]!, method: 'name_zip' },
            { voter: 0, score: 1, method: 'name_zip' },
          ],
        })),
    };
    const { summary } = await run('first_name\na\nb\nc\nd\ne\n', { matcher: stub, voters, maxMatches: 2 });
    assert.deepEqual(summary.bestScoreHistogram, scoreBands({ 0: 1, 5: 1, 90: 1, 95: 2 }));
    assert.deepEqual(summary.matchesByState, { unknown: 3, NC: 2 });
  });

  it('passes max_matches, search radius and reference date to the matcher', async () => {
    const seen: unknown[] = [];
    const spy: Matcher = {
      name: 'spy',
      matchBatch: (rows, options) => {
        seen.push({ rows, options });
        return rows.map(() => ({ candidates: [] }));
      },
    };
    const asOf = new Date('2020-01-01T00:00:00Z');
    await run('Voter_ID,State,first name,misc\n0012,tx,Ada,z\n', {
      matcher: spy,
      maxMatches: 3,
      searchRadiusMiles: 2.5,
      asOf,
    });
    assert.deepEqual(seen, [
      {
        rows: [{ row: 1, fields: { voter_id: '0012', state: 'tx', first_name: 'Ada' } }],
        options: { maxMatches: 3, searchRadiusMiles: 2.5, asOf },
      },
    ]);
  });
});

describe('matchList split into best and additional matches', () => {
  it('writes every input row once to best (unmatched ones too) and later ranks to additional, in input order', async () => {
    const csv = [
      'matchback_id,voterbase_id,voter_id,state',
      'm1,TX-000000001,777,TX', // ranks 1 and 2
      'm2,TX-999999999,,', // unmatched
      'm3,OH-000000003,,', // rank 1 only
      'm4,TX-000000002,00012345,TX', // ranks 1 and 2
    ].join('\n');
    const { all, best, additional, summary } = await runSplit(csv, { maxMatches: 3 });
    const header = resultHeader('matchback_id,voterbase_id,voter_id,state');
    assert.deepEqual([all[0], best[0], additional[0]], [header, header, header]);
    assert.deepEqual(best.slice(1), [
      'm1,TX-000000001,777,TX,1,1,Y,TX-000000001,1,1,Y,100,voterbase_id,',
      'm2,TX-999999999,,,2,2,N,,2,,N,,,,',
      'm3,OH-000000003,,,3,3,Y,OH-000000003,3,1,Y,100,voterbase_id,',
      'm4,TX-000000002,00012345,TX,4,4,Y,TX-000000002,4,1,Y,100,voterbase_id,',
    ]);
    assert.deepEqual(additional.slice(1), [
      'm1,TX-000000001,777,TX,1,1,Y,TX-000000002,1,2,Y,100,voter_id,',
      'm4,TX-000000002,00012345,TX,4,2,Y,TX-000000001,4,2,Y,100,voter_id,',
    ]);
    // The every-rank file holds the lines of both, rows in input order, each numbered in its own
    // file (ts__row, the sixth cell here).
    const unnumbered = (line: string) => line.split(',').toSpliced(5, 1).join(',');
    assert.deepEqual(
      all.slice(1).map(unnumbered),
      [best[1], additional[1], best[2], best[3], best[4], additional[2]].map((line) => unnumbered(line!)),
    );
    assert.deepEqual(
      all.slice(1).map((line) => line.split(',')[5]),
      ['1', '2', '3', '4', '5', '6'],
    );
    assert.equal(summary.outputRows, 6);
  });

  it("keeps both people of a couple row in best (the matcher's bestCount), the rest in additional", async () => {
    // The matcher returns at most max_matches candidates per person: 3 lines need max_matches 3.
    const couple: Matcher = {
      name: 'couple',
      matchBatch: (rows) =>
        rows.map(() => ({
          candidates: [
            { voter: 0, score: 90, method: 'name_address' },
            { voter: 2, score: 80, method: 'name_address' },
            { voter: 1, score: 85, method: 'name_address' },
          ],
          bestCount: 2,
        })),
    };
    const { best, additional, summary } = await runSplit(
      'first_name_combined,last_name\nJohn & Mary,Smith\n',
      {
        matcher: couple,
        maxMatches: 3,
      },
    );
    assert.deepEqual(
      best.slice(1).map((line) => line.split(',').slice(2, 5).join(',')),
      ['1,1,Y', '1,2,Y'],
    );
    assert.deepEqual(
      additional.slice(1).map((line) => line.split(',').slice(2, 5).join(',')),
      ['1,1,Y'],
    );
    assert.deepEqual(summary.matchesByMethod, { name_address: 1 }, 'one matched row, counted once');
  });

  it('writes at most max_matches lines for a couple row: with 2, both people in best and nothing more', async () => {
    // Each person's own matches (max_matches each): four candidates for one row.
    const couple: Matcher = {
      name: 'couple',
      matchBatch: (rows) =>
        rows.map(() => ({
          candidates: [
            { voter: 0, score: 90, method: 'name_address' },
            { voter: 2, score: 80, method: 'name_address' },
            { voter: 1, score: 85, method: 'name_address' },
            { voter: 1, score: 70, method: 'name_zip' },
          ],
          bestCount: 2,
        })),
    };
    const { all, best, additional, summary } = await runSplit(
      'matchback_id,first_name_combined,last_name\nm1,John & Mary,Smith\n',
      { matcher: couple, maxMatches: 2 },
    );
    assert.deepEqual(
      best.slice(1).map((line) => line.split(',').slice(3, 6).join(',')),
      ['1,1,Y', '1,2,Y'],
    );
    assert.deepEqual(additional.slice(1), []);
    assert.equal(all.length, 1 + 2);
    assert.deepEqual([summary.rows, summary.matchedRows, summary.outputRows], [1, 1, 2]);
  });

  it('writes only the split when the every-rank output is not asked for', async () => {
    const [best, additional] = [new PassThrough(), new PassThrough()];
    const texts = Promise.all([text(best), text(additional)]);
    await matchList(
      inputFor('voterbase_id,voter_id,state\nTX-000000001,777,TX\n', undefined, {
        maxMatches: 2,
        split: { best, additional },
      }),
    );
    const [bestText, additionalText] = await texts;
    assert.equal(bestText.split('\n').length, 3);
    assert.equal(additionalText.split('\n').length, 3);
  });
});

describe('matchList with a couple row (first_name_combined)', () => {
  // Margaret and John OBrien share 12 Oak St; the row names both.
  const couples = new InMemoryVoterSnapshot(
    ['voterbase_id', 'state', 'first_name', 'last_name', 'address1', 'city', 'zip', 'dob', 'party'],
    [
      ['NC-1', 'NC', 'MARGARET', 'OBRIEN', '12 OAK ST', 'RALEIGH', '27601', '19700312', 'DEM'],
      ['NC-2', 'NC', 'JOHN', 'OBRIEN', '12 OAK ST', 'RALEIGH', '27601', '19680101', 'REP'],
      ['NC-3', 'NC', 'MARY', 'SMITH', '9 PINE RD', 'CARY', '27511', '19800101', 'UNA'],
    ],
  );
  const options = (maxMatches: number, onBestMatch?: (id: string) => void): Options => ({
    voters: couples,
    matcher: createProbabilisticMatcher(couples, buildMatchIndex(couples)),
    appendedFields: [{ source: 'party', as: 'party' }],
    maxMatches,
    ...(onBestMatch === undefined ? {} : { onBestMatch }),
  });
  const LIST = [
    'matchback_id,first_name_combined,last_name,address1,zip',
    'c1,John & Margaret,OBrien,12 Oak St,27601',
    'c2,Mary,Smith,9 Pine Rd,27511',
  ].join('\n');
  /** matchback_id, sm.rank and vb.voterbase_id of each line. */
  const ranks = (lines: string[]) =>
    lines.map((line) => {
      const cells = line.split(',');
      return [cells[0], cells[6], cells[11]].join(' ');
    });

  it('gives it one line with max_matches=1: the better-scoring of the two people', async () => {
    const audience: string[] = [];
    const { lines, summary } = await run(
      LIST,
      options(1, (id) => audience.push(id)),
    );
    assert.deepEqual(ranks(lines.slice(1)), ['c1 1 1', 'c2 2 1']);
    assert.deepEqual([summary.rows, summary.matchedRows, summary.outputRows], [2, 2, 2]);
    assert.deepEqual(summary.matchesByState, { NC: 2 });
    assert.deepEqual(audience, ['NC-1', 'NC-3'], 'the media-buying ids are the lines written');
  });

  it('gives it both people with max_matches=2, both in best', async () => {
    const audience: string[] = [];
    const { best, additional, summary } = await runSplit(
      LIST,
      options(2, (id) => audience.push(id)),
    );
    assert.deepEqual(ranks(best.slice(1)), ['c1 1 1', 'c1 2 2', 'c2 3 1']);
    assert.deepEqual(additional.slice(1), []);
    assert.deepEqual([summary.rows, summary.matchedRows, summary.outputRows], [2, 2, 3]);
    assert.deepEqual(audience, ['NC-1', 'NC-2', 'NC-3']);
  });
});
