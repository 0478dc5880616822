import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchOptions, benchOptions, DEFAULT_RUNS, PROFILE_DIR } from './benchmarks/options.ts';
import type { VoterFixture } from './benchmarks/voters.ts';
import { formatProfile, summarizeProfile } from './lib/cpuprofile-summary.ts';
import { log, ROOT } from './lib/processes.ts';
import { type BenchmarkOutcome, environment, markdownReport, Recorder } from './lib/report.ts';

/**
 * `npm run bench` /
 * `node bench/run-all.ts [poll|register|upload|generate|import|pipeline|match|match-threads|match10m|match20m|onboarding-normalize|onboarding-job|rate-limit|register-pg|poll-pg|scale-out|shards|national|lookups …] [--runs N] [--cpu-prof] [--strict]`
 *
 * Runs the selected benchmarks (all by default) one after the other, prints a Markdown table to
 * stdout (progress goes to stderr) and writes it with the raw figures to bench/out/latest.md and
 * bench/out/latest.json. upload, import, pipeline and onboarding-normalize (in process) repeat
 * their measured step `--runs` times (default 3) and report the median; poll and register are one
 * 10 s autocannon run each; rate-limit, register-pg and poll-pg need PostgreSQL (TEST_DATABASE_URL, else the local server);
 * scale-out and shards need it and the S3 test server (.ci/swift.sh). Each benchmark's module is
 * loaded only when it runs, so that one needing none of the development packages (national) runs
 * where only the production ones are installed.
 * `--cpu-prof` runs the service and CLI children under `node --cpu-prof` and summarizes the
 * profiles (bench/out/profiles). Exits 1 when a benchmark fails or a correctness check does not
 * hold; a missed performance target exits 1 only with `--strict`.
 */
const BENCHMARKS = [
  'poll',
  'register',
  'upload',
  'generate',
  'import',
  'pipeline',
  'match',
  'match-threads',
  'match10m',
  'match20m',
  'onboarding-normalize',
  'onboarding-job',
  'rate-limit',
  'register-pg',
  'poll-pg',
  'scale-out',
  'shards',
  'national',
  'lookups',
] as const;
type BenchmarkName = (typeof BENCHMARKS)[number];
const OUT_DIR = join(ROOT, 'bench', 'out');

const USAGE = `usage: node bench/run-all.ts [${BENCHMARKS.join('|')} …] [--runs N] [--cpu-prof] [--strict]`;

function parseArgs(argv: string[]) {
  const names: BenchmarkName[] = [];
  let cpuProf = false;
  let strict = false;
  let runs = DEFAULT_RUNS;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--cpu-prof') cpuProf = true;
    else if (arg === '--runs' || arg.startsWith('--runs=')) {
      const value = Number(arg === '--runs' ? argv[++i] : arg.slice('--runs='.length));
      if (!Number.isInteger(value) || value < 1 || value > 10) {
        console.error(`--runs must be an integer from 1 to 10\n${USAGE}`);
        process.exit(2);
      }
      runs = value;
    } else if (arg === '--strict') strict = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if ((BENCHMARKS as readonly string[]).includes(arg)) names.push(arg as BenchmarkName);
    else {
      console.error(`unknown benchmark or option "${arg}"\n${USAGE}`);
      process.exit(2);
    }
  }
  // Always in the canonical order (import before pipeline), each once.
  const selected = names.length === 0 ? [...BENCHMARKS] : BENCHMARKS.filter((name) => names.includes(name));
  return { selected, cpuProf, strict, runs };
}

async function summarizeProfiles(selected: BenchmarkName[]): Promise<Record<string, unknown>> {
  const summaries: Record<string, unknown> = {};
  const entries = await readdir(PROFILE_DIR, { withFileTypes: true }).catch(() => []);
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  for (const dir of dirs.sort()) {
    if (!selected.some((name) => dir.startsWith(`${name}-`))) continue;
    const files = (await readdir(join(PROFILE_DIR, dir))).filter((f) => f.endsWith('.cpuprofile'));
    for (const file of files) {
      const summary = summarizeProfile(join(PROFILE_DIR, dir, file));
      const text = formatProfile(summary, 30);
      await writeFile(
        join(PROFILE_DIR, dir, file.replace(/\.cpuprofile$/, '.txt')),
        `${dir}/${file}\n${text}\n`,
      );
      log(`cpu profile ${dir}/${file}:\n${formatProfile(summary, 15)}`);
      summaries[`${dir}/${file}`] = {
        file: join('bench', 'out', 'profiles', dir, file),
        totalMs: summary.totalMs,
        topSelf: [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, 20),
      };
    }
  }
  return summaries;
}

