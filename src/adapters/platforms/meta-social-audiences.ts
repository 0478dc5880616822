import { readFileSync } from 'node:fs';
import { PlatformError } from '../../domain/ports/platform-error.ts';
import {
  type AddUsersResult,
  type AudienceReadiness,
  type AudienceStatus,
  type CreateAudienceRequest,
  SOCIAL_FIND_MAX_AUDIENCES,
  SOCIAL_MAX_BATCH_ROWS,
  SOCIAL_SCHEMA_KEYS,
  type SocialAudiences,
  type UploadSession,
  type UserBatch,
} from '../../domain/ports/social-audiences.ts';
import { classifyGraphError, type GraphErrorBody, TOO_MANY_PARAMETERS } from './meta-graph-errors.ts';
import { pacingDelayMs, parseGraphUsage, parseRetryAfter } from './meta-usage.ts';

export interface MetaSocialAudiencesOptions {
  /** `https://graph.facebook.com`, or a local server in tests. */
  graphUrl: string;
  /** Path segment `vNN.0`. */
  apiVersion: string;
  /** The operator's ad account, with or without `act_`. */
  adAccountId: string;
  /** The system user's token; a function so that a token file can be rotated without a restart. */
  accessToken: () => string;
  /** Limit of one HTTP call, answer body included. */
  timeoutMs: number;
  /** Waits (throttles, pacing, retry delays) longer than this are handed back to the job as errors. */
  maxInlineWaitMs?: number;
  /** Delays of the in-call retries of transient faults; their count is how many retries. */
  retryDelaysMs?: readonly number[];
  /** Usage-header pacing: no delay up to `startPct`, `maxDelayMs` at 100 %. */
  pacing?: { startPct: number; maxDelayMs: number };
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

interface GraphCall {
  method: 'GET' | 'POST';
  /** Below the version segment, without a leading slash. */
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /** Account named in client messages. */
  adAccountId: string | null;
  /** False for calls that must not be repeated when their answer was lost (creating an audience). */
  idempotent: boolean;
  signal: AbortSignal | undefined;
}

const AUDIENCE_STATUS_FIELDS =
  'approximate_count_lower_bound,approximate_count_upper_bound,operation_status,delivery_status';
/** Operation status codes of an audience still being built: unknown, updating, no upload yet, populating. */
const OPERATION_IN_PROGRESS = new Set([0, 300, 410, 441]);
const OPERATION_FLAGGED = 471;

/**
 * The social audiences port over the Meta Marketing API (Graph API, JSON bodies). The token goes
 * in the Authorization header only, so it is never part of a URL, and any message that could
 * carry it is redacted. Transient faults are retried here a few times; throttles are waited out
 * here when short; everything else becomes a PlatformError for the job to schedule. Pacing and
 * throttle state live in the instance: build one per process, shared by all jobs.
 */
export class MetaSocialAudiences implements SocialAudiences {
  readonly operatorAdAccountId: string;
  private readonly options: Required<Omit<MetaSocialAudiencesOptions, 'adAccountId'>>;
  private readonly base: string;
  /** Epoch ms before which the next call waits (pacing and throttles). */
  private nextCallAt = 0;
  private usagePct = 0;

  constructor(options: MetaSocialAudiencesOptions) {
    if (!/^v\d+\.\d+$/.test(options.apiVersion)) throw new Error('apiVersion must look like v24.0');
    this.operatorAdAccountId = adAccountDigits(options.adAccountId);
    this.options = {
      graphUrl: options.graphUrl,
      apiVersion: options.apiVersion,
      accessToken: options.accessToken,
      timeoutMs: options.timeoutMs,
      maxInlineWaitMs: options.maxInlineWaitMs ?? 60_000,
      retryDelaysMs: options.retryDelaysMs ?? [1_000, 5_000],
      pacing: options.pacing ?? { startPct: 50, maxDelayMs: 30_000 },
      sleep: options.sleep ?? sleep,
      now: options.now ?? Date.now,
    };
    this.base = `${options.graphUrl.replace(/\/+$/, '')}/${options.apiVersion}/`;
  }

