import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import {
  LIST,
  linesOf,
  MAP,
  matcherFor,
  matchSharded,
  NC,
  OPTIONS,
  runOf,
  VA,
  WHOLE,
} from '../../../../test/support/sharded-lists.ts';
import type { ListFit, MatchCandidate, MatchOutcome } from '../../matching/matcher.ts';
import { ShardDirectoryBuilder } from '../../voters/shard-directory.ts';
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import type { BlockExecutor } from '../block-executor.ts';
import { assembleBlock, splitBlock } from '../block-stages.ts';
import { inThreadExecutor, matchList } from '../match-list.ts';
import { mergeOutcomes, mergeSwapped } from '../stages/merge.ts';
import { shardRouter } from '../stages/route.ts';
import { type AssembleBlockRunner, assembleList } from './assemble-list.ts';

/** A list matched against one unsharded voter file here (with the job's fit when given). */
async function matchAlone(
  snapshot: VoterSnapshot,
  csv: string,
  options = OPTIONS,
  listFit: ListFit | null = null,
) {
  const output = new PassThrough();
  const out = text(output);
  const matcher = matcherFor(snapshot, listFit);
  await matchList({
    open: () => Readable.from([Buffer.from(csv)]),
    sinks: { output },
    run: runOf(options, { every: true }),
    voters: snapshot,
    executor: inThreadExecutor(() => matcher),
  });
  return await out;
}

