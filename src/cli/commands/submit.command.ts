import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Command } from 'commander';
import {
  ListmatchClient,
  ListmatchError,
  type PollAnswer,
  type SmartmatchParams,
} from '../../client/index.ts';
import { ProgressLine } from '../progress-line.ts';
import { joinResult } from './join-result.ts';

/**
 * `listmatch submit` and `listmatch audience submit`: the client's side of the service, on the
 * typed client (src/client/). The list is streamed from disk to the upload URL and the result from
 * the download URL to disk (memory does not grow with the list); the join reads the list and the
 * result side by side, both in input order.
 */

/** Exit codes: the kind of the service's error text, so scripts can tell them apart. */
export const EXIT_CODES = {
  /** A usage error, a file that cannot be read or written, a service that cannot be reached. */
  local: 1,
  validation: 2,
  authorization: 3,
  rate_limit: 4,
  internal: 5,
} as const;

/** Longest pause between polls: the service allows one per key and filename every 30 s. */
const POLL_SECONDS = 30;
/** Slack added to each wait, so that a client clock running fast is not refused. */
const POLL_SLACK_MS = 500;

interface ServerOptions {
  server: string;
  keyFile?: string;
  progress?: boolean;
}

/** The API key: `LISTMATCH_API_KEY`, else the first line of `--key-file`; never a command-line value. */
async function apiKeyOf(options: ServerOptions): Promise<string> {
  if (options.keyFile !== undefined) {
    const key = (await readFile(options.keyFile, 'utf8')).split(/\r?\n/)[0]?.trim() ?? '';
    if (key === '') throw new UsageError(`${options.keyFile} holds no API key`);
    return key;
  }
  const key = process.env['LISTMATCH_API_KEY']?.trim();
  if (!key) throw new UsageError('no API key: set LISTMATCH_API_KEY, or give --key-file PATH');
  return key;
}

export class UsageError extends Error {}

/** A filename the service accepts, from the list's file name (`Members 2026.csv` → `Members_2026`). */
export function filenameOf(path: string): string {
  const name = basename(path)
    .replace(/\.csv$/i, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[.-]+/, '')
    .replace(/\.\.+/g, '.')
    .slice(0, 45);
  return name === '' ? 'list' : name;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1);

function bar(fraction: number, width = 24): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** Streams a file to an upload URL, showing its progress; answers bytes and seconds. */
async function uploadFile(
  client: ListmatchClient,
  url: string,
  path: string,
  line: ProgressLine,
): Promise<{ bytes: number; seconds: number }> {
  const { size } = await stat(path);
  const started = performance.now();
  await client.uploadFile(url, path, {
    onBytes: (sent) => {
      const seconds = (performance.now() - started) / 1000;
      line.show(
        `upload ${bar(size === 0 ? 1 : sent / size)} ${mb(sent)}/${mb(size)} MB  ${mb(sent / Math.max(seconds, 0.001))} MB/s`,
      );
    },
  });
  const seconds = (performance.now() - started) / 1000;
  line.show(`upload ${bar(1)} ${mb(size)}/${mb(size)} MB  ${mb(size / Math.max(seconds, 0.001))} MB/s`, true);
  return { bytes: size, seconds };
}

function describePoll(answer: PollAnswer): string {
  const progress = answer.progress;
  const status = answer.status ?? 'processing';
  if (progress === undefined) return `job ${status}`;
  const fraction =
    progress.bytes_total !== null && progress.bytes_total > 0
      ? progress.bytes_read / progress.bytes_total
      : 0;
  const rows = progress.rows_matched.toLocaleString('en-US');
  return `job ${status} ${bar(status === 'complete' ? 1 : fraction)} ${rows} rows matched${progress.rows_total === null ? '' : ` of ${progress.rows_total.toLocaleString('en-US')}`}`;
}

/** Polls until the result is ready, within the rate limit; answers the download URL. */
async function pollUntilReady(
  client: ListmatchClient,
  filename: string,
  line: ProgressLine,
  intervalSeconds: number,
): Promise<PollAnswer> {
  for (;;) {
    let wait = intervalSeconds * 1000;
    try {
      const answer = await client.poll(filename);
      line.show(describePoll(answer), answer.url !== null && answer.url !== '');
      if (answer.url !== null && answer.url !== '') return answer;
    } catch (error) {
      // A poll too early is no failure of the job: wait as long as the service says.
      if (!(error instanceof ListmatchError) || error.kind !== 'rate_limit') throw error;
      wait = (error.retryAfterSeconds ?? intervalSeconds) * 1000;
    }
    await new Promise((resolve) => setTimeout(resolve, wait + POLL_SLACK_MS));
  }
}