async function run(name: BenchmarkName, options: BenchOptions, fixture: () => Promise<VoterFixture>) {
  const recorder = new Recorder(name);
  const started = performance.now();
  log(`--- ${name}`);
  try {
    switch (name) {
      case 'poll':
        await (await import('./benchmarks/http-load.ts')).pollBenchmark(recorder, options);
        break;
      case 'register':
        await (await import('./benchmarks/http-load.ts')).registerBenchmark(recorder, options);
        break;
      case 'upload':
        await (await import('./benchmarks/upload.ts')).uploadBenchmark(recorder, options);
        break;
      case 'generate':
        await (await import('./benchmarks/generate.ts')).generateBenchmark(recorder, options);
        break;
      case 'import':
        await (await import('./benchmarks/voters.ts')).importBenchmark(recorder, options, await fixture());
        break;
      case 'pipeline':
        await (await import('./benchmarks/voters.ts')).pipelineBenchmark(recorder, options, await fixture());
        break;
      case 'match':
        await (await import('./benchmarks/matching.ts')).matchBenchmark(recorder, options, await fixture());
        break;
      case 'match-threads':
        await (await import('./benchmarks/match-threads.ts')).matchThreadsBenchmark(
          recorder,
          options,
          await fixture(),
        );
        break;
      case 'match10m':
        await (await import('./benchmarks/matching.ts')).match10mBenchmark(recorder, options);
        break;
      case 'match20m':
        await (await import('./benchmarks/matching.ts')).match20mBenchmark(recorder, options);
        break;
      case 'onboarding-normalize':
        await (await import('./benchmarks/onboarding-normalize.ts')).onboardingNormalizeBenchmark(
          recorder,
          options,
        );
        break;
      case 'onboarding-job':
        await (await import('./benchmarks/onboarding-job.ts')).onboardingJobBenchmark(
          recorder,
          options,
          await fixture(),
        );
        break;
      case 'rate-limit':
        await (await import('./benchmarks/rate-limit.ts')).rateLimitBenchmark(recorder, options);
        break;
      case 'register-pg':
        await (await import('./benchmarks/scale-out.ts')).registerPgBenchmark(recorder, options);
        break;
      case 'poll-pg':
        await (await import('./benchmarks/scale-out.ts')).pollPgBenchmark(recorder, options);
        break;
      case 'scale-out':
        await (await import('./benchmarks/scale-out.ts')).scaleOutBenchmark(recorder, options);
        break;
      case 'national':
        await (await import('./benchmarks/national.ts')).nationalBenchmark(recorder, options);
        break;
      case 'shards':
        await (await import('./benchmarks/voter-shards.ts')).voterShardsBenchmark(recorder, options);
        break;
      case 'lookups':
        await (await import('./benchmarks/lookups.ts')).lookupsBenchmark(recorder, options, await fixture());
        break;
    }
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    recorder.error(error);
  }
  const outcome: BenchmarkOutcome = {
    name,
    rows: recorder.rows,
    raw: recorder.raw,
    durationMs: performance.now() - started,
  };
  log(`${name} done in ${(outcome.durationMs / 1000).toFixed(1)} s`);
  return outcome;
}

const { selected, cpuProf, strict, runs } = parseArgs(process.argv.slice(2));
const options = benchOptions(cpuProf, runs);
const env = environment();
const startedAt = new Date();
log(`node ${env.node}, ${env.cpuModel}, ${env.cores} cores; running ${selected.join(', ')} (runs ${runs})`);
if (cpuProf) {
  for (const name of selected) {
    for (const role of ['server', 'cli']) {
      await rm(join(PROFILE_DIR, `${name}-${role}`), { recursive: true, force: true });
    }
  }
}

const outcomes: BenchmarkOutcome[] = [];
let fixture: VoterFixture | null = null;
try {
  for (const name of selected) {
    outcomes.push(
      await run(
        name,
        options,
        async () => (fixture ??= await (await import('./benchmarks/voters.ts')).VoterFixture.create()),
      ),
    );
  }
} finally {
  await (fixture as VoterFixture | null)?.remove();
}
let profiles: Record<string, unknown> | undefined;
if (cpuProf) {
  try {
    profiles = await summarizeProfiles(selected);
  } catch (error) {
    log(`could not summarize the cpu profiles: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const markdown = markdownReport(env, outcomes, startedAt, runs);
process.stdout.write(markdown);
await mkdir(OUT_DIR, { recursive: true });
await writeFile(join(OUT_DIR, 'latest.md'), markdown);
await writeFile(
  join(OUT_DIR, 'latest.json'),
  `${JSON.stringify(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      environment: env,
      selected,
      runs,
      results: outcomes,
      ...(profiles === undefined ? {} : { profiles }),
    },
    null,
    2,
  )}\n`,
);
log(`wrote ${join('bench', 'out', 'latest.md')} and ${join('bench', 'out', 'latest.json')}`);

const rows = outcomes.flatMap((outcome) => outcome.rows);
const broken = rows.some((row) => row.pass === false && row.kind !== 'metric');
const missed = rows.some((row) => row.pass === false && row.kind === 'metric');
process.exitCode = broken || (strict && missed) ? 1 : 0;
