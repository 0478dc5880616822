import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Graph API server that follows the custom-audience contract of platforms.md and checks
 * every request the way the platform does: the version path, the token, the `act_` prefix,
 * `subtype=CUSTOM`, a valid `customer_file_source`, schema keys from the allowed list, cells that
 * are `""` or lowercase hex SHA-256 (never the hash of ""; MADID in clear), at most 10,000 rows,
 * the session sequence (from 1, no gaps, nothing new after the last batch, repeats taken as
 * retries), and share idempotency (sharing twice is an error, as on the platform).
 * It keeps state (audiences, members, sessions, shares), answers in the platform's shapes, and
 * injects the documented faults. Violations answer code 100 with a message naming the rule and
 * never a value, so a failing test shows what the adapter did wrong.
 */

export const ALLOWED_KEYS = new Set([
  'EXTERN_ID',
  'EMAIL',
  'PHONE',
  'GEN',
  'DOBY',
  'DOBM',
  'DOBD',
  'LN',
  'FN',
  'FI',
  'CT',
  'ST',
  'ZIP',
  'MADID',
  'COUNTRY',
]);
const FILE_SOURCES = new Set([
  'USER_PROVIDED_ONLY',
  'PARTNER_PROVIDED_ONLY',
  'BOTH_USER_AND_PARTNER_PROVIDED',
]);
const SHA256_OF_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const HASH = /^[0-9a-f]{64}$/;
export const MAX_ROWS = 10_000;

/** Which kind of call a fault hits. */
export type FakeOperation =
  | 'create'
  | 'users'
  | 'shares'
  | 'share'
  | 'status'
  | 'sessions'
  | 'delete'
  | 'list';

export interface Fault {
  on: FakeOperation | 'any';
  /** How many matching calls it answers (default 1). */
  times?: number;
  /**
   * Matching calls it lets through (handled as usual) before it starts answering (default 0): a
   * fault later in an upload, after some batches went in.
   */
  after?: number;
  status?: number;
  /** The Graph error object. */
  error?: { code: number; error_subcode?: number; message?: string; type?: string };
  /** A non-JSON body (a proxy's 502 page). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Answer with this JSON (status 200 unless given) instead of handling the call. */
  body?: unknown;
  /** `users` only: check and accept the batch, then answer `num_received: 0` without storing it. */
  silentRejection?: boolean;
}

export interface FakeSession {
  lastSeq: number;
  finished: boolean;
  received: number;
  invalid: number;
  estimatedTotal: number | null;
}

export interface FakeAudience {
  id: string;
  adAccountId: string;
  name: string;
  description: string;
  customerFileSource: string;
  /** Digests of the distinct rows received: the fake's stand-in for matched people. */
  members: Set<string>;
  sharedWith: Set<string>;
  sessions: Map<number, FakeSession>;
  operationCode: number;
  deliveryCode: number;
  /** Status reads left while a finished upload is still "updating". */
  updatingReads: number;
}

export interface RecordedRequest {
  method: string;
  /** Path and query as received (the adapter must never put the token there). */
  url: string;
  operation: FakeOperation | null;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
  /** The answer's HTTP status. */
  status: number;
}

export interface FakeMetaGraphOptions {
  version?: string;
  token?: string;
  /** Ad accounts (digits) the system user can manage; others answer 100/33. */
  adAccounts?: string[];
  /** Ad accounts whose business has not accepted the custom audience terms (2655). */
  termsNotAccepted?: string[];
  /** Answer 105 (too many parameters) for batches of more rows than this (default: never). */
  tooManyParametersAbove?: number;
  /** Status reads an audience stays "updating" (operation 300) after its last batch (default 1). */
  updatingReads?: number;
  /** Fewest members for delivery status 200 (the platform's own floor is about 100; default 1). */
  minimumDeliverySize?: number;
}

