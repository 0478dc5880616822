import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  FakePlatform,
  LineSplitter,
  parseCsvLine,
  readJson,
  refuseEarly,
  sendJson,
} from './fake-platform.ts';

/**
 * The political DSP's columns, written out here rather than imported from the adapter's profile
 * table: the fake must disagree with a wrong table, not copy it. All are SHA-256 hex except `maid`.
 */
const COLUMNS = new Set([
  'email_sha256',
  'phone_sha256',
  'first_name_sha256',
  'last_name_sha256',
  'city_sha256',
  'state_sha256',
  'zip_sha256',
  'birth_year_sha256',
  'gender_sha256',
  'maid',
]);
const PLAIN_COLUMNS = new Set(['maid']);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const LOOKS_HASHED = /^[0-9a-fA-F]{64}$/;
/** Rows kept per upload for assertions; the rest are only counted. */
const KEPT_ROWS = 1000;

export interface Segment {
  id: string;
  name: string;
  description: string | null;
  /** awaiting_file → processing → ready | failed (a bad file fails only after it was stored). */
  state: 'awaiting_file' | 'processing' | 'ready' | 'failed';
  failureReason: string | null;
  header: string[] | null;
  rowCount: number;
  /** The first rows, for assertions. */
  rows: string[][];
  bytes: number;
  matchRate: number | null;
}

/** What the platform e-mails the account: its only way of saying an audience is ready or failed. */
export interface PlatformEmail {
  segmentId: string;
  subject: string;
  reason: string | null;
}

interface PresignedUrl {
  segmentId: string;
  expiresAt: number;
  used: boolean;
}

export interface PoliticalDspOptions {
  token: string;
  /** Lifetime of presigned upload URLs. */
  urlTtlMs?: number;
  /** Object storage's single-PUT limit (5 GiB on the real one). */
  maxFileBytes?: number;
  /** Time from a stored file to the ready e-mail. */
  processingMs?: number;
  matchRate?: number;
}

/**
 * A local political DSP with the create-segment → presigned URL → PUT shape, checking what the
 * real one checks. API (`/v1/…`): Bearer token (401 otherwise), JSON bodies, segment names of 1 to
 * 128 printable characters, unique per account (409); `GET /v1/segments?name=…` finds them (with
 * their description and status, so a client that lost an answer can tell what happened). Storage (`PUT /upload/…`): the URL's
 * signature, expiry and single use (403 with object storage's XML), no Authorization header next
 * to the signature (400), a declared Content-Length (411) within the size limit (400
 * EntityTooLarge) that the body matches. The stored file is then checked as the platform's
 * processing does (header of known columns, no duplicates, equal field counts, hashed columns all
 * SHA-256 hex and `maid` never a digest: a mixed file fails) and the outcome is e-mailed
 * (`emails`), as there is no status endpoint.
 */
export class PoliticalDspServer extends FakePlatform {
  token: string;
  readonly segments = new Map<string, Segment>();
  readonly emails: PlatformEmail[] = [];
  /** Most bytes of a PUT body received so far, for streaming assertions. */
  receivedBytes = 0;
  /** Files storage accepted (each PUT that stored a segment's file). */
  storedUploads = 0;
  private readonly losing = new Set<'create' | 'upload'>();
  private readonly urls = new Map<string, PresignedUrl>();
  private readonly signingKey = randomBytes(32);
  private readonly options: Required<Omit<PoliticalDspOptions, 'token'>>;
  private nextId = 1;

  constructor(options: PoliticalDspOptions) {
    super();
    this.token = options.token;
    this.options = {
      urlTtlMs: options.urlTtlMs ?? 15 * 60_000,
      maxFileBytes: options.maxFileBytes ?? 5 * 1024 ** 3,
      processingMs: options.processingMs ?? 20,
      matchRate: options.matchRate ?? 0.58,
    };
  }

  /**
   * The next segment creation (`create`) or stored file (`upload`) takes effect, but its answer is
   * lost: the connection drops before the status line, as when a proxy or the network fails.
   */
  loseNextAnswer(call: 'create' | 'upload'): void {
    this.losing.add(call);
  }

