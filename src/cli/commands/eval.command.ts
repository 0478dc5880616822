import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { createDeterministicMatcher } from '../../domain/matching/deterministic-matcher.ts';
import type { ListFit } from '../../domain/matching/matcher.ts';
import { F, L } from '../../domain/matching/score/comparison-levels.ts';
import { at } from '../../domain/matching/score/fellegi-sunter.ts';
import { renderTextTable } from '../../domain/reports/report-tables.ts';
import { runNcvrEvaluation } from '../../lab/evaluation/ncvr.ts';
import {
  oracleTable,
  type ReportContext,
  renderHtmlReport,
  renderTextReport,
} from '../../lab/evaluation/report.ts';
import { type EvaluationResult, runEvaluation } from '../../lab/evaluation/run-evaluation.ts';
import type { CliContext } from '../cli-context.ts';

interface EvalOptions {
  voters?: string;
  list?: string;
  truth?: string;
  maxMatches: string;
  report?: string;
  result?: string;
  json?: boolean;
  dir: string;
  threshold?: string;
  matcher: string;
  candidates?: boolean;
  oracle?: boolean;
}

/** Default place of the NC benchmark: beside the repository, as the issue describes it. */
export const DEFAULT_NCVR_DIR = '../shared/data/ncvr-dev';

/**
 * `listmatch eval --voters V --list L --truth T`: scores the worker's pipeline against ground
 * truth. `listmatch eval ncvr [--dir D]`: the same on the North Carolina benchmark. Both run in a
 * scratch data directory (never DATA_DIR), print the tables (or JSON) and optionally write the
 * HTML report.
 */
export function evalCommand(program: Command, _context: CliContext): void {
  program
    .command('eval [benchmark]')
    .description(
      'measure match quality: import a voter file into a scratch directory, match a list with the worker pipeline and score it against the truth; "eval ncvr" runs the North Carolina benchmark',
    )
    .option('--voters <path>', 'voter file CSV')
    .option('--list <path>', 'list CSV with a matchback_id column')
    .option('--truth <path>', 'truth CSV: matchback_id,voterbase_id[,pattern,errors]')
    .option('--max-matches <k>', 'matches per row, 1-10 (the depth of recall@k)', '1')
    .option(
      '--matcher <name>',
      "probabilistic (the service's) or deterministic (ids only, the baseline)",
      'probabilistic',
    )
    .option(
      '--threshold <score>',
      "lowest accepted score, 0-100 (default: the matcher's); 0 with --max-matches 10 measures the candidate stage alone",
    )
    .option(
      '--candidates',
      'measure the candidate stage alone: rank every candidate by score, no threshold or corroboration (use with --max-matches 10)',
    )
    .option('--report <path>', 'also write the HTML report here')
    .option(
      '--result <path>',
      "also write the pipeline's result CSV here (rows with sm.explain, to read beside the truth)",
    )
    .option(
      '--oracle',
      'also measure the oracle ceiling per error tag: member rows that another voter fits as well as their own on every field (a second, candidates-only run)',
    )
    .option('--json', 'print the result as JSON instead of tables')
    .option('--dir <path>', 'with "ncvr": the benchmark folder (A.csv, B.csv)', DEFAULT_NCVR_DIR)
    .action(async (benchmark: string | undefined, options: EvalOptions) => {
      const maxMatches = Number(options.maxMatches);
      if (!Number.isInteger(maxMatches) || maxMatches < 1 || maxMatches > 10) {
        throw new Error('--max-matches must be an integer from 1 to 10');
      }
      const threshold = options.threshold === undefined ? undefined : Number(options.threshold);
      if (threshold !== undefined && !(threshold >= 0 && threshold <= 100)) {
        throw new Error('--threshold must be a number from 0 to 100');
      }
      if (options.matcher !== 'probabilistic' && options.matcher !== 'deterministic') {
        throw new Error(`--matcher must be probabilistic or deterministic, not "${options.matcher}"`);
      }
      const matcherFactory = options.matcher === 'deterministic' ? createDeterministicMatcher : undefined;
      const matcherOptions = {
        ...(threshold === undefined ? {} : { thresholdScore: threshold }),
        ...(options.candidates ? { rankOnly: true } : {}),
      };
      if (benchmark !== undefined && benchmark !== 'ncvr') {
        throw new Error(
          `unknown benchmark "${benchmark}"; the one known is ncvr (or give --voters, --list, --truth)`,
        );
      }
      if (benchmark === 'ncvr') {
        const given = (['voters', 'list', 'truth'] as const).filter((o) => options[o] !== undefined);
        if (given.length > 0)
          throw new Error(`eval ncvr takes no --${given.join(', --')}; it reads them from --dir`);
        const dir = resolve(options.dir);
        const started = Date.now();
        const result = await runNcvrEvaluation({
          dir,
          maxMatches,
          matcherFactory,
          matcherOptions,
          ...(options.result === undefined ? {} : { resultCopy: resolve(options.result) }),
        });
        if (result.skipped) {
          console.log(
            `eval ncvr: skipped: ${result.reason} (pass --dir with the folder that holds A.csv and B.csv)`,
          );
          return;
        }
        const context: ReportContext = {
          title: 'listmatch evaluation: North Carolina voter benchmark (ncvr-dev)',
          facts: [
            ['benchmark', dir],
            ['voter file (A)', `${result.voterRows} rows`],
            ['list (B)', `${result.listRows} rows, ${result.members} with a true match in A`],
            ...commonFacts(result, maxMatches),
            ['total time', `${((Date.now() - started) / 1000).toFixed(1)} s`],
          ],
        };
        await output(result, context, options);
        return;
      }
      const missing = (['voters', 'list', 'truth'] as const).filter((o) => options[o] === undefined);
      if (missing.length > 0) {
        throw new Error(`eval needs --${missing.join(', --')} (or "eval ncvr" for the NC benchmark)`);
      }
      const result = await runEvaluation({
        votersPath: options.voters!,
        listPath: options.list!,
        truthPath: options.truth!,
        maxMatches,
        matcherFactory,
        matcherOptions,
        oracle: options.oracle ?? false,
        ...(options.result === undefined ? {} : { resultCopy: resolve(options.result) }),
      });
      const context: ReportContext = {
        title: `listmatch evaluation: ${basename(options.list!)}`,
        facts: [
          ['voter file', `${options.voters} (${result.voterImport.imported} rows imported)`],
          ['list', `${options.list} (${result.pipeline.rows} rows)`],
          ['truth', options.truth!],
          ...commonFacts(result, maxMatches),
        ],
      };
      await output(result, context, options);
    });
}