/** The output file's default name for a format. */
const resultNameOf = (filename: string, format: SmartmatchParams['format']) =>
  `${filename}.result${format === 'gzip' ? '.csv.gz' : format === 'zip' ? '.zip' : '.csv'}`;

/**
 * The join (join-result.ts) on this thread: the command runs with 2 MB semi-spaces (bin/listmatch.js),
 * so the join's short-lived strings by the million stay in a small young generation; a thread of its
 * own cost another V8 heap and another load of the CSV code (some 60 MB of peak RSS on 1M rows).
 */
async function joinFiles(input: { listPath: string; resultPath: string; gzip: boolean; outPath: string }) {
  const source = createReadStream(input.resultPath);
  const out = createWriteStream(input.outPath);
  // A file that cannot be read or written fails the join with its error (on its own thread, the
  // error ended the thread; here an unheard stream error would end the command uncaught).
  const failed = new Promise<never>((_, reject) => {
    source.once('error', reject);
    out.once('error', reject);
  });
  try {
    return await Promise.race([
      joinResult(input.listPath, input.gzip ? source.pipe(createGunzip()) : source, out),
      failed,
    ]);
  } finally {
    source.destroy();
  }
}

/** Runs a command's body, printing the service's error text and exiting with its kind's code. */
async function reportingExit(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof ListmatchError) {
      console.error(error.message);
      process.exitCode = EXIT_CODES[error.kind];
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    console.error(`listmatch: ${message}${cause?.code ? ` (${cause.code})` : ''}`);
    process.exitCode = EXIT_CODES.local;
  }
}

const positiveNumber = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new UsageError(`${name} must be a number of seconds`);
  return number;
};

function serverOptions(command: Command): Command {
  return command
    .requiredOption('--server <url>', 'the service, e.g. http://localhost:8080')
    .option('--key-file <path>', 'file whose first line is the API key (else LISTMATCH_API_KEY)')
    .option('--progress', 'show progress on stderr also when it is not a terminal')
    .option('--no-progress', 'show no progress');
}

