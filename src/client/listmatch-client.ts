import createClient from 'openapi-fetch';
import type { paths } from './api-types.ts';

/*
 * The typed client of the service's HTTP API: the key-authenticated endpoints through
 * openapi-fetch over the types openapi-typescript generated from /openapi.json (api-types.ts), the
 * presigned upload and download URLs (opaque absolute URLs, no key) through fetch. It runs wherever
 * fetch does (Node ≥ 22, browsers for the JSON calls); `listmatch submit` is built on it.
 */

type Ok<P extends keyof paths> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;

/** What a registration answers (`url` is the presigned PUT URL). */
export type RegistrationAnswer = Ok<'/service/smartmatch'>;
/** What poll answers: `url`, `error`, `status`, `progress`, and `warnings` once complete. */
export type PollAnswer = Ok<'/service/smartmatch/poll'>;
export type PollProgress = NonNullable<PollAnswer['progress']>;
export type JobStatus = NonNullable<PollAnswer['status']>;

/** A lookup's answer once it succeeded (`error` null): the refusal variant of its 200 body left out. */
type LookupAnswer<P extends keyof paths> = Extract<Ok<P>, { error: null }>;
export type RegistrationCheckAnswer = LookupAnswer<'/voter/voter-registration-check'>;
export type DataEnhanceAnswer = LookupAnswer<'/person/data-enhance'>;
export type RadiusSearchAnswer = LookupAnswer<'/person/radius-search'>;
export type PhoneSearchAnswer = LookupAnswer<'/person/phone-search'>;
export type EmailSearchAnswer = LookupAnswer<'/person/email-search'>;

/** Parameters of a voter registration check (clients.md 25); a trailing `*` is a wildcard. */
export interface RegistrationCheckParams {
  first_name: string;
  last_name: string;
  /** Two letters. */
  state: string;
  street_number?: string;
  street_name?: string;
  city?: string;
  zip_code?: string;
  /** 18-120. */
  age?: number;
  /** `YYYYMMDD`, or `YYYY*` / `YYYYMM*`. */
  dob?: string;
  phone?: string;
  email?: string;
  unparsed_full_address?: string;
  profile_id?: string;
}

/** Parameters of a data-enhance lookup (clients.md 26). */
export interface DataEnhanceParams {
  search_id: string;
  search_id_type?:
    | 'voterbase'
    | 'exacttrack'
    | 'phone'
    | 'email'
    | 'smartvan'
    | 'votebuilder'
    | 'voter'
    | 'household';
  /** Required for smartvan, votebuilder and voter. */
  state?: string;
  profile_id?: string;
}

/** Parameters of a radius search (clients.md 27): latitude and longitude, or an address. */
export interface RadiusSearchParams {
  first_name: string;
  last_name: string;
  middle_name?: string;
  name_suffix?: string;
  latitude?: number;
  longitude?: number;
  address?: string;
  address_type?: 'reg';
  radius_size?: number;
  radius_unit?: 'miles' | 'kilometers' | 'meters' | 'feet';
  /** 0-100; 0: up to 100. */
  max_results?: number;
  gender?: 'm' | 'f' | 'u' | 'a';
  age_min?: number;
  age_max?: number;
  composite_score_min?: number;
  composite_score_max?: number;
  last_name_exact?: boolean;
  last_name_is_prefix?: boolean;
  /** 3-10. */
  last_name_prefix_length?: number;
  profile_id?: string;
}

/** Parameters of a list-matching registration (spec 2.4), typed; sent as the query string. */
export interface SmartmatchParams {
  filename: string;
  webhook?: string;
  include_email?: boolean;
  include_landline?: boolean;
  include_wireless?: boolean;
  include_voip?: boolean;
  /** 1-10. */
  max_matches?: number;
  format?: 'csv' | 'zip' | 'gzip';
  /** Miles. */
  search_radius?: number;
  notification_email?: string;
  mbp_onboarding?: boolean;
  digital_audience_name?: string;
  profile_id?: string;
}