export interface FakeMetaGraph {
  url: string;
  version: string;
  token: string;
  audiences: Map<string, FakeAudience>;
  requests: RecordedRequest[];
  /**
   * Queues a fault; faults are consumed in the order they were added (one still letting calls
   * through, `after`, holds back those behind it).
   */
  inject(fault: Fault): void;
  /** Usage percentages reported on every answer (x-app-usage, x-ad-account-usage, x-business-use-case-usage). */
  usage: { app: number; adAccount: number; business: number };
  /** Marks an audience as flagged by policy review (operation status 471). */
  flag(audienceId: string): void;
  /** Makes the current token invalid (190, subcode 463: expired). */
  expireToken(): void;
  close(): Promise<void>;
}

/** Throttle answer as the platform gives it: error code, usage at 100 %, Retry-After, regain time. */
export function throttleFault(
  code: 4 | 17 | 613 | 80003 | 80004,
  options: { on?: Fault['on']; retryAfterSeconds?: number; regainMinutes?: number; times?: number } = {},
): Fault {
  const headers: Record<string, string> = {
    'x-business-use-case-usage': JSON.stringify({
      '1234567890': [
        {
          type: 'custom_audience',
          call_count: 100,
          total_cputime: 40,
          total_time: 60,
          estimated_time_to_regain_access: options.regainMinutes ?? 0,
        },
      ],
    }),
    'x-ad-account-usage': JSON.stringify({ acc_id_util_pct: 100, reset_time_duration: 0 }),
    'x-app-usage': JSON.stringify({ call_count: 100, total_time: 30, total_cputime: 30 }),
  };
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  return {
    on: options.on ?? 'users',
    times: options.times ?? 1,
    status: 400,
    error: {
      code,
      ...(code === 80003 ? { error_subcode: 2446079 } : {}),
      message:
        code === 80003
          ? 'There have been too many calls to this ad-account. Wait a bit and try again.'
          : 'User request limit reached',
      type: 'OAuthException',
    },
    headers,
  };
}

export const serverErrorFault = (status = 500, on: Fault['on'] = 'users', times = 1): Fault =>
  status === 502
    ? { on, times, status, rawBody: '<html><body>502 Bad Gateway</body></html>' }
    : {
        on,
        times,
        status,
        error: { code: 2, message: 'An unexpected error has occurred. Please retry your request later.' },
      };

export const tokenFault = (on: Fault['on'] = 'any'): Fault => ({
  on,
  status: 400,
  error: { code: 190, error_subcode: 463, message: 'Error validating access token: Session has expired.' },
});

export const termsFault = (on: Fault['on'] = 'users'): Fault => ({
  on,
  status: 400,
  error: { code: 2655, message: 'Custom Audience terms not accepted.' },
});

