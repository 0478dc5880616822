import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  FakePlatform,
  LineSplitter,
  MultipartReader,
  parseCsvLine,
  readJson,
  refuseEarly,
  sendJson,
} from './fake-platform.ts';

/**
 * The media buying platform's file template: column name → field type, written out here rather
 * than imported from the adapter's profile table, so that a wrong table fails the tests.
 */
const TEMPLATE: Readonly<Record<string, string>> = {
  voterbase_id: 'VOTER_ID',
  email: 'EMAIL',
  phone: 'PHONE',
  first_name: 'FIRST_NAME',
  last_name: 'LAST_NAME',
  city: 'CITY',
  state: 'REGION',
  zip: 'POSTAL_CODE',
};
const LOOKS_HASHED = /^[0-9a-fA-F]{64}$/;
const KEPT_ROWS = 1000;

export interface MbpAudience {
  id: number;
  name: string;
  description: string | null;
  status: 'empty' | 'processing' | 'ready' | 'failed';
  matchRate: number | null;
  failureReason: string | null;
  header: string[] | null;
  columnMap: Record<string, string> | null;
  rowCount: number;
  rows: string[][];
  /** Status reads while processing; ready after `pollsUntilReady`. */
  polls: number;
}

export interface MbpOptions {
  token: string;
  maxFileBytes?: number;
  /** Status reads that answer `processing` before the audience is ready. */
  pollsUntilReady?: number;
  matchRate?: number;
}

/**
 * A local media buying platform with the multipart shape, checking what the real one checks:
 * `X-Api-Key` (401 otherwise), JSON create with a unique name of 1 to 255 characters (422),
 * multipart/form-data with a declared Content-Length within the size limit (411, 413), a
 * `columnMap` part before the `file` part, header columns from the platform's template each
 * mapped to its own field type and nothing else in the map, equal field counts, plaintext only
 * (a digest anywhere means a mixed file: 422), at least one row, one file at a time (409). Its
 * status moves processing → ready (after `pollsUntilReady` reads, with `matchRate`) or → failed
 * with the reason set by `failNextProcessing`.
 */
export class MbpServer extends FakePlatform {
  token: string;
  readonly audiences = new Map<number, MbpAudience>();
  receivedBytes = 0;
  private readonly options: Required<Omit<MbpOptions, 'token'>>;
  private nextId = 4100;
  private processingFailure: string | null = null;

  constructor(options: MbpOptions) {
    super();
    this.token = options.token;
    this.options = {
      maxFileBytes: options.maxFileBytes ?? 1024 ** 3,
      pollsUntilReady: options.pollsUntilReady ?? 2,
      matchRate: options.matchRate ?? 0.62,
    };
  }

  /** The next uploaded file passes the checks but fails in processing with `reason`. */
  failNextProcessing(reason: string): void {
    this.processingFailure = reason;
  }