/** Parameters of an onboarding registration (spec 2.1). */
export interface OnboardingParams {
  platform: 'social' | 'politicaldsp';
  audience: string;
  status_email: string;
  social_adid?: string;
  owner_adid?: string;
}

/** The kind of a refusal, from its `<Kind> Error:` prefix (or, without one, its HTTP status). */
export type ErrorKind = 'validation' | 'authorization' | 'rate_limit' | 'internal';

const KIND_PREFIXES: [prefix: string, kind: ErrorKind][] = [
  ['Validation Error:', 'validation'],
  ['Authorization Error:', 'authorization'],
  ['Rate Limit Error:', 'rate_limit'],
  ['Internal Error:', 'internal'],
];

/** The kind of a service error text, or by the status when the text has no known prefix. */
export function errorKindOf(text: string, status: number): ErrorKind {
  for (const [prefix, kind] of KIND_PREFIXES) if (text.startsWith(prefix)) return kind;
  if (status === 401 || status === 403) return 'authorization';
  if (status === 429) return 'rate_limit';
  if (status >= 400 && status < 500) return 'validation';
  return 'internal';
}

/** A refusal or failure the service answered; `message` is the service's own text, unchanged. */
export class ListmatchError extends Error {
  readonly kind: ErrorKind;
  /** HTTP status of the answer (200 for a refusal answered with `error` set). */
  readonly status: number;
  /** Seconds to wait before retrying (Retry-After), for rate limits. */
  readonly retryAfterSeconds: number | null;

