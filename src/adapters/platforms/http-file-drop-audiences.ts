import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type {
  AudienceStatus,
  CallOptions,
  CreatedAudience,
  FileDropAudiences,
  FileDropProfile,
  FoundAudience,
  StagedAudienceFile,
  UploadReceipt,
  UploadTarget,
} from '../../domain/ports/file-drop-audiences.ts';
import { PlatformError } from '../../domain/ports/platform-error.ts';
import type { FileDropPlatform, MultipartWire, PresignedPutWire } from './file-drop-profiles.ts';
import { type PlatformResponse, platformRequest } from './platform-http.ts';

/** Where the token comes from: read at each call, so a rotated token file needs no restart. */
export type TokenSource = () => Promise<string>;

/** A token given directly, or a file holding it (read at each call, trimmed). */
export function tokenSource(options: { token?: string | undefined; file?: string | undefined }): TokenSource {
  if (options.token !== undefined) {
    const token = options.token;
    return async () => token;
  }
  const file = options.file;
  if (file === undefined) throw new Error('a platform needs a token or a token file');
  return async () => (await readFile(file, 'utf8')).trim();
}

export interface HttpFileDropOptions {
  platform: FileDropPlatform;
  /** The platform's API base, e.g. `https://api.example.com` (paths of the wire shape go below it). */
  baseUrl: string;
  token: TokenSource;
  /** Longest wait for a small call; for an upload, the longest silence. */
  timeoutMs: number;
  /** A presigned URL this close to expiry is replaced before use. */
  presignedMarginMs?: number;
  now?: () => number;
}

/**
 * The file-drop platforms over HTTPS, one instance per platform, driven by its profile table
 * (`file-drop-profiles.ts`). Every failure becomes a PlatformError: network errors, timeouts,
 * 408 and 5xx are `retry`; 429 is `throttle` with the platform's Retry-After; refused
 * credentials and other 4xx are `fatal` with the platform's own reason. The token travels only in
 * the auth header and is scrubbed from anything the platform echoes back.
 */
export class HttpFileDropAudiences implements FileDropAudiences {
  readonly profile: FileDropProfile;
  private readonly platform: FileDropPlatform;
  private readonly baseUrl: string;
  private readonly token: TokenSource;
  private readonly timeoutMs: number;
  private readonly presignedMarginMs: number;
  private readonly now: () => number;

  constructor(options: HttpFileDropOptions) {
    this.platform = options.platform;
    this.profile = options.platform.profile;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs;
    this.presignedMarginMs = options.presignedMarginMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** See {@link FileDropAudiences.createAudience}. */
  async createAudience(
    request: { name: string; description?: string },
    options: CallOptions = {},
  ): Promise<CreatedAudience> {
    const { name, description } = request;
    if (name.length === 0 || name.length > this.profile.maxNameLength) {
      throw new PlatformError(
        'fatal',
        `${this.profile.displayName} takes audience names of 1 to ${this.profile.maxNameLength} characters`,
      );
    }
    const wire = this.platform.wire;
    const answer = await this.callJson(
      'POST',
      wire.createPath,
      { name, ...(description === undefined ? {} : { description }) },
      'create the audience',
      options,
    );
    const id = answer['id'];
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw this.malformed('create the audience');
    }
    const audienceId = String(id);
    if (wire.shape === 'multipart') return { audienceId, upload: { kind: 'multipart' } };
    const upload = answer['upload'];
    const target =
      typeof upload === 'object' && upload !== null
        ? this.presignedTarget(upload as Record<string, unknown>)
        : null;
    // A platform that answers without the URL still gets a file: upload asks for one.
    return { audienceId, upload: target ?? { kind: 'presigned-put', url: '', expiresAt: 0 } };
  }