describe('a list matched against a sharded voter file', () => {
  it('splits and assembles the same on threads that take whole blocks, whichever finishes first', async () => {
    // Several blocks of 64 KiB, the earlier ones finishing later.
    const rows = LIST.trimEnd().split('\n');
    const long = [rows[0], ...Array.from({ length: 4000 }, (_, i) => rows[1 + (i % (rows.length - 1))])].join(
      '\n',
    );
    const alone = await matchSharded(`${long}\n`, OPTIONS, 1000);
    let started = 0;
    const threads: BlockExecutor = {
      parallelism: 4,
      run: async (block, spec) => {
        const delay = 20 - 5 * (started++ % 4);
        await new Promise((resolve) => setTimeout(resolve, delay));
        return splitBlock(block, spec, shardRouter(MAP, null));
      },
    };
    let assembled = 0;
    const assemble: AssembleBlockRunner = {
      parallelism: 4,
      run: async (block, spec, lines) => {
        const delay = 20 - 5 * (assembled++ % 4);
        await new Promise((resolve) => setTimeout(resolve, delay));
        return assembleBlock(block, spec, lines);
      },
    };
    const routed = await matchSharded(`${long}\n`, OPTIONS, 1000, null, threads, assemble);
    assert.ok(started > 1, `${started} blocks`);
    assert.equal(assembled, started);
    assert.deepEqual(routed.chunks, alone.chunks);
    assert.equal(routed.result, alone.result);
  });

  it('routes each row to the shards of its state, and a row without one to every shard', async () => {
    const { chunks } = await matchSharded(LIST);
    const rowsOf = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { r: number }).r);
    // Row 2 has a ZIP of NC's but a street address without a state: the whole file searches
    // that address in every state, so every shard does.
    assert.deepEqual(rowsOf(chunks[0]!), [1, 2, 3]);
    assert.deepEqual(rowsOf(chunks[1]!), [2, 3, 4]);
  });

  it("gives each row its shard's match, with that voter's appended values", async () => {
    const { result } = await matchSharded(LIST);
    const lines = result.trimEnd().split('\n');
    assert.equal(
      lines[0],
      `${LIST.split('\n')[0]},ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id,vb.party,sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain`,
    );
    const best = (id: string) => lines.find((line) => line.startsWith(`${id},`) && line.includes(',1,Y,'));
    assert.match(best('a')!, /,NC-1,DEM,/);
    assert.match(best('b')!, /,NC-2,REP,/);
    assert.match(best('c')!, /,VA-2,DEM,/);
    // The namesake in the other state is never compared: the row names its state.
    assert.match(best('d')!, /,VA-1,IND,/);
    assert.ok(!lines.some((line) => line.startsWith('d,') && line.includes('NC-1')));
  });

  it('writes the same bytes as matching each routed row against its one shard alone', async () => {
    const { result, listFit } = await matchSharded(LIST);
    const header = LIST.split('\n')[0]!;
    // Alone, with the job's model (m and match rate fitted once on the job's sample).
    const alone = async (snapshot: VoterSnapshot, rows: string[]) =>
      (await matchAlone(snapshot, [header, ...rows].join('\n'), OPTIONS, listFit!))
        .trimEnd()
        .split('\n')
        .slice(1);
    const rows = LIST.split('\n').slice(1);
    // Rows 1, 2 and 4 each go to one shard: their lines are that shard's, row number aside.
    const nc = await alone(NC, [rows[0]!, rows[1]!]);
    const va = await alone(VA, [rows[2]!, rows[3]!]);
    const lines = result.trimEnd().split('\n').slice(1);
    // The input row and the line's number in its file differ; the rest is the shard's.
    const strip = (line: string) => {
      const cells = line.split(',');
      for (const at of [8, 9, 13]) cells[at] = '#';
      return cells.join(',');
    };
    assert.deepEqual(
      lines.filter((l) => /^[abd],/.test(l)).map(strip),
      [...nc, va.filter((l) => l.startsWith('d,'))[0]!].map(strip).filter((l) => /^[abd],/.test(l)),
    );
  });

  it('writes one line for a couple row with max_matches=1, two with 2, the same bytes as its shard alone', async () => {
    const list = [
      'matchback_id,first_name_combined,last_name,address1,city,state,zip,email',
      'e,Robert & Roberta,Jones,40 Elm St,Durham,,27701,', // NC by its ZIP
      'a,Margaret,Smith,12 Oak St,Raleigh,NC,27601,',
    ].join('\n');
    for (const [maxMatches, lines] of [
      // Robert and Roberta score the same: the lower voter index first.
      [1, ['e 1 NC-2', 'a 1 NC-1']],
      [2, ['e 1 NC-2', 'e 2 NC-3', 'a 1 NC-1']],
    ] as const) {
      const options = { ...OPTIONS, maxMatches };
      const { result } = await matchSharded(list, options);
      const alone = await matchAlone(NC, list, options);
      assert.equal(result, alone, `max_matches=${maxMatches}: byte for byte`);
      assert.deepEqual(
        result
          .trimEnd()
          .split('\n')
          .slice(1)
          .map((line) => {
            // matchback_id, sm.rank, vb.voterbase_id
            const cells = line.split(',');
            return `${cells[0]} ${cells[14]} ${cells[11]}`;
          }),
        lines,
        `max_matches=${maxMatches}`,
      );
    }
  });

  it('reports a row whose outcome no chunk holds instead of writing a wrong line', async () => {
    await assert.rejects(
      assembleList({
        source: Readable.from([Buffer.from('first_name\nAnn\n')]),
        run: runOf(),
        voters: WHOLE,
        sinks: {},
        streams: [linesOf(['{"r":2,"c":[]}'])],
      }),
      /no chunk holds the outcome of row 1/,
    );
  });
});