  constructor(message: string, status: number, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'ListmatchError';
    this.kind = errorKindOf(message, status);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface ListmatchClientOptions {
  /** The service's base URL, e.g. `http://localhost:8080`. */
  server: string;
  /** The API key (`lm_…`), sent as `x-api-key` to the service's endpoints only, never to presigned URLs. */
  apiKey: string;
  fetch?: typeof fetch;
}

/** A body to upload: bytes, text, or a stream (Node Readable or any async iterable of bytes). */
export type UploadBody = string | Uint8Array | AsyncIterable<Uint8Array>;

export class ListmatchClient {
  private readonly api: ReturnType<typeof createClient<paths>>;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(options: ListmatchClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    this.api = createClient<paths>({ baseUrl: options.server.replace(/\/+$/, ''), fetch: this.fetch });
    this.headers = { 'x-api-key': options.apiKey };
  }

  /** Registers a list-matching job; answers its presigned upload URL, or throws ListmatchError. */
  async registerSmartmatch(params: SmartmatchParams): Promise<string> {
    const { data, error, response } = await this.api.GET('/service/smartmatch', {
      params: { query: queryOf(params) as paths['/service/smartmatch']['get']['parameters']['query'] },
      headers: this.headers,
    });
    return uploadUrlOf(data ?? error, response);
  }

  /** Registers an audience-onboarding job; answers its presigned upload URL, or throws ListmatchError. */
  async registerOnboarding(params: OnboardingParams): Promise<string> {
    const { data, error, response } = await this.api.GET('/service/onboarding', {
      params: { query: queryOf(params) as paths['/service/onboarding']['get']['parameters']['query'] },
      headers: this.headers,
    });
    return uploadUrlOf(data ?? error, response);
  }

  /**
   * Polls a list-matching job. Answers the poll body while the job runs or once complete (`url`
   * set); throws ListmatchError when the job failed or expired, when the filename is unknown, and
   * for a rate limit (with `retryAfterSeconds`).
   */
  async poll(filename: string): Promise<PollAnswer> {
    const { data, error, response } = await this.api.GET('/service/smartmatch/poll', {
      params: { query: { filename } },
      headers: this.headers,
    });
    const body = (data ?? error) as PollAnswer | undefined;
    throwIfRefused(body, response);
    return body!;
  }

  /**
   * Checks one person's voter registration (clients.md 25). Answers the body when `error` is
   * null; throws ListmatchError for a refusal (validation, a missing right: 200 with `error`), a
   * bad key (401), a rate limit or spent quota (429, with `retryAfterSeconds`) and failures.
   */
  async registrationCheck(params: RegistrationCheckParams): Promise<RegistrationCheckAnswer> {
    return await this.lookup('/voter/voter-registration-check', params);
  }

  /** The records of an id, phone, e-mail address or household (clients.md 26); refusals throw. */
  async dataEnhance(params: DataEnhanceParams): Promise<DataEnhanceAnswer> {
    return await this.lookup('/person/data-enhance', params);
  }

  /** Voters of a similar name within a radius (clients.md 27); refusals throw. */
  async radiusSearch(params: RadiusSearchParams): Promise<RadiusSearchAnswer> {
    return await this.lookup('/person/radius-search', params);
  }

  /** The voters of up to 500 phone numbers (clients.md 28); refusals throw. */
  async phoneSearch(
    phones: readonly string[],
    options: { profile_id?: string } = {},
  ): Promise<PhoneSearchAnswer> {
    return await this.lookup('/person/phone-search', { phones: phones.join(','), ...options });
  }

  /** The voters of up to 200 e-mail addresses (clients.md 29), individuals or households; refusals throw. */
  async emailSearch(
    emails: readonly string[],
    options: { match_type?: 'I' | 'H'; profile_id?: string } = {},
  ): Promise<EmailSearchAnswer> {
    return await this.lookup('/person/email-search', { emails: emails.join(','), ...options });
  }

  private async lookup<P extends LookupPath>(path: P, params: object): Promise<LookupAnswer<P>> {
    // The five paths share one shape of call; openapi-fetch's overloads are per path.
    const get = this.api.GET as (
      path: LookupPath,
      init: { params: { query: Record<string, string> }; headers: Record<string, string> },
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await get(path, {
      params: { query: queryOf(params) },
      headers: this.headers,
    });
    const body = (data ?? error) as { error?: string | null } | undefined;
    throwIfRefused(body, response);
    return body as LookupAnswer<P>;
  }

  /**
   * PUTs a list to a presigned upload URL as the contract asks: no API key, no Content-Type,
   * `Content-Length` when `bytes` is given (else chunked). A stream is sent as it is read, never
   * held whole. `onBytes` hears the running total of bytes handed to the connection.
   */
  async upload(
    url: string,
    body: UploadBody,
    options: { bytes?: number; onBytes?: (sent: number) => void; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (typeof body !== 'string' && !(body instanceof Uint8Array) && this.fetch === globalThis.fetch) {
      // A stream on Node: node:http writes it straight to the socket, at about half again fetch's
      // rate and with less memory (fetch copies each chunk through a web stream).
      const { status, text, headers } = await putWithNodeHttp(url, counted(body, options.onBytes), options);
      if (status !== 200) throwFromText(text, status, headers['retry-after'], url);
      return;
    }
    const headers: Record<string, string> = {};
    if (options.bytes !== undefined) headers['content-length'] = String(options.bytes);
    const payload =
      typeof body === 'string' || body instanceof Uint8Array ? body : counted(body, options.onBytes);
    const response = await this.fetch(url, {
      method: 'PUT',
      headers,
      body: payload as RequestInit['body'],
      // A streamed request body (Node's fetch requires saying so).
      ...(typeof payload === 'string' || payload instanceof Uint8Array ? {} : { duplex: 'half' }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    } as RequestInit);
    if (response.status !== 200) await throwFromResponse(response);
    await response.body?.cancel();
  }

  /**
   * Uploads a file from disk to a presigned URL (Node). With Node's own fetch it is read into two
   * buffers that are used again and again, each refilled only once the socket has taken what was
   * written from it: memory stays flat whatever the file's size. (A stream allocates a fresh
   * buffer per read; V8 lets tens of megabytes of them wait for a collection.) With another fetch
   * (tests, wrappers) it is streamed through `upload`.
   */
  async uploadFile(
    url: string,
    path: string,
    options: { onBytes?: (sent: number) => void; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (this.fetch !== globalThis.fetch) {
      const { createReadStream } = await import('node:fs');
      const { stat } = await import('node:fs/promises');
      await this.upload(url, createReadStream(path, { highWaterMark: FILE_CHUNK_BYTES }), {
        ...options,
        bytes: (await stat(path)).size,
      });
      return;
    }
    const { status, text, headers } = await putFileWithNodeHttp(url, path, options);
    if (status !== 200) throwFromText(text, status, headers['retry-after'], url);
  }

  /**
   * Downloads a presigned result URL (no key) into a file (Node), its bytes as they arrive. With
   * Node's own fetch it goes through node:http, whose stream copies each chunk once (fetch's web
   * stream, turned into a Node stream, held some 17 MB more for a 122 MB result). With another
   * fetch it goes through `download`. Answers the bytes written.
   */
  async downloadFile(url: string, path: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const { createWriteStream } = await import('node:fs');
    const { pipeline } = await import('node:stream/promises');
    // The file is made only once the answer is a result (a refusal writes none).
    if (this.fetch !== globalThis.fetch) {
      const { Readable } = await import('node:stream');
      const response = await this.download(url, options);
      const out = createWriteStream(path);
      await pipeline(Readable.fromWeb(response.body as never), out);
      return out.bytesWritten;
    }
    const { get } = url.startsWith('https:') ? await import('node:https') : await import('node:http');
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      get(url, options.signal === undefined ? {} : { signal: options.signal }, resolve).on('error', reject);
    });
    if (response.statusCode !== 200) {
      throwFromText(await textOf(response), response.statusCode ?? 0, response.headers['retry-after'], url);
    }
    const out = createWriteStream(path);
    await pipeline(response, out);
    return out.bytesWritten;
  }

  /** GETs a presigned result URL (no key); answers the response, its body not yet read. */
  async download(url: string, options: { signal?: AbortSignal } = {}): Promise<Response> {
    const response = await this.fetch(url, options.signal === undefined ? {} : { signal: options.signal });
    if (response.status !== 200) await throwFromResponse(response);
    return response;
  }
}

type LookupPath =
  | '/voter/voter-registration-check'
  | '/person/data-enhance'
  | '/person/radius-search'
  | '/person/phone-search'
  | '/person/email-search';

/** Typed parameters as the query string's strings (booleans `true`/`false`; absent ones left out). */
function queryOf(params: object): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query[name] = String(value);
  }
  return query;
}

function retryAfterOf(response: Response): number | null {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) ? seconds : null;
}

/** Throws the body's `error` (or one the status implies) unless the answer is a 200 without one. */
function throwIfRefused(body: { error?: string | null } | undefined, response: Response): void {
  const text = typeof body?.error === 'string' && body.error !== '' ? body.error : null;
  if (response.status === 200 && text === null) return;
  throw new ListmatchError(
    text ?? `the service answered HTTP ${response.status} without an error text`,
    response.status,
    retryAfterOf(response),
  );
}

function uploadUrlOf(body: RegistrationAnswer | undefined, response: Response): string {
  throwIfRefused(body, response);
  if (typeof body?.url !== 'string' || body.url === '') {
    throw new ListmatchError('the service answered no upload URL', response.status);
  }
  return body.url;
}

async function throwFromResponse(response: Response): Promise<never> {
  throwFromText(await response.text(), response.status, response.headers.get('retry-after'), response.url);
}

/** Throws the `error` of a JSON answer body, or one its status implies. */
function throwFromText(
  text: string,
  status: number,
  retryAfter: string | string[] | null | undefined,
  url: string,
): never {
  let error: string | null = null;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') error = parsed.error;
  } catch {
    // Not the service's JSON (a proxy's page): the status tells what happened.
  }
  const seconds = typeof retryAfter === 'string' ? Number(retryAfter) : Number.NaN;
  throw new ListmatchError(
    error ?? `HTTP ${status} from ${new URL(url || 'http://unknown').host}`,
    status,
    Number.isFinite(seconds) ? seconds : null,
  );
}