  /**
   * See {@link FileDropAudiences.findAudience}. The presigned-PUT shape lists segments by name;
   * the multipart shape has no search (null).
   */
  async findAudience(
    request: { name: string; description: string },
    options: CallOptions = {},
  ): Promise<FoundAudience | null> {
    const wire = this.platform.wire;
    if (wire.shape !== 'presigned-put') return null;
    const what = 'look the audience up';
    const answer = await this.callJson(
      'GET',
      `${wire.list.path}?name=${encodeURIComponent(request.name)}`,
      undefined,
      what,
      options,
    );
    const items = answer[wire.list.itemsKey];
    if (!Array.isArray(items)) throw this.malformed(what);
    for (const item of items) {
      if (typeof item !== 'object' || item === null) continue;
      const { id, name, description, status } = item as Record<string, unknown>;
      if (name !== request.name || description !== request.description) continue;
      if (typeof id !== 'string' && typeof id !== 'number') continue;
      return {
        audienceId: String(id),
        hasFile: typeof status === 'string' && status !== wire.list.awaitingFileStatus,
      };
    }
    return null;
  }

  /** See {@link FileDropAudiences.upload}. */
  async upload(
    audienceId: string,
    file: StagedAudienceFile,
    target?: UploadTarget,
    options: CallOptions = {},
  ): Promise<UploadReceipt> {
    if (file.bytes > this.profile.maxFileBytes) {
      throw new PlatformError(
        'fatal',
        `the audience file (${file.bytes} bytes) is larger than ${this.profile.displayName} takes (${this.profile.maxFileBytes} bytes)`,
      );
    }
    const wire = this.platform.wire;
    if (wire.shape === 'multipart') return this.uploadMultipart(wire, audienceId, file, options);
    return this.uploadPresigned(wire, audienceId, file, target, options);
  }

  /** See {@link FileDropAudiences.status}. */
  async status(audienceId: string, options: CallOptions = {}): Promise<AudienceStatus> {
    const wire = this.platform.wire;
    if (this.profile.readiness === 'external' || wire.shape !== 'multipart') {
      return { state: 'awaiting_external_notification' };
    }
    const answer = await this.callJson(
      'GET',
      pathFor(wire.statusPath, audienceId),
      undefined,
      'read the audience status',
      options,
    );
    switch (answer['status']) {
      case 'empty':
      case 'processing':
        return { state: 'processing' };
      case 'ready': {
        const rate = answer['matchRate'];
        return {
          state: 'ready',
          matchRate: typeof rate === 'number' && rate >= 0 && rate <= 1 ? rate : null,
        };
      }
      case 'failed': {
        const reason = answer['failureReason'];
        return {
          state: 'failed',
          reason:
            typeof reason === 'string' && reason !== ''
              ? await this.scrub(reason)
              : `${this.profile.displayName} gave no reason`,
        };
      }
      default:
        throw this.malformed('read the audience status');
    }
  }