  /** Sets how long new presigned URLs live (expiry tests). */
  setUrlTtl(ms: number): void {
    this.options.urlTtlMs = ms;
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (path.startsWith('/upload/')) {
      if (method !== 'PUT') return this.storageError(response, 405, 'MethodNotAllowed', 'Use PUT');
      return this.putObject(request, response, url);
    }
    if (!path.startsWith('/v1/')) return sendJson(response, 404, apiError('not_found', 'No such endpoint'));
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      request.resume();
      return sendJson(response, 401, apiError('unauthorized', 'Invalid or expired access token'));
    }
    if (method === 'POST' && path === '/v1/segments') return this.createSegment(request, response);
    if (method === 'GET' && path === '/v1/segments') {
      request.resume();
      return sendJson(response, 200, this.listSegments(url.searchParams.get('name')));
    }
    const uploadUrl = /^\/v1\/segments\/([^/]+)\/upload-url$/.exec(path);
    if (method === 'POST' && uploadUrl !== null) {
      request.resume();
      const segment = this.segments.get(decodeURIComponent(uploadUrl[1]!));
      if (segment === undefined) return sendJson(response, 404, apiError('not_found', 'Segment not found'));
      return sendJson(response, 200, this.presign(segment.id));
    }
    request.resume();
    sendJson(response, 404, apiError('not_found', 'No such endpoint'));
  }

  private async createSegment(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      request.resume();
      return sendJson(response, 415, apiError('unsupported_media_type', 'Send application/json'));
    }
    const body = await readJson(request);
    const name = body?.['name'];
    const description = body?.['description'];
    if (typeof name !== 'string' || name.length < 1 || name.length > 128 || /\p{Cc}/u.test(name)) {
      return sendJson(
        response,
        400,
        apiError('invalid_name', 'Segment name must be 1 to 128 printable characters'),
      );
    }
    if (description !== undefined && (typeof description !== 'string' || description.length > 1000)) {
      return sendJson(
        response,
        400,
        apiError('invalid_description', 'Description must be at most 1000 characters'),
      );
    }
    if ([...this.segments.values()].some((s) => s.name === name)) {
      return sendJson(response, 409, apiError('duplicate_name', 'A segment with this name already exists'));
    }
    const id = `seg_${String(this.nextId++).padStart(6, '0')}`;
    this.segments.set(id, {
      id,
      name,
      description: typeof description === 'string' ? description : null,
      state: 'awaiting_file',
      failureReason: null,
      header: null,
      rowCount: 0,
      rows: [],
      bytes: 0,
      matchRate: null,
    });
    if (this.losing.delete('create')) return void response.destroy();
    sendJson(response, 201, { id, name, status: 'awaiting_file', upload: this.presign(id) });
  }

  /**
   * `GET /v1/segments?name=…`: the account's segments (of that exact name when given), newest
   * first, each with its description and status (`awaiting_file` until a file is stored).
   */
  private listSegments(name: string | null): { segments: Record<string, unknown>[] } {
    const segments = [...this.segments.values()]
      .filter((segment) => name === null || segment.name === name)
      .reverse()
      .map(({ id, name, description, state }) => ({ id, name, description, status: state }));
    return { segments };
  }

  private presign(segmentId: string): { url: string; method: 'PUT'; expires_at: string } {
    const key = randomBytes(16).toString('hex');
    const expiresAt = Date.now() + this.options.urlTtlMs;
    this.urls.set(key, { segmentId, expiresAt, used: false });
    const signature = this.sign(key, expiresAt);
    return {
      url: `${this.url}/upload/${key}?X-Expires=${expiresAt}&X-Signature=${signature}`,
      method: 'PUT',
      expires_at: new Date(expiresAt).toISOString(),
    };
  }

  private sign(key: string, expiresAt: number): string {
    return createHmac('sha256', this.signingKey).update(`${key}\n${expiresAt}`).digest('hex');
  }

  private async putObject(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const key = url.pathname.slice('/upload/'.length);
    const expires = Number(url.searchParams.get('X-Expires'));
    const signature = Buffer.from(url.searchParams.get('X-Signature') ?? '');
    const grant = this.urls.get(key);
    const expected = Buffer.from(this.sign(key, expires));
    if (
      grant === undefined ||
      signature.length !== expected.length ||
      !timingSafeEqual(signature, expected)
    ) {
      return this.storageError(
        response,
        403,
        'SignatureDoesNotMatch',
        'The request signature does not match',
      );
    }
    if (request.headers.authorization !== undefined) {
      return this.storageError(response, 400, 'InvalidArgument', 'Only one auth mechanism allowed');
    }
    if (Date.now() > grant.expiresAt || expires !== grant.expiresAt) {
      return this.storageError(response, 403, 'AccessDenied', 'Request has expired');
    }
    if (grant.used)
      return this.storageError(response, 403, 'AccessDenied', 'This upload URL was already used');
    const declared = request.headers['content-length'];
    if (declared === undefined) {
      return this.storageError(
        response,
        411,
        'MissingContentLength',
        'You must provide the Content-Length HTTP header',
      );
    }
    if (Number(declared) > this.options.maxFileBytes) {
      return this.storageError(
        response,
        400,
        'EntityTooLarge',
        'Your proposed upload exceeds the maximum allowed size',
      );
    }
    if (request.headers['content-type'] !== 'text/csv') {
      return this.storageError(response, 400, 'InvalidArgument', 'Content-Type must be text/csv');
    }
    grant.used = true;
    const segment = this.segments.get(grant.segmentId)!;
    const file = new FileCheck();
    const lines = new LineSplitter((line) => file.line(line));
    let bytes = 0;
    this.receivedBytes = 0;
    for await (const chunk of request) {
      bytes += (chunk as Buffer).length;
      this.receivedBytes = bytes;
      lines.push(chunk as Buffer);
    }
    lines.end();
    file.finish();
    if (bytes !== Number(declared)) {
      return this.storageError(response, 400, 'IncompleteBody', 'The body is shorter than Content-Length');
    }
    // Stored: the platform processes it later and says how it went by e-mail only.
    this.storedUploads++;
    Object.assign(segment, {
      state: 'processing',
      header: file.header,
      rowCount: file.rowCount,
      rows: file.rows,
      bytes,
    });
    if (this.losing.delete('upload')) response.destroy();
    else {
      response.writeHead(200, { etag: `"${randomBytes(8).toString('hex')}"` });
      response.end();
    }
    setTimeout(() => {
      if (file.failure !== null) {
        Object.assign(segment, { state: 'failed', failureReason: file.failure });
        this.emails.push({
          segmentId: segment.id,
          subject: `Segment ${segment.name} failed`,
          reason: file.failure,
        });
      } else {
        Object.assign(segment, { state: 'ready', matchRate: this.options.matchRate });
        this.emails.push({
          segmentId: segment.id,
          subject: `Segment ${segment.name} is ready`,
          reason: null,
        });
      }
    }, this.options.processingMs).unref();
  }

  private storageError(response: ServerResponse, status: number, code: string, message: string): void {
    refuseEarly(
      response,
      status,
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
      'application/xml',
    );
  }
}