export function submitCommands(program: Command): void {
  serverOptions(
    program
      .command('submit')
      .description(
        'match a list on a listmatch service: register, upload, poll, download (and --join); exit codes: 2 validation, 3 authorization, 4 rate limit, 5 internal, 1 local',
      )
      .argument('<list>', 'the contact list (CSV)'),
  )
    .option('--filename <name>', 'the job name and poll key (default: from the list file name)')
    .option('--max-matches <n>', 'matches per input row, 1-10', '1')
    .option('--format <format>', 'csv, zip or gzip', 'csv')
    .option('--include-email', 'append e-mail values')
    .option('--include-landline', 'append landline phone values')
    .option('--include-wireless', 'append wireless phone values')
    .option('--include-voip', 'append VoIP phone values')
    .option('--webhook <url>', 'POSTed {"callback": url} on completion')
    .option('--search-radius <miles>', 'one search radius for every row')
    .option('--notification-email <address>', 'receives processing notifications')
    .option('--mbp-onboarding', 'build a media buying platform audience from the matches')
    .option('--digital-audience-name <name>', 'that audience name')
    .option('--profile-id <id>', 'a configuration profile of the key')
    .option('--out <path>', 'where the result goes (default: <filename>.result.<csv|csv.gz|zip>)')
    .option('--join <path>', "write the list's rows with the appended columns here (format csv or gzip)")
    .option(
      '--poll-interval <seconds>',
      'seconds between polls',
      positiveNumber('--poll-interval'),
      POLL_SECONDS,
    )
    .action(async (listPath: string, options: Record<string, unknown> & ServerOptions) => {
      await reportingExit(async () => {
        const format = String(options['format']) as SmartmatchParams['format'];
        if (options['join'] !== undefined && format === 'zip') {
          throw new UsageError('--join reads a csv or gzip result: use --format csv or --format gzip');
        }
        const client = new ListmatchClient({ server: options.server, apiKey: await apiKeyOf(options) });
        const filename = (options['filename'] as string | undefined) ?? filenameOf(listPath);
        const line = new ProgressLine(options.progress);
        await stat(listPath);
        const params: SmartmatchParams = {
          filename,
          max_matches: Number(options['maxMatches']),
          ...(format === undefined ? {} : { format }),
          ...(options['includeEmail'] ? { include_email: true } : {}),
          ...(options['includeLandline'] ? { include_landline: true } : {}),
          ...(options['includeWireless'] ? { include_wireless: true } : {}),
          ...(options['includeVoip'] ? { include_voip: true } : {}),
          ...(options['webhook'] === undefined ? {} : { webhook: String(options['webhook']) }),
          ...(options['searchRadius'] === undefined
            ? {}
            : { search_radius: Number(options['searchRadius']) }),
          ...(options['notificationEmail'] === undefined
            ? {}
            : { notification_email: String(options['notificationEmail']) }),
          ...(options['mbpOnboarding'] ? { mbp_onboarding: true } : {}),
          ...(options['digitalAudienceName'] === undefined
            ? {}
            : { digital_audience_name: String(options['digitalAudienceName']) }),
          ...(options['profileId'] === undefined ? {} : { profile_id: String(options['profileId']) }),
        };
        const uploadUrl = await client.registerSmartmatch(params);
        line.show(`registered ${filename}`);
        const sent = await uploadFile(client, uploadUrl, listPath, line);
        const ready = await pollUntilReady(client, filename, line, Number(options['pollInterval']));
        line.done();
        const out = (options['out'] as string | undefined) ?? resultNameOf(filename, format);
        await client.downloadFile(ready.url!, out);
        let joined = '';
        if (options['join'] !== undefined) {
          const { rows } = await joinFiles({
            listPath,
            resultPath: out,
            gzip: format === 'gzip',
            outPath: String(options['join']),
          });
          joined = `; ${rows.toLocaleString('en-US')} joined rows in ${String(options['join'])}`;
        }
        const rows = ready.progress?.rows_total;
        console.error(
          `${filename}: ${rows === null || rows === undefined ? '' : `${rows.toLocaleString('en-US')} rows, `}uploaded ${mb(sent.bytes)} MB at ${mb(sent.bytes / Math.max(sent.seconds, 0.001))} MB/s; result in ${out}${joined}`,
        );
      });
    });
}

/** `listmatch audience submit`: onboarding from the client's side. */
export function audienceCommands(program: Command): void {
  const audience = program.command('audience').description('audience onboarding, from the client side');
  serverOptions(
    audience
      .command('submit')
      .description(
        'build an audience on a listmatch service: register, then upload the ids (CSV with voterbase_id, or Pattern #2 PII); exit codes as submit',
      )
      .argument('<list>', 'the CSV to onboard'),
  )
    .requiredOption('--platform <platform>', 'social or politicaldsp')
    .requiredOption('--audience <name>', 'the audience name (1-50 letters, digits, _)')
    .requiredOption('--status-email <address>', 'receives status updates')
    .option('--social-adid <id>', 'the ad account the audience is shared with (social)')
    .option('--owner-adid <id>', 'the ad account approved for direct upload (Pattern #2)')
    .action(async (listPath: string, options: Record<string, unknown> & ServerOptions) => {
      await reportingExit(async () => {
        const client = new ListmatchClient({ server: options.server, apiKey: await apiKeyOf(options) });
        const line = new ProgressLine(options.progress);
        await stat(listPath);
        const url = await client.registerOnboarding({
          platform: String(options['platform']) as 'social' | 'politicaldsp',
          audience: String(options['audience']),
          status_email: String(options['statusEmail']),
          ...(options['socialAdid'] === undefined ? {} : { social_adid: String(options['socialAdid']) }),
          ...(options['ownerAdid'] === undefined ? {} : { owner_adid: String(options['ownerAdid']) }),
        });
        const sent = await uploadFile(client, url, listPath, line);
        line.done();
        console.error(
          `${String(options['audience'])}: uploaded ${mb(sent.bytes)} MB; the audience is being built (${String(options['statusEmail'])} hears each step)`,
        );
      });
    });
}