/** A node:http answer's body as text (a refusal's JSON, a PUT's answer). */
async function textOf(response: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A PUT's answer: its status, its text and its headers. */
interface PutAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A PUT with node:http or node:https (loaded only when used): no Content-Type, the Content-Length
 * when known, the body written by `write` (which calls `failed` if it cannot). A refusal answered
 * before the whole body was sent closes the connection, and writing the rest fails: the answer
 * (which usually arrives first) is what the caller hears, so an error waits a moment for it.
 */
async function nodePut(
  url: string,
  options: { bytes?: number; signal?: AbortSignal },
  write: (req: import('node:http').ClientRequest, failed: (error: unknown) => void) => void,
): Promise<PutAnswer> {
  const { request } = url.startsWith('https:') ? await import('node:https') : await import('node:http');
  return await new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'PUT',
      headers: options.bytes === undefined ? {} : { 'content-length': String(options.bytes) },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    req.on('response', (res) => {
      textOf(res).then((text) => {
        resolve({ status: res.statusCode ?? 0, text, headers: res.headers });
        // Answered before the whole body went (a refusal): the rest is not sent.
        if (!req.writableFinished) req.destroy();
      }, reject);
    });
    const failed = (error: unknown) => setTimeout(() => reject(error), 200).unref();
    req.on('error', failed);
    write(req, failed);
  });
}