  /** The highest usage percentage the platform reported on the last answer (for metrics and logs). */
  get lastUsagePct(): number {
    return this.usagePct;
  }

  /** See {@link SocialAudiences.createAudience}. */
  async createAudience(
    request: CreateAudienceRequest,
    signal?: AbortSignal,
  ): Promise<{ audienceId: string }> {
    const account = adAccountDigits(request.adAccountId);
    const answer = await this.call({
      method: 'POST',
      path: `act_${account}/customaudiences`,
      body: {
        name: request.name,
        description: request.description,
        subtype: 'CUSTOM',
        customer_file_source: request.customerFileSource,
      },
      adAccountId: account,
      idempotent: false,
      signal,
    });
    const id = (answer as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number')
      throw protocolError('create answered without an id');
    return { audienceId: String(id) };
  }

  /** See {@link SocialAudiences.findAudience}. */
  async findAudience(
    adAccountId: string,
    name: string,
    description: string,
    signal?: AbortSignal,
  ): Promise<{ audienceId: string } | null> {
    const account = adAccountDigits(adAccountId);
    const pageSize = 500;
    let after: string | null = null;
    for (let seen = 0; seen < SOCIAL_FIND_MAX_AUDIENCES; seen += pageSize) {
      const answer = (await this.call({
        method: 'GET',
        path: `act_${account}/customaudiences`,
        // Cursor paging by hand: the platform's `paging.next` links carry the token.
        query: {
          fields: 'id,name,description',
          limit: String(pageSize),
          ...(after === null ? {} : { after }),
        },
        adAccountId: account,
        idempotent: true,
        signal,
      })) as {
        data?: { id?: unknown; name?: unknown; description?: unknown }[];
        paging?: { cursors?: { after?: unknown }; next?: unknown };
      };
      const found = (answer.data ?? []).find(
        (audience) => audience.name === name && (audience.description ?? '') === description,
      );
      if (found !== undefined && (typeof found.id === 'string' || typeof found.id === 'number')) {
        return { audienceId: String(found.id) };
      }
      const cursor = answer.paging?.cursors?.after;
      if (answer.paging?.next === undefined || typeof cursor !== 'string') return null;
      after = cursor;
    }
    return null;
  }

  /** See {@link SocialAudiences.addUsers}. */
  async addUsers(
    audienceId: string,
    batch: UserBatch,
    session: UploadSession,
    signal?: AbortSignal,
  ): Promise<AddUsersResult> {
    checkBatch(batch, session);
    try {
      const result = await this.sendBatch(audienceId, batch.schema, batch.rows, session, signal);
      return { ...result, nextBatchSeq: session.batchSeq + 1 };
    } catch (error) {
      if (!(error instanceof PlatformError) || error.code !== TOO_MANY_PARAMETERS || batch.rows.length < 2) {
        throw error;
      }
    }
    // 105: the request was too large for the platform. Halve it once; a half refused again is fatal.
    const half = Math.ceil(batch.rows.length / 2);
    const first = await this.sendBatch(
      audienceId,
      batch.schema,
      batch.rows.slice(0, half),
      { ...session, lastBatch: false },
      signal,
    );
    const second = await this.sendBatch(
      audienceId,
      batch.schema,
      batch.rows.slice(half),
      { ...session, batchSeq: session.batchSeq + 1 },
      signal,
    );
    return {
      received: first.received + second.received,
      invalid: first.invalid + second.invalid,
      nextBatchSeq: session.batchSeq + 2,
    };
  }

  /** See {@link SocialAudiences.shareWith}. */
  async shareWith(
    audienceId: string,
    adAccountId: string,
    signal?: AbortSignal,
  ): Promise<{ alreadyShared: boolean }> {
    const account = adAccountDigits(adAccountId);
    const isShared = async () =>
      sharedAccounts(
        await this.call({
          method: 'GET',
          path: `${graphId(audienceId)}/adaccounts`,
          // One page that holds every share: the platform's `paging.next` links carry the token.
          query: { limit: '1000' },
          adAccountId: account,
          idempotent: true,
          signal,
        }),
      ).has(account);
    if (await isShared()) return { alreadyShared: true };
    try {
      await this.call({
        method: 'POST',
        path: `${graphId(audienceId)}/adaccounts`,
        body: { adaccounts: [account] },
        adAccountId: account,
        // Sharing twice fails rather than duplicates; the refusal is checked just below.
        idempotent: true,
        signal,
      });
    } catch (error) {
      // A share whose answer was lost in an earlier attempt, or made concurrently, is refused as
      // a repeat: if the account now holds it, the outcome the caller wanted is there.
      if (
        error instanceof PlatformError &&
        error.kind === 'fatal' &&
        error.code === 100 &&
        (await isShared())
      ) {
        return { alreadyShared: true };
      }
      throw error;
    }
    return { alreadyShared: false };
  }

  /** See {@link SocialAudiences.getStatus}. */
  async getStatus(audienceId: string, signal?: AbortSignal): Promise<AudienceStatus> {
    const answer = (await this.call({
      method: 'GET',
      path: graphId(audienceId),
      query: { fields: AUDIENCE_STATUS_FIELDS },
      adAccountId: null,
      idempotent: true,
      signal,
    })) as Record<string, unknown>;
    return audienceStatusOf(answer);
  }

  private async sendBatch(
    audienceId: string,
    schema: readonly string[],
    rows: readonly (readonly string[])[],
    session: UploadSession,
    signal: AbortSignal | undefined,
  ): Promise<{ received: number; invalid: number }> {
    const answer = (await this.call({
      method: 'POST',
      path: `${graphId(audienceId)}/users`,
      body: {
        payload: { schema, is_raw: true, data: rows },
        session: {
          session_id: session.sessionId,
          batch_seq: session.batchSeq,
          last_batch_flag: session.lastBatch,
          estimated_num_total: session.estimatedTotal,
        },
      },
      adAccountId: null,
      // Rows are a set and a batch may be sent again under its batch_seq.
      idempotent: true,
      signal,
    })) as { num_received?: unknown; num_invalid_entries?: unknown };
    // invalid_entry_samples holds the rejected values (PII): it is deliberately not read.
    const received = typeof answer.num_received === 'number' ? answer.num_received : 0;
    const invalid = typeof answer.num_invalid_entries === 'number' ? answer.num_invalid_entries : 0;
    if (received === 0) {
      throw new PlatformError(
        'fatal',
        `The social platform accepted none of the ${rows.length} rows of upload batch ${session.batchSeq} (${invalid} reported invalid); the upload was stopped.`,
      );
    }
    return { received, invalid };
  }

  /** One Graph call with pacing, in-call retries of transient faults, and short throttle waits. */
  private async call(call: GraphCall): Promise<unknown> {
    let retries = 0;
    let throttles = 0;
    for (;;) {
      await this.waitForTurn(call.signal);
      let error: PlatformError;
      try {
        return await this.send(call);
      } catch (failure) {
        if (!(failure instanceof PlatformError)) throw failure;
        error = failure;
      }
      if (error.kind === 'throttle') {
        // Every later call of this adapter waits too: the quotas are per app, account and business.
        this.nextCallAt = Math.max(this.nextCallAt, this.options.now() + (error.waitMs ?? 0));
      }
      if (error.kind === 'fatal' || (error.httpStatus === null && !call.idempotent)) throw error;
      const wait =
        error.kind === 'throttle'
          ? (error.waitMs ?? 0)
          : Math.max(error.waitMs ?? 0, this.options.retryDelaysMs[retries] ?? Number.POSITIVE_INFINITY);
      const allowed = error.kind === 'throttle' ? throttles < 2 : retries < this.options.retryDelaysMs.length;
      if (!allowed || wait > this.options.maxInlineWaitMs) throw error;
      if (error.kind === 'throttle') throttles += 1;
      else retries += 1;
      this.nextCallAt = Math.max(this.nextCallAt, this.options.now() + wait);
    }
  }

  /** Waits out pacing; a wait longer than the inline limit goes back to the job as a throttle. */
  private async waitForTurn(signal: AbortSignal | undefined): Promise<void> {
    const wait = this.nextCallAt - this.options.now();
    if (wait <= 0) return;
    if (wait > this.options.maxInlineWaitMs) {
      throw new PlatformError(
        'throttle',
        'The social platform is rate-limiting our calls; the upload resumes when it allows.',
        { waitMs: wait },
      );
    }
    await this.options.sleep(wait, signal);
  }

  private async send(call: GraphCall): Promise<unknown> {
    const url = new URL(call.path, this.base);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const token = this.options.accessToken();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal,
        redirect: 'error',
      });
      text = await response.text();
    } catch (failure) {
      if (call.signal?.aborted) throw call.signal.reason;
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs} ms` : describe(failure);
      throw new PlatformError('retry', 'The social platform did not answer; we will retry.', {
        cause: new Error(redact(`${call.method} ${url.pathname}: ${reason}`, token)),
      });
    }
    const usage = parseGraphUsage(response.headers);
    this.usagePct = usage.maxPct;
    const json = parseJson(text);
    if (response.ok && json !== undefined && !hasError(json)) {
      // Pacing follows successful answers; on a throttle the platform's own wait governs instead.
      const pace = pacingDelayMs(usage.maxPct, this.options.pacing);
      this.nextCallAt = Math.max(this.nextCallAt, this.options.now() + pace);
      return json;
    }
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.options.now());
    const hinted = Math.max(retryAfter ?? 0, usage.regainMs);
    const body = hasError(json) ? (json as { error: GraphErrorBody }).error : null;
    if (body === null && response.ok) throw protocolError('answered with something other than JSON');
    throw classifyGraphError(response.status, body, {
      adAccountId: call.adAccountId,
      waitMs: hinted > 0 ? hinted : null,
    });
  }
}

/**
 * The access token of a secret file, read at each call so that a rotated secret takes effect
 * without a restart; a file that cannot be read, or is empty, fails the call as a fatal platform
 * error.
 */
export const tokenFileReader =
  (path: string): (() => string) =>
  () =>
    readTokenFile(path);

function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new PlatformError('fatal', "The operator's social platform token file cannot be read.", {
      cause: new Error(`META_ACCESS_TOKEN_FILE: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`),
    });
  }
  if (token === '') throw new PlatformError('fatal', "The operator's social platform token file is empty.");
  return token;
}

/**
 * Release dates of recent Marketing API versions (Meta's changelog; approximate days). Unlike the
 * core Graph API's two years, a Marketing API version stops working 90 days after a newer one is
 * released, in practice about a year after its own release (v16.0: February 2023 → February
 * 2024). Unlisted versions cannot be judged.
 */
const GRAPH_VERSION_RELEASES: Readonly<Record<string, string>> = {
  'v20.0': '2024-05-21',
  'v21.0': '2024-10-02',
  'v22.0': '2025-01-21',
  'v23.0': '2025-05-29',
  'v24.0': '2025-10-08',
};
const VERSION_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/**
 * A warning for the operator's log when the pinned version expires within `warnDays` (or has),
 * else null. Startup logs it so that a version bump happens before calls start failing.
 */
export function graphVersionWarning(version: string, now = Date.now(), warnDays = 90): string | null {
  const released = GRAPH_VERSION_RELEASES[version];
  if (released === undefined) return null;
  const expires = Date.parse(released) + VERSION_LIFETIME_MS;
  const days = Math.floor((expires - now) / (24 * 3600 * 1000));
  if (days > warnDays) return null;
  const when = new Date(expires).toISOString().slice(0, 10);
  return days < 0
    ? `META_API_VERSION ${version} reached its expected end of life around ${when}; set a newer version`
    : `META_API_VERSION ${version} is expected to stop working around ${when} (${days} days); plan to set a newer version`;
}

/** The state of an audience from its status fields (platforms.md: 200 usable, 300 too small, 400+ unusable; 471 flagged). */
export function audienceStatusOf(fields: Record<string, unknown>): AudienceStatus {
  const operation = statusField(fields['operation_status']);
  const delivery = statusField(fields['delivery_status']);
  const lower = countField(fields['approximate_count_lower_bound']);
  const upper = countField(fields['approximate_count_upper_bound']);
  const approximateCount = lower === null || upper === null ? null : { lower, upper };
  const status = (readiness: AudienceReadiness, reason: string | null): AudienceStatus => ({
    readiness,
    approximateCount,
    operationCode: operation.code,
    deliveryCode: delivery.code,
    reason,
  });
  if (operation.code === OPERATION_FLAGGED) {
    return status('flagged', 'The social platform flagged this audience in its policy review (status 471).');
  }
  if (operation.code !== null && OPERATION_IN_PROGRESS.has(operation.code)) return status('processing', null);
  if (delivery.code === 200) return status('ready', null);
  if (delivery.code === 300) {
    return status(
      'too_small',
      'The audience has too few matched people for the social platform to deliver to.',
    );
  }
  if (delivery.code !== null && delivery.code >= 400) {
    const detail = delivery.description === null ? '' : `: ${delivery.description}`;
    return status(
      'unusable',
      `The social platform cannot deliver to this audience (status ${delivery.code}${detail}).`,
    );
  }
  return status('processing', null);
}

/** Account ids as the platform's share list and paths want them: digits, `act_` stripped. */
export function adAccountDigits(id: string): string {
  const digits = id.trim().replace(/^act_/, '');
  if (!/^\d{1,20}$/.test(digits)) {
    throw new PlatformError(
      'fatal',
      'The ad account id is not valid: it must be digits, optionally prefixed act_.',
    );
  }
  return digits;
}

/** The accounts an audience is shared with, from `GET /<id>/adaccounts` (ids or objects, paged). */
function sharedAccounts(answer: unknown): Set<string> {
  const data = (answer as { data?: unknown }).data;
  const ids = new Set<string>();
  if (!Array.isArray(data)) return ids;
  for (const entry of data) {
    const raw =
      typeof entry === 'string' || typeof entry === 'number'
        ? String(entry)
        : ((entry as { account_id?: unknown; id?: unknown } | null)?.account_id ??
          (entry as { id?: unknown } | null)?.id);
    if (typeof raw === 'string' || typeof raw === 'number') ids.add(String(raw).replace(/^act_/, ''));
  }
  return ids;
}

function checkBatch(batch: UserBatch, session: UploadSession): void {
  if (batch.rows.length === 0) throw new RangeError('a batch needs at least one row');
  if (batch.rows.length > SOCIAL_MAX_BATCH_ROWS) {
    throw new RangeError(`a batch holds at most ${SOCIAL_MAX_BATCH_ROWS} rows`);
  }
  const known = new Set<string>(SOCIAL_SCHEMA_KEYS);
  if (batch.schema.length === 0 || batch.schema.some((key) => !known.has(key))) {
    throw new RangeError('the schema names an unknown key');
  }
  if (batch.rows.some((row) => row.length !== batch.schema.length)) {
    throw new RangeError('every row needs one cell per schema key');
  }
  if (!Number.isSafeInteger(session.sessionId) || session.sessionId < 1 || session.batchSeq < 1) {
    throw new RangeError('session ids and batch numbers are positive integers');
  }
}

/** Audience ids are numeric; anything else must not become a path. */
function graphId(id: string): string {
  if (!/^\d{1,25}$/.test(id)) throw new PlatformError('fatal', 'The audience id is not valid.');
  return id;
}

function statusField(value: unknown): { code: number | null; description: string | null } {
  const record = (value ?? {}) as { code?: unknown; description?: unknown };
  return {
    code: typeof record.code === 'number' ? record.code : null,
    description:
      typeof record.description === 'string' && record.description.length <= 200 ? record.description : null,
  };
}

function countField(value: unknown): number | null {
  return typeof value === 'number' && value >= 0 ? value : null;
}

function hasError(json: unknown): boolean {
  return json !== null && typeof json === 'object' && 'error' in json;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function protocolError(what: string): PlatformError {
  return new PlatformError(
    'retry',
    `The social platform gave an unexpected answer (${what}); we will retry.`,
  );
}

/** A transport failure's message with its causes (undici puts the reason in `cause`). */
function describe(failure: unknown): string {
  const parts: string[] = [];
  let current: unknown = failure;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(': ') || String(failure);
}

function redact(text: string, token: string): string {
  return token.length === 0 ? text : text.split(token).join('[token]');
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
