import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import {
  generateContactListFromFile,
  PATTERNS,
  type Pattern,
} from '../../lab/synthetic/lists/generate-list.ts';
import { writeVotersCsv } from '../../lab/synthetic/synthetic-voters.ts';

const integerOption = (name: string) => (value: string) => {
  if (!/^-?\d+$/.test(value.trim())) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value);
};

const numberOption = (name: string) => (value: string) => {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new Error(`${name} must be a number, got "${value}"`);
  return number;
};

/**
 * `listmatch generate voters|list`: synthetic voter files and contact lists with ground truth,
 * deterministic by seed (same arguments → byte-identical files).
 */
export function generateCommands(program: Command): void {
  const generate = program
    .command('generate')
    .description('synthetic voter files and contact lists with ground truth');
  generate
    .command('voters')
    .description('write a realistic synthetic voter file')
    .requiredOption('--rows <n>', 'number of voters', integerOption('--rows'))
    .option('--seed <s>', 'random seed (same seed → same file)', integerOption('--seed'), 1)
    .option('--states <list>', 'comma-separated state codes, e.g. NC,OH')
    .requiredOption('--out <path>', 'voter CSV to write')
    .action(async (options: { rows: number; seed: number; states?: string; out: string }) => {
      const started = Date.now();
      const states = options.states
        ?.split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const { rows } = await writeVotersCsv({
        rows: options.rows,
        seed: options.seed,
        ...(states ? { states } : {}),
        out: createWriteStream(options.out),
      });
      const seconds = (Date.now() - started) / 1000;
      console.error(
        `${rows} voters in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 0.001))} rows/s) → ${options.out}`,
      );
    });
  generate
    .command('list')
    .description('draw a contact list with a known error model from a voter file, and its truth')
    .requiredOption('--from <voters.csv>', 'voter file to draw members from')
    .requiredOption('--rows <n>', 'list rows', integerOption('--rows'))
    .requiredOption('--match-rate <r>', 'share of rows that are voters (0-1)', numberOption('--match-rate'))
    .requiredOption('--pattern <p>', `input pattern: ${PATTERNS.join(', ')}`)
    .option('--seed <s>', 'random seed (same seed → same files)', integerOption('--seed'), 1)
    .requiredOption('--out <list.csv>', 'contact list to write')
    .requiredOption('--truth <truth.csv>', 'ground truth to write (matchback_id → voterbase_id)')
    .action(
      async (options: {
        from: string;
        rows: number;
        matchRate: number;
        pattern: string;
        seed: number;
        out: string;
        truth: string;
      }) => {
        const report = await generateContactListFromFile({
          from: options.from,
          rows: options.rows,
          matchRate: options.matchRate,
          pattern: options.pattern as Pattern,
          seed: options.seed,
          out: options.out,
          truth: options.truth,
        });
        console.error(
          `${report.rows} rows: ${report.members} voters, ${report.nonMembers} non-members (${report.nearTwins} near-twins, ${report.traps} relatives as traps) → ${options.out}, truth → ${options.truth}`,
        );
      },
    );
}