function commonFacts(result: EvaluationResult, maxMatches: number): [string, string][] {
  const t = result.timings;
  const facts: [string, string][] = [
    ['matcher', result.matcher],
    ['max matches', String(maxMatches)],
    ['import', `${t.importRows} rows in ${t.importSeconds.toFixed(2)} s (${t.importRowsPerSecond} rows/s)`],
    ['match', `${t.matchRows} rows in ${t.matchSeconds.toFixed(2)} s (${t.matchRowsPerSecond} rows/s)`],
  ];
  if (result.fit !== undefined) facts.push(['list fit', describeFit(result.fit)]);
  const j = result.join;
  if (j.rowsWithoutTruth + j.truthWithoutRow + j.duplicateMatchbackIds > 0) {
    facts.push([
      'not scored',
      `${j.rowsWithoutTruth} list rows without truth, ${j.truthWithoutRow} truth rows not in the list, ${j.duplicateMatchbackIds} repeated matchback_ids`,
    ]);
  }
  if (result.voterImport.rejected > 0) {
    facts.push(['voter rows rejected', JSON.stringify(result.voterImport.rejectedByReason)]);
  }
  return facts;
}

async function output(result: EvaluationResult, context: ReportContext, options: EvalOptions): Promise<void> {
  if (options.report) await writeFile(options.report, renderHtmlReport(result.metrics, context));
  if (options.json) console.log(JSON.stringify({ ...result, report: options.report ?? null }, null, 2));
  else {
    console.log(renderTextReport(result.metrics, context).trimEnd());
    if (result.oracle !== undefined)
      console.log(`\n${renderTextTable(oracleTable(result.metrics, result.oracle)).trimEnd()}`);
    if (options.report) console.log(`\nreport written to ${options.report}`);
  }
}

/**
 * The fit's match rate, relatives' share of non-members, how often a first name or a surname
 * differs, and the share of its persons whose phone or e-mail a stranger holds.
 */
function describeFit(fit: ListFit): string {
  const chance = (value: number | null | undefined) => (value == null ? 'n/a' : value.toPrecision(2));
  const share = (odds: number) => (odds / (1 + odds)).toFixed(3);
  const m = (field: number, level: number) => (fit.m[at(field, level)] ?? 0).toFixed(3);
  return [
    `match rate ${share(fit.priorMatchOdds)}`,
    `relatives among non-members ${fit.relativeOdds === undefined ? 'n/a' : share(fit.relativeOdds)}`,
    `the possible band right ${fit.possibleOdds === undefined ? 'n/a' : share(fit.possibleOdds)}`,
    `m(first differs) ${m(F.first, L.first.differ)}`,
    `m(surname differs) ${m(F.last, L.last.differ)}`,
    `strangers holding a phone ${chance(fit.chance?.phone)}, an e-mail ${chance(fit.chance?.email)}`,
    `(${fit.source}, ${fit.emIterations} iterations)`,
  ].join(', ');
}
