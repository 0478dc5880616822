import { createReadStream, createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ThreadedMatcherFactory } from '../../adapters/matching/threaded-matcher-factory.ts';
import { listRun } from '../../domain/list-matching/list-run.ts';
import { loadEveryShard, matchList } from '../../domain/list-matching/match-list.ts';
import { voterCacheBytes } from '../../start/voter-stores.ts';
import type { CliContext } from '../cli-context.ts';
import { parseAppendedFields } from '../output.ts';

/** `listmatch match FILE --out OUT`: the worker's pipeline on a local file, without HTTP. */
export function matchCommand(program: Command, context: CliContext): void {
  program
    .command('match <file>')
    .description('match a contact list against the imported voter file locally and write the result CSV')
    .requiredOption('--out <path>', 'result CSV path')
    .option('--max-matches <k>', 'matches per input row, 1-10', '1')
    .option(
      '--append <fields>',
      'voter-file fields to append, comma-separated; source:name writes the column as vb.name',
    )
    .option('--summary <path>', 'also write summary.json here')
    .action(
      async (
        file: string,
        options: { out: string; maxMatches: string; append?: string; summary?: string },
      ) => {
        const maxMatches = Number(options.maxMatches);
        if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > 10) {
          throw new Error('--max-matches must be an integer from 1 to 10');
        }
        let matchers: ThreadedMatcherFactory | null = null;
        const { config, voters: store } = await context.voters({
          // A shard let go is let go by the matching threads too.
          onEvict: (snapshot) => matchers?.release(snapshot),
        });
        // A sharded voter file's shards stay open on the threads together (one pass over the list).
        const shards = (await store.stats())?.shards;
        const threads = new ThreadedMatcherFactory(config.MATCH_THREADS, {
          ...(shards === undefined ? {} : { sourcesKept: shards }),
        });
        matchers = threads;
        // The threads load their code while this thread loads the voter file.
        threads.start();
        let started = Date.now();
        const matchFile = async () => {
          const voters = await store.current();
          if (voters === null)
            throw new Error('no voter file imported yet (listmatch voters import FILE.csv)');
          const appendedFields = parseAppendedFields(options.append ?? '');
          // A sharded file's shards are all loaded (and opened on the threads) now, as the
          // unsharded file is, and the list matched against them as the service's worker does.
          const map = voters.shardMap;
          if (map !== undefined && !threads.holdsEveryShard(map, voterCacheBytes(config))) {
            throw new Error(
              `the voter file's ${map.shards.length} shards do not fit in VOTER_CACHE_MB together; raise it (or unset it) to match here`,
            );
          }
          const shards =
            map === undefined ? undefined : await loadEveryShard(store, map, (shard) => threads.open(shard));
          // The CLI's timer starts once the voter file is loaded.
          started = Date.now();
          return await matchList({
            open: () => createReadStream(file, { highWaterMark: 1 << 20 }),
            sinks: { output: createWriteStream(options.out) },
            run: listRun({
              maxMatches,
              searchRadiusMiles: null,
              asOf: new Date(),
              thresholdScore: config.MATCH_THRESHOLD,
              appendedFields,
              maxRowBytes: config.MAX_ROW_BYTES,
              outputs: { every: true },
            }),
            voters,
            ...(shards === undefined ? {} : { shards }),
            executor: threads,
          });
        };
        // The threads are closed however it ends (no voter file, a bad --append, a bad list).
        const summary = await matchFile().finally(() => threads.close());
        const seconds = (Date.now() - started) / 1000;
        if (options.summary) await writeFile(options.summary, `${JSON.stringify(summary, null, 2)}\n`);
        const routing = summary.shardRouting;
        if (routing !== undefined && routing.rows > 0) {
          console.error(
            `${routing.shards} shards: ${(routing.shardRows / routing.rows).toFixed(2)} shard-matches per row, ` +
              `${routing.everywhere} rows placed by nothing (matched in every shard)`,
          );
        }
        console.error(
          `${summary.rows} rows, ${summary.matchedRows} matched (${(summary.matchRate * 100).toFixed(1)}%), ` +
            `${summary.warnings.total} warnings, ${seconds.toFixed(2)} s (${Math.round(summary.rows / Math.max(seconds, 0.001))} rows/s)`,
        );
      },
    );
}