export async function startFakeMetaGraph(options: FakeMetaGraphOptions = {}): Promise<FakeMetaGraph> {
  const version = options.version ?? 'v24.0';
  let token = options.token ?? 'fake-system-user-token-0123456789';
  let tokenExpired = false;
  const adAccounts = new Set(options.adAccounts ?? ['1111111111']);
  const termsNotAccepted = new Set(options.termsNotAccepted ?? []);
  const audiences = new Map<string, FakeAudience>();
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const usage = { app: 0, adAccount: 0, business: 0 };
  let nextId = 23850000000000000n;
  let baseUrl = '';
  let traceSeq = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: { code: 1, message: `fake server bug: ${String(error)}` } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      operation: null,
      headers: req.headers,
      body: null,
      status: 200,
    };
    requests.push(record);
    const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.statusCode = status;
      res.setHeader('content-type', 'application/json; charset=UTF-8');
      res.setHeader('x-fb-trace-id', `trace${traceSeq}`);
      res.setHeader(
        'x-app-usage',
        JSON.stringify({ call_count: usage.app, total_time: 1, total_cputime: 1 }),
      );
      res.setHeader(
        'x-ad-account-usage',
        JSON.stringify({ acc_id_util_pct: usage.adAccount, reset_time_duration: 0 }),
      );
      res.setHeader(
        'x-business-use-case-usage',
        JSON.stringify({
          '1234567890': [
            { type: 'custom_audience', call_count: usage.business, total_cputime: 1, total_time: 1 },
          ],
        }),
      );
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.end(typeof json === 'string' ? json : JSON.stringify(json));
    };
    const fail = (
      code: number,
      message: string,
      extra: { subcode?: number; status?: number; type?: string; headers?: Record<string, string> } = {},
    ) =>
      answer(
        extra.status ?? 400,
        {
          error: {
            message: `(#${code}) ${message}`,
            type: extra.type ?? 'OAuthException',
            code,
            ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
            fbtrace_id: `Afake${++traceSeq}`,
          },
        },
        extra.headers,
      );

    let body: Record<string, unknown> | null;
    try {
      body = await readBody(req);
    } catch {
      return fail(100, 'The request body could not be parsed');
    }
    record.body = body;

    // Version segment: the platform answers 2635 for retired versions, 2500 for nonsense.
    const match = /^\/(v\d+\.\d+)\/(.+)$/.exec(url.pathname);
    if (match === null) return fail(2500, 'Unknown path components');
    if (match[1] !== version) {
      return Number.parseFloat(match[1]!.slice(1)) < Number.parseFloat(version.slice(1))
        ? fail(
            2635,
            `You are calling a deprecated version of the Ads API. Please update to the latest version: ${version}.`,
          )
        : fail(2500, `Unknown path components: /${match[1]}`);
    }
    const segments = match[2]!.split('/');
    const route = routeOf(req.method ?? 'GET', segments);
    record.operation = route?.operation ?? null;

    // Token: the Authorization header (Bearer or OAuth) or the access_token parameter.
    const header = req.headers.authorization;
    const given =
      header !== undefined
        ? header.replace(/^(Bearer|OAuth)\s+/i, '')
        : (url.searchParams.get('access_token') ?? (body?.['access_token'] as string | undefined));
    if (given === undefined || given === '') {
      return fail(104, 'An access token is required to request this resource.', { status: 400 });
    }
    if (given !== token) return fail(190, 'Invalid OAuth access token - Cannot parse access token');
    if (tokenExpired) {
      return fail(190, 'Error validating access token: Session has expired.', { subcode: 463 });
    }
    if (route === null) return fail(2500, 'Unknown path components');

    const fault = takeFault(route.operation);
    if (fault !== null && fault.silentRejection !== true) {
      if (fault.body !== undefined) return answer(fault.status ?? 200, fault.body, fault.headers);
      if (fault.rawBody !== undefined) {
        record.status = fault.status ?? 502;
        res.statusCode = record.status;
        res.setHeader('content-type', 'text/html');
        for (const [name, value] of Object.entries(fault.headers ?? {})) res.setHeader(name, value);
        res.end(fault.rawBody);
        return;
      }
      const error = fault.error ?? { code: 2, message: 'Service temporarily unavailable' };
      return fail(error.code, error.message ?? 'Injected error', {
        status: fault.status ?? 400,
        ...(error.error_subcode === undefined ? {} : { subcode: error.error_subcode }),
        ...(error.type === undefined ? {} : { type: error.type }),
        ...(fault.headers === undefined ? {} : { headers: fault.headers }),
      });
    }

    switch (route.operation) {
      case 'create': {
        const [first] = segments;
        if (!first!.startsWith('act_')) {
          // Without act_ the id names no ad account: the platform's "unsupported post request".
          return fail(100, `Unsupported post request. Object with ID '${first}' does not exist`, {
            subcode: 33,
          });
        }
        const account = first!.slice(4);
        if (!adAccounts.has(account)) {
          return fail(100, `Unsupported post request. Object with ID '${first}' does not exist`, {
            subcode: 33,
          });
        }
        if (termsNotAccepted.has(account)) return fail(2655, 'Custom Audience terms not accepted');
        const params = body ?? {};
        if (params['subtype'] !== 'CUSTOM')
          return fail(100, 'Param subtype must be CUSTOM for a customer list');
        if (typeof params['name'] !== 'string' || params['name'] === '') {
          return fail(100, 'The parameter name is required');
        }
        if (!FILE_SOURCES.has(params['customer_file_source'] as string)) {
          return fail(
            100,
            'Param customer_file_source must be one of {USER_PROVIDED_ONLY, PARTNER_PROVIDED_ONLY, BOTH_USER_AND_PARTNER_PROVIDED}',
          );
        }
        const unknown = Object.keys(params).filter(
          (key) => !['name', 'description', 'subtype', 'customer_file_source', 'access_token'].includes(key),
        );
        if (unknown.length > 0) return fail(100, `Unexpected parameters: ${unknown.join(', ')}`);
        const id = String(nextId++);
        audiences.set(id, {
          id,
          adAccountId: account,
          name: params['name'] as string,
          description: typeof params['description'] === 'string' ? params['description'] : '',
          customerFileSource: params['customer_file_source'] as string,
          members: new Set(),
          sharedWith: new Set(),
          sessions: new Map(),
          operationCode: 410,
          deliveryCode: 300,
          updatingReads: 0,
        });
        return answer(200, { id });
      }
      case 'users': {
        const audience = audiences.get(segments[0]!);
        if (audience === undefined) return missing(segments[0]!);
        if (audience.operationCode === 471) {
          return fail(100, 'This audience was flagged and cannot be updated', { subcode: 1713230 });
        }
        const problem = checkUsers(body ?? {});
        if (typeof problem === 'string') return fail(100, problem);
        const { schema, data, session } = problem;
        if (options.tooManyParametersAbove !== undefined && data.length > options.tooManyParametersAbove) {
          return fail(105, 'The number of parameters exceeded the maximum for this operation');
        }
        const existing = audience.sessions.get(session.id);
        if (existing === undefined && session.seq !== 1) {
          return fail(100, 'Invalid batch_seq: a new session starts at batch_seq 1');
        }
        if (existing !== undefined) {
          // A batch_seq already seen is a retry (a resumed job resends what it had not
          // checkpointed, possibly both halves of a split batch); a gap is an error.
          const replay = session.seq <= existing.lastSeq;
          if (existing.finished && !replay) return fail(100, 'The session has already finished');
          if (!replay && session.seq !== existing.lastSeq + 1) {
            return fail(100, `Invalid batch_seq: expected ${existing.lastSeq + 1}`);
          }
        }
        let invalid = 0;
        const samples: Record<string, string> = {};
        const accepted: string[] = [];
        data.forEach((row, index) => {
          const madid = schema.indexOf('MADID');
          const bad = row.every((cell) => cell === '') || (madid >= 0 && HASH.test(row[madid]!));
          if (bad) {
            invalid += 1;
            // As on the platform, samples quote the rejected values (PII for a real list).
            if (Object.keys(samples).length < 5) samples[row.join(',') || `row ${index}`] = 'invalid entry';
          } else {
            // A digest, not the row: a million-row benchmark must not hold gigabytes of hex.
            accepted.push(createHash('sha1').update(row.join('|')).digest('base64'));
          }
        });
        if (fault?.silentRejection === true) {
          return answer(200, {
            audience_id: audience.id,
            session_id: session.id,
            num_received: 0,
            num_invalid_entries: 0,
            invalid_entry_samples: {},
          });
        }
        const state = existing ?? {
          lastSeq: 0,
          finished: false,
          received: 0,
          invalid: 0,
          estimatedTotal: session.estimatedTotal,
        };
        audience.sessions.set(session.id, state);
        if (session.seq > state.lastSeq) {
          state.received += data.length;
          state.invalid += invalid;
          state.lastSeq = session.seq;
        }
        for (const member of accepted) audience.members.add(member);
        if (session.last) {
          state.finished = true;
          audience.operationCode = 300;
          audience.updatingReads = options.updatingReads ?? 1;
        }
        return answer(200, {
          audience_id: audience.id,
          session_id: session.id,
          num_received: data.length,
          num_invalid_entries: invalid,
          invalid_entry_samples: samples,
        });
      }
      case 'shares': {
        const audience = audiences.get(segments[0]!);
        if (audience === undefined) return missing(segments[0]!);
        // Paged like the platform: 25 by default, `limit` up to 5000, and a `next` link that
        // carries the access token in its query (which is why the adapter never follows it).
        const limit = Math.min(5000, Number.parseInt(url.searchParams.get('limit') ?? '25', 10) || 25);
        const all = [...audience.sharedWith];
        const page = all.slice(0, limit).map((account) => ({ id: `act_${account}`, account_id: account }));
        return answer(200, {
          data: page,
          ...(all.length > limit
            ? {
                paging: {
                  next: `${baseUrl}${url.pathname}?access_token=${token}&limit=${limit}&after=${limit}`,
                },
              }
            : {}),
        });
      }
      case 'share': {
        const audience = audiences.get(segments[0]!);
        if (audience === undefined) return missing(segments[0]!);
        const list = body?.['adaccounts'];
        if (!Array.isArray(list) || list.length === 0)
          return fail(100, 'Param adaccounts must be a non-empty array');
        for (const account of list) {
          if (typeof account !== 'string' || !/^\d+$/.test(account)) {
            return fail(100, 'Param adaccounts must hold ad account ids (digits, without act_)');
          }
        }
        const permissions = body?.['permissions'];
        if (
          permissions !== undefined &&
          permissions !== 'targeting' &&
          permissions !== 'targeting_and_insights'
        ) {
          return fail(100, 'Param permissions must be targeting or targeting_and_insights');
        }
        for (const account of list as string[]) {
          if (audience.sharedWith.has(account)) {
            return fail(100, 'The audience is already shared with this ad account', { subcode: 1713231 });
          }
        }
        for (const account of list as string[]) audience.sharedWith.add(account);
        return answer(200, { success: true });
      }
      case 'status': {
        const audience = audiences.get(segments[0]!);
        if (audience === undefined) return missing(segments[0]!);
        if (audience.operationCode === 300) {
          if (audience.updatingReads > 0) audience.updatingReads -= 1;
          else {
            audience.operationCode = 200;
            audience.deliveryCode = audience.members.size >= (options.minimumDeliverySize ?? 1) ? 200 : 300;
          }
        }
        const size = audience.members.size;
        const all: Record<string, unknown> = {
          id: audience.id,
          name: audience.name,
          description: audience.description,
          subtype: 'CUSTOM',
          customer_file_source: audience.customerFileSource,
          approximate_count_lower_bound: audience.operationCode === 200 ? Math.floor(size * 0.9) : -1,
          approximate_count_upper_bound: audience.operationCode === 200 ? size : -1,
          operation_status: {
            code: audience.operationCode,
            description: operationText(audience.operationCode),
          },
          delivery_status: { code: audience.deliveryCode, description: deliveryText(audience.deliveryCode) },
        };
        const fields = (url.searchParams.get('fields') ?? 'id').split(',');
        for (const field of fields) {
          if (!(field in all)) return fail(100, `Tried accessing nonexisting field (${field})`);
        }
        return answer(200, Object.fromEntries(fields.map((field) => [field, all[field]])));
      }
      case 'list': {
        const [first] = segments;
        const account = first!.startsWith('act_') ? first!.slice(4) : null;
        if (account === null || !adAccounts.has(account)) {
          return fail(100, `Unsupported get request. Object with ID '${first}' does not exist`, {
            subcode: 33,
          });
        }
        // Newest first, cursor-paged: 25 by default, `limit` up to 500 as on the platform.
        const limit = Math.min(500, Number.parseInt(url.searchParams.get('limit') ?? '25', 10) || 25);
        const afterParam = url.searchParams.get('after');
        const start = afterParam === null ? 0 : Number(Buffer.from(afterParam, 'base64url').toString());
        const mine = [...audiences.values()].filter((a) => a.adAccountId === account).reverse();
        const fields = (url.searchParams.get('fields') ?? 'id').split(',');
        const page = mine.slice(start, start + limit).map((audience) => {
          const all: Record<string, unknown> = {
            id: audience.id,
            name: audience.name,
            description: audience.description,
          };
          return Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
        });
        const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
        const more = start + limit < mine.length;
        return answer(200, {
          data: page,
          paging: {
            cursors: { before: cursor(start), after: cursor(start + page.length) },
            ...(more
              ? { next: `${baseUrl}${url.pathname}?access_token=${token}&after=${cursor(start + limit)}` }
              : {}),
          },
        });
      }
      case 'delete': {
        if (!audiences.delete(segments[0]!)) return missing(segments[0]!);
        return answer(200, { success: true });
      }
      case 'sessions': {
        const audience = audiences.get(segments[0]!);
        if (audience === undefined) return missing(segments[0]!);
        return answer(200, {
          data: [...audience.sessions].map(([id, session]) => ({
            session_id: String(id),
            num_received: session.received,
            num_matched: audience.members.size,
            num_invalid_entries: session.invalid,
            stage: session.finished ? 'finished' : 'processing',
          })),
        });
      }
    }

    function missing(id: string) {
      return fail(100, `Unsupported request. Object with ID '${id}' does not exist`, { subcode: 33 });
    }
  }

  function takeFault(operation: FakeOperation): Fault | null {
    const index = faults.findIndex((fault) => fault.on === 'any' || fault.on === operation);
    if (index < 0) return null;
    const fault = faults[index]!;
    if ((fault.after ?? 0) > 0) {
      faults[index] = { ...fault, after: fault.after! - 1 };
      return null;
    }
    const left = (fault.times ?? 1) - 1;
    if (left <= 0) faults.splice(index, 1);
    else faults[index] = { ...fault, times: left };
    return fault;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    version,
    get token() {
      return token;
    },
    set token(value: string) {
      token = value;
    },
    audiences,
    requests,
    usage,
    inject(fault) {
      faults.push(fault);
    },
    flag(audienceId) {
      const audience = audiences.get(audienceId);
      if (audience === undefined) throw new Error(`no audience ${audienceId}`);
      audience.operationCode = 471;
      audience.deliveryCode = 400;
    },
    expireToken() {
      tokenExpired = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function routeOf(method: string, segments: string[]): { operation: FakeOperation } | null {
  const [id, edge, ...rest] = segments;
  if (rest.length > 0 || id === undefined) return null;
  if (method === 'POST' && edge === 'customaudiences') return { operation: 'create' };
  if (method === 'GET' && edge === 'customaudiences') return { operation: 'list' };
  if (!/^\d+$/.test(id)) return null;
  if (method === 'POST' && edge === 'users') return { operation: 'users' };
  if (method === 'GET' && edge === 'adaccounts') return { operation: 'shares' };
  if (method === 'POST' && edge === 'adaccounts') return { operation: 'share' };
  if (method === 'GET' && edge === 'sessions') return { operation: 'sessions' };
  if (method === 'GET' && edge === undefined) return { operation: 'status' };
  if (method === 'DELETE' && edge === undefined) return { operation: 'delete' };
  return null;
}

interface CheckedUsers {
  schema: string[];
  data: string[][];
  session: { id: number; seq: number; last: boolean; estimatedTotal: number | null };
}

/** The add-users request's rules; a string names the first rule broken (never a value). */
function checkUsers(body: Record<string, unknown>): CheckedUsers | string {
  const payload = body['payload'] as Record<string, unknown> | undefined;
  if (payload === undefined || payload === null || typeof payload !== 'object')
    return 'Param payload is required';
  const schema = payload['schema'];
  if (!Array.isArray(schema) || schema.length === 0)
    return 'payload.schema must be a non-empty array of keys';
  for (const key of schema) {
    if (typeof key !== 'string' || !ALLOWED_KEYS.has(key))
      return `payload.schema has an unknown key: ${String(key)}`;
  }
  if (new Set(schema).size !== schema.length) return 'payload.schema repeats a key';
  if (payload['is_raw'] !== true) return 'payload.is_raw must be true';
  const data = payload['data'];
  if (!Array.isArray(data) || data.length === 0) return 'payload.data must be a non-empty array of rows';
  if (data.length > MAX_ROWS) return `payload.data has more than ${MAX_ROWS} rows`;
  const extra = Object.keys(payload).filter((key) => !['schema', 'is_raw', 'data'].includes(key));
  if (extra.length > 0) return `payload has unexpected keys: ${extra.join(', ')}`;
  for (let r = 0; r < data.length; r++) {
    const row = data[r] as unknown;
    if (!Array.isArray(row) || row.length !== schema.length) {
      return `payload.data row ${r} does not have one cell per schema key`;
    }
    for (let c = 0; c < row.length; c++) {
      const cell = row[c] as unknown;
      if (typeof cell !== 'string') return `payload.data row ${r} column ${schema[c]} is not a string`;
      if (schema[c] === 'MADID' || cell === '') continue;
      if (!HASH.test(cell))
        return `payload.data row ${r} column ${schema[c]} is not a lowercase hex SHA-256 or ""`;
      if (cell === SHA256_OF_EMPTY)
        return `payload.data row ${r} column ${schema[c]} is the hash of an empty value`;
    }
  }
  const session = body['session'] as Record<string, unknown> | undefined;
  if (session === undefined || session === null || typeof session !== 'object')
    return 'Param session is required';
  const id = session['session_id'];
  const seq = session['batch_seq'];
  const last = session['last_batch_flag'];
  const total = session['estimated_num_total'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    return 'session.session_id must be a positive integer';
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1)
    return 'session.batch_seq must be an integer from 1';
  if (typeof last !== 'boolean') return 'session.last_batch_flag must be a boolean';
  if (total !== undefined && (typeof total !== 'number' || !Number.isInteger(total) || total < 0)) {
    return 'session.estimated_num_total must be a whole number';
  }
  const unexpected = Object.keys(body).filter((key) => !['payload', 'session', 'access_token'].includes(key));
  if (unexpected.length > 0) return `Unexpected parameters: ${unexpected.join(', ')}`;
  return {
    schema: schema as string[],
    data: data as string[][],
    session: { id, seq, last, estimatedTotal: typeof total === 'number' ? total : null },
  };
}

/** JSON bodies, or form bodies whose JSON-valued fields (payload, session, adaccounts) are decoded. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return null;
  const text = Buffer.concat(chunks).toString('utf8');
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed as Record<string, unknown>;
  }
  const form = Object.fromEntries(new URLSearchParams(text));
  return Object.fromEntries(
    Object.entries(form).map(([key, value]) => {
      if (!['payload', 'session', 'adaccounts'].includes(key)) return [key, value];
      try {
        return [key, JSON.parse(value)];
      } catch {
        return [key, value];
      }
    }),
  );
}

function operationText(code: number): string {
  if (code === 200) return 'Normal';
  if (code === 300) return 'Updating';
  if (code === 410) return 'No upload';
  if (code === 471) return 'Flagged';
  return 'Unknown';
}

function deliveryText(code: number): string {
  if (code === 200) return 'This audience is ready for use.';
  if (code === 300) return 'This audience is too small to use.';
  return 'This audience is unusable.';
}