/** PUTs a stream (nodePut), written as read with the socket's backpressure. */
async function putWithNodeHttp(
  url: string,
  source: AsyncIterable<Uint8Array>,
  options: { bytes?: number; signal?: AbortSignal },
): Promise<PutAnswer> {
  const { Readable } = await import('node:stream');
  const { pipeline } = await import('node:stream/promises');
  return await nodePut(url, options, (req, failed) => {
    pipeline(Readable.from(source, { objectMode: false }), req).catch(failed);
  });
}

/** What uploadFile reads at a time (each of its two buffers). */
const FILE_CHUNK_BYTES = 1 << 20;

/**
 * PUTs a file's bytes (nodePut) from two buffers used in turn, each refilled only once the socket
 * took the bytes last written from it (ListmatchClient.uploadFile).
 */
async function putFileWithNodeHttp(
  url: string,
  path: string,
  options: { onBytes?: (sent: number) => void; signal?: AbortSignal },
): Promise<PutAnswer> {
  const { open } = await import('node:fs/promises');
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const send = async (req: import('node:http').ClientRequest) => {
      const buffers = [Buffer.allocUnsafeSlow(FILE_CHUNK_BYTES), Buffer.allocUnsafeSlow(FILE_CHUNK_BYTES)];
      // Per buffer, the write of its bytes: the socket has taken them once it settles.
      const taken: Promise<void>[] = [Promise.resolve(), Promise.resolve()];
      let sent = 0;
      for (let turn = 0; sent < size; turn++) {
        const k = turn % 2;
        await taken[k];
        const buffer = buffers[k]!;
        const { bytesRead } = await file.read(buffer, 0, Math.min(FILE_CHUNK_BYTES, size - sent), sent);
        if (bytesRead === 0) throw new Error(`${path} ended before its ${size} bytes were read`);
        sent += bytesRead;
        taken[k] = new Promise<void>((done, fail) =>
          req.write(buffer.subarray(0, bytesRead), (error) => (error ? fail(error) : done())),
        );
        // Seen once its turn comes again, or below: not an unhandled rejection meanwhile.
        taken[k].catch(() => {});
        options.onBytes?.(sent);
      }
      await Promise.all(taken);
      req.end();
    };
    return await nodePut(url, { ...options, bytes: size }, (req, failed) => {
      send(req).catch(failed);
    });
  } finally {
    await file.close();
  }
}

/** The stream as fetch reads it, the running byte count told to `onBytes`. */
async function* counted(
  source: AsyncIterable<Uint8Array>,
  onBytes: ((sent: number) => void) | undefined,
): AsyncIterable<Uint8Array> {
  let sent = 0;
  for await (const chunk of source) {
    sent += chunk.length;
    onBytes?.(sent);
    yield chunk;
  }
}