describe('mergeOutcomes', () => {
  const candidate = (voter: number, score: number) => ({ voter, score, method: 'name_address' });

  it('keeps a single outcome as it is', () => {
    const one: MatchOutcome = { candidates: [candidate(1, 90)], bestCount: 2, problems: ['invalid_phone'] };
    assert.equal(mergeOutcomes([one], 1), one);
  });

  it('takes the matched shard when only one matched, with the problems of all', () => {
    const merged = mergeOutcomes(
      [
        { candidates: [], unmatchedReason: 'no_candidates', problems: ['invalid_phone'] },
        { candidates: [candidate(7, 80)], problems: ['invalid_phone', 'id_name_mismatch'] },
      ],
      1,
    );
    assert.deepEqual(merged, {
      candidates: [candidate(7, 80)],
      problems: ['invalid_phone', 'id_name_mismatch'],
    });
  });

  it('ranks the candidates of several shards by score, ties in shard order, up to maxMatches', () => {
    const merged = mergeOutcomes(
      [
        { candidates: [candidate(1, 70), candidate(2, 60)] },
        { candidates: [candidate(3, 70), candidate(4, 95)] },
      ],
      3,
    );
    assert.deepEqual(
      merged.candidates.map((c) => c.voter),
      [4, 1, 3],
    );
  });

  it('weighs the shards by their exact sums and the likeliest relative, as one search over all of them', () => {
    // Shard 1: a possible household member (the possible band: at most 89, at least 50 when its
    // own evidence says so); shard 2: another candidate. Each shard's oddsSum adds its own
    // relative outside the file; the whole file's adds one, the likeliest.
    const possible = { voter: 1, score: 50, method: 'name_address', odds: 1.2, maxScore: 89, minScore: 50 };
    const other = { voter: 2, score: 33.3, method: 'name_address', odds: 1.0 };
    const shards: MatchOutcome[] = [
      { candidates: [possible], oddsSum: 1.2 + 0.5, oddsParts: [1.2], relative: 0.5 },
      { candidates: [other], oddsSum: 1.0 + 0.2, oddsParts: [1.0], relative: 0.2 },
    ];
    const total = 1.2 + 1.0 + 0.5;
    const merged = mergeOutcomes(shards, 2, 0);
    assert.deepEqual(
      merged.candidates.map((c) => [c.voter, c.score, c.minScore ?? 0]),
      [
        // Over both shards its own evidence, 120 / (1 + total - 0.5), is under 50: no floor.
        [1, 120 / (1 + total), 0],
        [2, 100 / (1 + total), 0],
      ],
    );
    // Summing the shards' oddsSums would count two relatives.
    assert.notEqual(120 / (1 + 1.7 + 1.2), 120 / (1 + total));
  });

  it('weighs a row’s swapped readings of several shards as one, scaled by the swap’s probability', () => {
    // Each shard's reading: its candidate's odds already scaled (0.5); the sums and relatives
    // unscaled, as searchPerson gives them.
    const reading = (voter: number, odds: number, relative: number, order: number): MatchOutcome => ({
      candidates: [
        {
          voter,
          score: 0,
          method: 'name_address',
          explain: 'first=exact last=exact names=swapped',
          odds: odds * 0.5,
          order,
        },
      ],
      oddsSum: (odds + relative) * 0.5,
      oddsParts: [odds],
      relative,
      oddsScale: 0.5,
    });
    const merged = mergeSwapped([reading(1, 300, 2, 10), reading(2, 100, 4, 20)], 2, 0, ['invalid_phone']);
    const total = (300 + 100 + 4) * 0.5;
    assert.deepEqual(
      merged!.candidates.map((c) => [c.voter, c.score, c.explain]),
      [
        [1, (100 * 150) / (1 + total), 'first=exact last=exact names=swapped'],
        [2, (100 * 50) / (1 + total), 'first=exact last=exact names=swapped'],
      ],
    );
    assert.deepEqual(merged!.problems, ['invalid_phone']);
    // Two near-equal readings: the best is flagged ambiguous, before the swap's mark.
    const close = mergeSwapped([reading(1, 300, 2, 10), reading(2, 200, 4, 20)], 1, 0, undefined);
    assert.equal(close!.candidates[0]!.explain, 'first=exact last=exact ambiguous names=swapped');
    // Nothing above the threshold: no outcome (the names as written keep theirs).
    assert.equal(mergeSwapped([reading(1, 300, 2, 10), reading(2, 300, 4, 20)], 1, 60, undefined), null);
  });

  it('weighs one person’s candidates of several shards together, as one voter file would', () => {
    const weighed = (voter: number, odds: number, explain = 'email=exact') => ({
      voter,
      score: Math.min(99, (100 * odds) / (1 + odds)),
      method: 'email',
      explain,
      odds,
    });
    // The same e-mail address in two states: each shard alone says 99; together they split.
    const twoStates = [
      { candidates: [weighed(1, 99)], oddsSum: 99 },
      { candidates: [weighed(2, 99)], oddsSum: 99 },
    ];
    assert.deepEqual(mergeOutcomes(twoStates, 1, 50), { candidates: [], unmatchedReason: 'below_threshold' });
    const both = mergeOutcomes(twoStates, 2, 0);
    assert.deepEqual(
      both.candidates.map((c) => [c.voter, Number(c.score.toFixed(2)), c.explain]),
      [
        [1, 49.75, 'email=exact ambiguous'],
        [2, 49.75, 'email=exact'],
      ],
    );
    // Candidates below the threshold in the other shard still take their share.
    const diluted = mergeOutcomes(
      [
        { candidates: [weighed(1, 300)], oddsSum: 300 },
        { candidates: [], unmatchedReason: 'below_threshold', oddsSum: 400 },
      ],
      1,
      50,
    );
    assert.deepEqual(diluted, { candidates: [], unmatchedReason: 'below_threshold' });
    // One shard with candidates, the others with none: its own scores and flags, to the bit.
    const alone = { candidates: [weighed(1, 40, 'first=exact ambiguous'), weighed(2, 30)], oddsSum: 75 };
    const kept = mergeOutcomes([alone, { candidates: [], unmatchedReason: 'no_candidates' }], 2, 0);
    assert.deepEqual(
      kept.candidates.map((c) => [c.voter, c.score, c.explain]),
      [
        [1, (100 * 40) / 76, 'first=exact ambiguous'],
        [2, (100 * 30) / 76, 'email=exact'],
      ],
    );
  });

  it('selects over what every shard selected and passed over, as the whole file’s selection would', () => {
    const weighed = (voter: number, odds: number, order: number, uncorroborated = false): MatchCandidate => ({
      voter,
      score: 0,
      method: 'name_dob',
      explain: 'first=exact last=exact',
      odds,
      order,
      ...(uncorroborated ? { uncorroborated: true as const } : {}),
    });
    // Shard A selected its best (odds 7.65) alone; shard B's selection passed over a namesake of
    // odds 4.81 (under B's threshold by itself). The whole file ranks both: the second has more
    // than half the first's odds, so the first is ambiguous.
    const shards: MatchOutcome[] = [
      { candidates: [weighed(1, 7.65, 10)], oddsSum: 7.65, oddsParts: [7.65], relative: 0, passed: [] },
      {
        candidates: [],
        unmatchedReason: 'below_threshold',
        oddsSum: 4.81,
        oddsParts: [4.81],
        relative: 0,
        passed: [weighed(2, 4.81, 20)],
      },
    ];
    const total = 1 + 7.65 + 4.81;
    const merged = mergeOutcomes(shards, 1, 50);
    assert.deepEqual(
      merged.candidates.map((c) => [c.voter, c.score, c.explain]),
      [[1, (100 * 7.65) / total, 'first=exact last=exact ambiguous']],
    );
    // Without what B passed over (a line of an older version), the merge cannot know.
    const { passed: _unknown, ...older } = shards[1]!;
    assert.equal(mergeOutcomes([shards[0]!, older], 1, 50).candidates[0]!.explain, 'first=exact last=exact');

    // The whole file keeps its best max(maxMatches, 2) by odds before selecting: an uncorroborated
    // second best in B (selected by no one) pushes A's own third out, and is not selected itself.
    const third: MatchOutcome[] = [
      {
        candidates: [weighed(1, 10, 10), weighed(3, 3, 30)],
        oddsSum: 13,
        oddsParts: [13],
        relative: 0,
        passed: [],
      },
      {
        candidates: [],
        unmatchedReason: 'below_threshold',
        oddsSum: 6,
        oddsParts: [6],
        relative: 0,
        passed: [weighed(2, 6, 20, true)],
      },
    ];
    const two = mergeOutcomes(third, 2, 0);
    assert.deepEqual(
      two.candidates.map((c) => [c.voter, c.score, c.explain, 'uncorroborated' in c]),
      [[1, 1000 / 20, 'first=exact last=exact ambiguous', false]],
    );
    // Equal odds: the whole file's order decides which is kept.
    const tie = mergeOutcomes(
      [
        { candidates: [weighed(1, 5, 40)], oddsSum: 5, oddsParts: [5], relative: 0, passed: [] },
        { candidates: [weighed(2, 5, 15)], oddsSum: 5, oddsParts: [5], relative: 0, passed: [] },
      ],
      1,
      0,
    );
    assert.deepEqual(
      tie.candidates.map((c) => c.voter),
      [2],
    );
  });

  it('compares the shards’ scores as given when an outcome cannot be weighed (an id match, a couple row)', () => {
    const merged = mergeOutcomes(
      [
        { candidates: [{ voter: 1, score: 100, method: 'voterbase_id' }] },
        { candidates: [{ voter: 2, score: 99, method: 'email', odds: 99 }], oddsSum: 99 },
      ],
      2,
      50,
    );
    assert.deepEqual(
      merged.candidates.map((c) => [c.voter, c.score]),
      [
        [1, 100],
        [2, 99],
      ],
    );
  });

  it('names the most telling reason when no shard matched', () => {
    const merged = mergeOutcomes(
      [
        { candidates: [], unmatchedReason: 'no_candidates' },
        { candidates: [], unmatchedReason: 'below_threshold' },
        { candidates: [], unmatchedReason: 'empty_row' },
      ],
      1,
    );
    assert.deepEqual(merged, { candidates: [], unmatchedReason: 'below_threshold' });
  });

  it('cuts a shard’s part into chunks of chunkRows rows, with the same result however it is cut', async () => {
    const rows = ['matchback_id,first_name,last_name,address1,city,state,zip,dob'];
    for (let i = 0; i < 8; i++) {
      rows.push(`n${i},Margaret,Smith,12 Oak St,Raleigh,NC,27601,1961-04-${10 + (i % 3)}`);
      rows.push(`v${i},Alan,Brown,1 Main St,Norfolk,VA,23510,`);
    }
    const list = rows.join('\n');
    const whole = await matchSharded(list, OPTIONS, 1000);
    const cut = await matchSharded(list, OPTIONS, 3);
    assert.deepEqual(whole.names, ['nc', 'va']);
    // The NC rows' birth dates send them to VA's shard too (name + birth date keys name no place).
    assert.deepEqual(cut.names, ['nc', 'nc.1', 'nc.2', 'va', 'va.1', 'va.2', 'va.3', 'va.4', 'va.5']);
    assert.deepEqual(cut.chunks, whole.chunks, 'the same rows per shard, in the same order');
    assert.equal(cut.result, whole.result, 'byte for byte');
  });

  it('sends a row placed only by its e-mail to the shard of the voter who has it (with a directory)', async () => {
    const builder = new ShardDirectoryBuilder();
    builder.add(0, [], 'peggy@example.com');
    builder.add(1, [], 'alan@example.com');
    const list = ['matchback_id,first_name,last_name,email', 'x,Alan,Brown,ALAN@example.com'].join('\n');
    const routed = await matchSharded(list, OPTIONS, 1000, builder.build());
    assert.deepEqual(routed.names, ['va']);
    const everywhere = await matchSharded(list, OPTIONS, 1000, null);
    assert.deepEqual(everywhere.names, ['nc', 'va']);
    assert.equal(routed.result, everywhere.result, 'the same match, from one shard instead of two');
  });

  it('fits the job’s model once, from the evidence of every shard the sample went to, however the list is cut', async () => {
    const rows = ['matchback_id,first_name,last_name,address1,city,state,zip'];
    for (let i = 0; i < 3; i++) rows.push(`v${i},Alan,Brown,1 Main St,Norfolk,VA,23510`);
    for (let i = 0; i < 5; i++) rows.push(`n${i},Margaret,Smith,12 Oak St,Raleigh,NC,27601`);
    const whole = await matchSharded(rows.join('\n'));
    const cut = await matchSharded(rows.join('\n'), OPTIONS, 3);
    assert.deepEqual(whole.sampleChunks, ['va'], 'the first 3 rows are VA’s');
    assert.deepEqual(cut.listFit, whole.listFit);
    assert.equal(cut.result, whole.result);
  });
});