  protected async handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (request.headers['x-api-key'] !== this.token) {
      return refuseEarly(response, 401, errors('API key is missing or invalid'), 'application/json');
    }
    if (method === 'POST' && path === '/api/v1/audiences') return this.create(request, response);
    const files = /^\/api\/v1\/audiences\/(\d+)\/files$/.exec(path);
    if (method === 'POST' && files !== null) return this.upload(request, response, Number(files[1]));
    const status = /^\/api\/v1\/audiences\/(\d+)$/.exec(path);
    if (method === 'GET' && status !== null) {
      const audience = this.audiences.get(Number(status[1]));
      if (audience === undefined) return sendJson(response, 404, JSON.parse(errors('Audience not found')));
      if (audience.status === 'processing' && ++audience.polls >= this.options.pollsUntilReady) {
        audience.status = 'ready';
        audience.matchRate = this.options.matchRate;
      }
      const { id, name, status: state, matchRate, failureReason } = audience;
      return sendJson(response, 200, { id, name, status: state, matchRate, failureReason });
    }
    request.resume();
    sendJson(response, 404, JSON.parse(errors('Not found')));
  }

  private async create(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return refuseEarly(response, 415, errors('Content-Type must be application/json'), 'application/json');
    }
    const body = await readJson(request);
    const name = body?.['name'];
    const description = body?.['description'];
    if (typeof name !== 'string' || name.trim().length < 1 || name.length > 255) {
      return sendJson(response, 422, JSON.parse(errors('Name must be 1 to 255 characters', 'name')));
    }
    if ([...this.audiences.values()].some((a) => a.name === name)) {
      return sendJson(response, 422, JSON.parse(errors('Audience name has already been taken', 'name')));
    }
    const id = this.nextId++;
    this.audiences.set(id, {
      id,
      name,
      description: typeof description === 'string' ? description : null,
      status: 'empty',
      matchRate: null,
      failureReason: null,
      header: null,
      columnMap: null,
      rowCount: 0,
      rows: [],
      polls: 0,
    });
    sendJson(response, 201, { id, name, status: 'empty' });
  }

  private async upload(request: IncomingMessage, response: ServerResponse, id: number): Promise<void> {
    const audience = this.audiences.get(id);
    const refuse = (status: number, message: string) =>
      refuseEarly(response, status, errors(message), 'application/json');
    if (audience === undefined) return refuse(404, 'Audience not found');
    if (audience.status === 'processing') return refuse(409, 'Audience is still processing a file');
    const boundary = /boundary=("?)([^";]+)\1/.exec(request.headers['content-type'] ?? '')?.[2];
    if (
      !(request.headers['content-type'] ?? '').startsWith('multipart/form-data') ||
      boundary === undefined
    ) {
      return refuse(415, 'Content-Type must be multipart/form-data');
    }
    const declared = request.headers['content-length'];
    if (declared === undefined) return refuse(411, 'Content-Length is required');
    if (Number(declared) > this.options.maxFileBytes)
      return refuse(413, 'File exceeds the upload size limit');

    const check = new UploadCheck();
    let current: string | null = null;
    let mapText = '';
    const lines = new LineSplitter((line) => check.line(line));
    const reader = new MultipartReader(boundary, {
      part: (name, type, filename) => {
        current = name;
        if (name === 'file') {
          if (check.columnMap === null) check.fail('The columnMap part must come before the file part');
          else if (filename === null || type !== 'text/csv')
            check.fail('The file part must be a text/csv file');
        }
      },
      data: (chunk) => {
        if (current === 'columnMap') mapText += chunk.toString('utf8');
        else if (current === 'file') lines.push(chunk);
      },
      partEnd: () => {
        if (current === 'columnMap') check.setColumnMap(mapText);
        if (current === 'file') {
          lines.end();
          check.fileEnded = true;
        }
        current = null;
      },
    });
    let bytes = 0;
    this.receivedBytes = 0;
    try {
      for await (const chunk of request) {
        bytes += (chunk as Buffer).length;
        this.receivedBytes = bytes;
        reader.push(chunk as Buffer);
      }
    } catch {
      return refuse(400, 'Malformed multipart body');
    }
    if (bytes !== Number(declared) || !reader.finished) return refuse(400, 'Malformed multipart body');
    check.finish();
    if (check.failure !== null) return sendJson(response, 422, JSON.parse(errors(check.failure, 'file')));
    Object.assign(audience, {
      status: 'processing',
      header: check.header,
      columnMap: check.columnMap,
      rowCount: check.rowCount,
      rows: check.rows,
      polls: 0,
    });
    if (this.processingFailure !== null) {
      Object.assign(audience, { status: 'failed', failureReason: this.processingFailure });
      this.processingFailure = null;
    }
    sendJson(response, 202, { fileId: `file_${id}_1`, status: 'processing', rowsReceived: check.rowCount });
  }
}

const errors = (message: string, field?: string) =>
  JSON.stringify({ errors: [{ message, ...(field === undefined ? {} : { field }) }] });

/** The platform's synchronous checks of an uploaded file; the first problem is the answer. */
class UploadCheck {
  columnMap: Record<string, string> | null = null;
  header: string[] | null = null;
  rowCount = 0;
  rows: string[][] = [];
  failure: string | null = null;
  fileEnded = false;

  fail(message: string): void {
    this.failure ??= message;
  }

  setColumnMap(text: string): void {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('not an object');
      this.columnMap = value as Record<string, string>;
    } catch {
      this.fail('columnMap must be a JSON object');
      this.columnMap = {};
    }
  }

  line(text: string): void {
    if (this.failure === null) this.failure = this.problem(text);
  }

  /** What is wrong with this line, or null. */
  private problem(text: string): string | null {
    let fields: string[];
    try {
      fields = parseCsvLine(text);
    } catch {
      return `Line ${this.rowCount + 2} is not valid CSV`;
    }
    if (this.header === null) {
      this.header = fields;
      const map = this.columnMap ?? {};
      for (const column of fields) {
        if (TEMPLATE[column] === undefined) return `Unknown column "${column}" (is the header missing?)`;
        if (map[column] !== TEMPLATE[column]) return `columnMap must map "${column}" to ${TEMPLATE[column]}`;
      }
      if (new Set(fields).size !== fields.length) return 'Duplicate column in header';
      const extra = Object.keys(map).find((column) => !fields.includes(column));
      if (extra !== undefined) return `columnMap names "${extra}", which is not in the file`;
      return null;
    }
    this.rowCount++;
    if (fields.length !== this.header.length) {
      return `Row ${this.rowCount} has ${fields.length} fields; the header has ${this.header.length}`;
    }
    const hashed = fields.findIndex((value) => LOOKS_HASHED.test(value));
    if (hashed >= 0) {
      return `Row ${this.rowCount}: column ${this.header[hashed]} holds a hashed value; this platform takes plaintext only`;
    }
    if (this.rows.length < KEPT_ROWS) this.rows.push(fields);
    return null;
  }

  finish(): void {
    if (this.columnMap === null) this.fail('The columnMap part is missing');
    else if (!this.fileEnded) this.fail('The file part is missing');
    else if (this.header === null) this.fail('The file is empty');
    else if (this.rowCount === 0) this.fail('The file has no rows');
  }
}