  private async uploadPresigned(
    wire: PresignedPutWire,
    audienceId: string,
    file: StagedAudienceFile,
    target: UploadTarget | undefined,
    options: CallOptions,
  ): Promise<UploadReceipt> {
    let url =
      target?.kind === 'presigned-put' &&
      target.url !== '' &&
      target.expiresAt - this.now() > this.presignedMarginMs
        ? target.url
        : null;
    // A presigned URL is single-use and expires: a refused PUT gets one fresh URL, then counts.
    for (let attempt = 1; ; attempt++) {
      if (url === null) {
        const answer = await this.callJson(
          'POST',
          pathFor(wire.uploadUrlPath, audienceId),
          undefined,
          'prepare the upload',
          options,
        );
        const fresh = this.presignedTarget(answer);
        if (fresh === null) throw this.malformed('prepare the upload');
        url = fresh.url;
      }
      const response = await this.send(
        new URL(url),
        {
          method: 'PUT',
          // The URL is the credential: storage refuses a second one in an Authorization header.
          headers: { 'content-type': 'text/csv', 'content-length': file.bytes },
          body: await this.openFile(file),
          streaming: true,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
        'upload the audience file',
      );
      if (response.status >= 200 && response.status < 300) return { rowsReceived: null };
      if (response.status === 403 && attempt === 1) {
        url = null;
        continue;
      }
      throw await this.classify(response, 'upload the audience file');
    }
  }

  private async uploadMultipart(
    wire: MultipartWire,
    audienceId: string,
    file: StagedAudienceFile,
    options: CallOptions,
  ): Promise<UploadReceipt> {
    const columnMap: Record<string, string> = {};
    for (const key of file.keys) {
      const column = this.profile.columns[key];
      const type = wire.fieldTypes[key];
      if (column === undefined || type === undefined) {
        throw new PlatformError('fatal', `${this.profile.displayName} does not take ${key}`);
      }
      columnMap[column] = type;
    }
    const boundary = `----listmatch${randomBytes(12).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="columnMap"\r\n` +
        `Content-Type: application/json\r\n\r\n${JSON.stringify(columnMap)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="audience.csv"\r\n` +
        'Content-Type: text/csv\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const source = await this.openFile(file);
    const body = Readable.from(
      (async function* () {
        yield head;
        for await (const chunk of source) yield chunk as Buffer;
        yield tail;
      })(),
      { objectMode: false },
    );
    const response = await this.send(
      new URL(this.baseUrl + pathFor(wire.uploadPath, audienceId)),
      {
        method: 'POST',
        headers: {
          ...(await this.authHeader()),
          accept: 'application/json',
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + file.bytes + tail.length,
        },
        body,
        streaming: true,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      'upload the audience file',
    );
    if (response.status === 409) {
      // One file per audience: a conflict after an attempt whose answer was lost means that attempt
      // got through. The audience's status tells.
      const answer = await this.callJson(
        'GET',
        pathFor(wire.statusPath, audienceId),
        undefined,
        'read the audience status',
        options,
      );
      if (answer['status'] === 'processing' || answer['status'] === 'ready') return { rowsReceived: null };
    }
    if (response.status < 200 || response.status >= 300) {
      throw await this.classify(response, 'upload the audience file');
    }
    const received = parseJson(response.body)?.['rowsReceived'];
    return { rowsReceived: typeof received === 'number' ? received : null };
  }

  /** A JSON call with the token; resolves with the answer's object, rejects with PlatformError. */
  private async callJson(
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    what: string,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
    const response = await this.send(
      new URL(this.baseUrl + path),
      {
        method,
        headers: {
          ...(await this.authHeader()),
          accept: 'application/json',
          ...(body === undefined
            ? method === 'POST'
              ? { 'content-length': 0 }
              : {}
            : { 'content-type': 'application/json', 'content-length': body.length }),
        },
        ...(body === undefined ? {} : { body }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      what,
    );
    if (response.status < 200 || response.status >= 300) throw await this.classify(response, what);
    const parsed = parseJson(response.body);
    if (parsed === null) throw this.malformed(what);
    return parsed;
  }

  /** platformRequest with network failures turned into `retry` PlatformErrors. */
  private async send(
    url: URL,
    init: Omit<Parameters<typeof platformRequest>[1], 'timeoutMs'>,
    what: string,
  ): Promise<PlatformResponse> {
    try {
      return await platformRequest(url, { ...init, timeoutMs: this.timeoutMs });
    } catch (error) {
      // The message names the condition only (never the URL, which may be presigned).
      if ((error as { code?: string }).code === 'SOURCE_ERROR') {
        throw new PlatformError('retry', 'the staged audience file could not be read', { cause: error });
      }
      const reason = error instanceof Error ? error.message : 'unknown error';
      throw new PlatformError(
        'retry',
        `${this.profile.displayName} could not be reached to ${what}: ${reason}`,
        {
          cause: error,
        },
      );
    }
  }

  private async authHeader(): Promise<Record<string, string>> {
    let token: string;
    try {
      token = await this.token();
    } catch (error) {
      // Not the path: messages reach clients. The operator finds the file in the configuration.
      throw new PlatformError(
        'fatal',
        `the operator's token for ${this.profile.displayName} could not be read`,
        {
          cause: error,
        },
      );
    }
    if (token === '')
      throw new PlatformError('fatal', `the operator's token for ${this.profile.displayName} is empty`);
    return { [this.platform.auth.header]: this.platform.auth.scheme + token };
  }

  private async openFile(file: StagedAudienceFile): Promise<Readable> {
    try {
      return await file.open();
    } catch (error) {
      throw new PlatformError('retry', 'the staged audience file could not be opened', { cause: error });
    }
  }

  /** Turns a non-2xx answer into a PlatformError of the right kind with the platform's reason. */
  private async classify(response: PlatformResponse, what: string): Promise<PlatformError> {
    const { status } = response;
    const name = this.profile.displayName;
    const reason = await this.scrub(platformMessage(response.body));
    const said = reason === '' ? '' : `: ${reason}`;
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.now());
    if (status === 429) {
      return new PlatformError('throttle', `${name} is rate limiting us (HTTP 429)${said}`, {
        httpStatus: status,
        ...(retryAfterMs === null ? {} : { waitMs: retryAfterMs }),
      });
    }
    if (status === 408 || status >= 500) {
      return new PlatformError('retry', `${name} failed to ${what} (HTTP ${status})${said}`, {
        httpStatus: status,
        ...(retryAfterMs === null ? {} : { waitMs: retryAfterMs }),
      });
    }
    if (status === 401) {
      return new PlatformError('fatal', `${name} refused the operator's credentials (HTTP 401)${said}`, {
        httpStatus: status,
      });
    }
    if (status >= 300 && status < 400) {
      return new PlatformError('fatal', `${name} answered with a redirect (HTTP ${status}); check its URL`, {
        httpStatus: status,
      });
    }
    return new PlatformError('fatal', `${name} refused to ${what} (HTTP ${status})${said}`, {
      httpStatus: status,
    });
  }

  private malformed(what: string): PlatformError {
    // Usually a proxy or an API change; a later attempt may get the real answer.
    return new PlatformError('retry', `${this.profile.displayName} gave an unreadable answer to ${what}`);
  }

  private presignedTarget(
    answer: Record<string, unknown>,
  ): Extract<UploadTarget, { kind: 'presigned-put' }> | null {
    const url = answer['url'];
    const expires = answer['expires_at'];
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return null;
    const expiresAt = typeof expires === 'string' ? Date.parse(expires) : Number.NaN;
    // Without a readable expiry, assume it is short-lived: use it at once or not at all.
    return { kind: 'presigned-put', url, expiresAt: Number.isNaN(expiresAt) ? this.now() : expiresAt };
  }

  /**
   * A platform's message made safe to show a client: one line, at most 300 characters, without
   * our token, URLs (a presigned one is a credential), digests or e-mail addresses (row contents).
   */
  private async scrub(message: string): Promise<string> {
    let token = '';
    try {
      token = await this.token();
    } catch {
      // Nothing to scrub if it cannot be read.
    }
    let text = message;
    if (token.length >= 4) text = text.split(token).join('[redacted]');
    return text
      .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
      .replace(/https?:\/\/\S+/g, '[url]')
      .replace(/\b[0-9a-fA-F]{32,}\b/g, '[digest]')
      .replace(/[^\s@]+@[^\s@]+\.[^\s@]+/g, '[e-mail]')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 300);
  }
}

const pathFor = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));

function parseJson(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The platform's own words from an error answer: JSON `{error: {message}}`, `{error: "…"}`,
 * `{message}`, `{errors: [{message}]}`, or object storage's XML `<Message>`.
 */
export function platformMessage(body: string): string {
  const json = parseJson(body);
  if (json !== null) {
    const error = json['error'];
    if (typeof error === 'string') return error;
    if (typeof error === 'object' && error !== null) {
      const message = (error as Record<string, unknown>)['message'];
      if (typeof message === 'string') return message;
    }
    if (typeof json['message'] === 'string') return json['message'];
    const errors = json['errors'];
    if (Array.isArray(errors) && typeof errors[0]?.message === 'string') return errors[0].message as string;
    return '';
  }
  const xml = /<Message>([^<]*)<\/Message>/.exec(body);
  return xml?.[1] ?? '';
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