const apiError = (code: string, message: string) => ({ error: { code, message } });

/** The platform's processing of a stored file, line by line; the first problem is the failure. */
class FileCheck {
  header: string[] | null = null;
  rowCount = 0;
  rows: string[][] = [];
  failure: string | null = null;
  private hashed: boolean[] = [];

  finish(): void {
    if (this.failure !== null) return;
    if (this.header === null) this.failure = 'The file is empty';
    else if (this.rowCount === 0) this.failure = 'The file has no rows';
  }

  line(text: string): void {
    if (this.failure !== null) return;
    let fields: string[];
    try {
      fields = parseCsvLine(text);
    } catch {
      this.failure = `Line ${this.rowCount + 1} is not valid CSV`;
      return;
    }
    if (this.header === null) {
      const unknown = fields.find((f) => !COLUMNS.has(f));
      if (unknown !== undefined) this.failure = `Unknown column "${unknown}" (is the header missing?)`;
      else if (new Set(fields).size !== fields.length) this.failure = 'Duplicate column in header';
      this.header = fields;
      this.hashed = fields.map((f) => !PLAIN_COLUMNS.has(f));
      return;
    }
    this.rowCount++;
    if (fields.length !== this.header.length) {
      this.failure = `Row ${this.rowCount} has ${fields.length} fields; the header has ${this.header.length}`;
      return;
    }
    for (let i = 0; i < fields.length; i++) {
      const value = fields[i]!;
      if (value === '') continue;
      if (this.hashed[i] ? !SHA256_HEX.test(value) : LOOKS_HASHED.test(value)) {
        this.failure = `Row ${this.rowCount}: column ${this.header[i]} mixes hashed and plain values`;
        return;
      }
    }
    if (this.rows.length < KEPT_ROWS) this.rows.push(fields);
  }
}
