import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An error answer the next matching requests get instead of the platform's own handling. */
export interface Injection {
  /** `hang`: never answer (a timeout); the connection stays open until the server stops. */
  status: number | 'hang';
  /** JSON (objects) or raw text (strings, e.g. object storage's XML). */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** Only requests for which this holds (default: all). */
  match?: (method: string, path: string) => boolean;
  /** How many requests get it (default 1). */
  times?: number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  /** Header names only: values carry credentials. */
  headerNames: string[];
}

/**
 * The parts every local platform shares: an HTTP server on 127.0.0.1 that keeps its port across
 * stop/start (a platform that is down, then back), a log of requests, and injected error answers
 * that take precedence over the platform's handling.
 */
export abstract class FakePlatform {
  requests: LoggedRequest[] = [];
  private server: Server | null = null;
  private port = 0;
  private injections: Injection[] = [];

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => this.dispatch(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: calls are refused until `start`. */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Down (connections refused) for `ms`, then back on the same port. */
  async downFor(ms: number): Promise<void> {
    await this.stop();
    setTimeout(() => {
      this.start().catch(() => {});
    }, ms).unref();
  }

  inject(injection: Injection): void {
    this.injections.push({ times: 1, ...injection });
  }

  protected abstract handle(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void>;

  private dispatch(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://platform.invalid');
    const method = request.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, headerNames: Object.keys(request.headers) });
    const index = this.injections.findIndex((i) => i.match?.(method, url.pathname) ?? true);
    if (index >= 0) {
      const injection = this.injections[index]!;
      injection.times = (injection.times ?? 1) - 1;
      if (injection.times <= 0) this.injections.splice(index, 1);
      if (injection.status === 'hang') {
        request.resume();
        return;
      }
      const text = typeof injection.body === 'string' ? injection.body : JSON.stringify(injection.body ?? {});
      request.resume();
      response.writeHead(injection.status, {
        'content-type': typeof injection.body === 'string' ? 'application/xml' : 'application/json',
        ...injection.headers,
      });
      response.end(text);
      return;
    }
    this.handle(request, response, url).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
      else response.destroy();
    });
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * Answers before the body is read (a refused upload): says so and closes the connection, as
 * servers do, rather than reading gigabytes it will throw away.
 */
export function refuseEarly(response: ServerResponse, status: number, body: string, type: string): void {
  response.writeHead(status, { 'content-type': type, connection: 'close' });
  response.end(body);
}

/** Reads a small JSON body; null when it is not a JSON object. */
export async function readJson(
  request: IncomingMessage,
  limit = 64 * 1024,
): Promise<Record<string, unknown> | null> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > limit) return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Splits a byte stream into text lines (LF or CRLF) as it arrives. */
export class LineSplitter {
  private rest = '';
  private readonly onLine: (line: string) => void;
  constructor(onLine: (line: string) => void) {
    this.onLine = onLine;
  }
  push(chunk: Buffer): void {
    const text = this.rest + chunk.toString('utf8');
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
  end(): void {
    if (this.rest !== '') this.onLine(this.rest.endsWith('\r') ? this.rest.slice(0, -1) : this.rest);
    this.rest = '';
  }
}

/** One CSV record (RFC 4180 quoting; records never span lines in these files). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let value = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        value += line.slice(i, quote);
        i = quote + 1;
        if (line[i] === '"') {
          value += '"';
          i++;
        } else break;
      }
    } else {
      const comma = line.indexOf(',', i);
      value = line.slice(i, comma < 0 ? line.length : comma);
      i = comma < 0 ? line.length : comma;
    }
    fields.push(value);
    if (i >= line.length) return fields;
    if (line[i] !== ',') throw new Error('text after a quoted field');
    i++;
  }
}

export interface MultipartHandlers {
  /** A part starts; `name` is its form field name, `type` its Content-Type. */
  part(name: string, type: string | null, filename: string | null): void;
  data(chunk: Buffer): void;
  /** The current part ended. */
  partEnd(): void;
}

/**
 * A streaming multipart/form-data reader: bodies pass through without being held whole, so a
 * large file part costs the server no more memory than the client.
 */
export class MultipartReader {
  private buffer: Buffer = Buffer.alloc(0);
  private state: 'preamble' | 'headers' | 'data' | 'done' = 'preamble';
  private readonly delimiter: Buffer;
  private readonly handlers: MultipartHandlers;

  constructor(boundary: string, handlers: MultipartHandlers) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    this.handlers = handlers;
    // The first delimiter has no CRLF before it.
    this.buffer = Buffer.from('\r\n');
  }

  get finished(): boolean {
    return this.state === 'done';
  }

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.state === 'done') return;
      if (this.state === 'preamble') {
        const at = this.buffer.indexOf(this.delimiter);
        if (at < 0) return;
        this.buffer = this.buffer.subarray(at + this.delimiter.length);
        this.state = 'headers';
        continue;
      }
      if (this.state === 'headers') {
        if (this.buffer.length < 2) return;
        if (this.buffer.subarray(0, 2).toString() === '--') {
          this.state = 'done';
          return;
        }
        const end = this.buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.buffer.length > 16 * 1024) throw new Error('part headers too long');
          return;
        }
        const lines = this.buffer.subarray(2, end).toString('utf8').split('\r\n');
        const header = (name: string) =>
          lines
            .find((l) => l.toLowerCase().startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim() ?? null;
        const disposition = header('content-disposition') ?? '';
        const name = /\bname="([^"]*)"/.exec(disposition)?.[1] ?? '';
        const filename = /\bfilename="([^"]*)"/.exec(disposition)?.[1] ?? null;
        this.handlers.part(name, header('content-type'), filename);
        this.buffer = this.buffer.subarray(end + 4);
        this.state = 'data';
        continue;
      }
      const at = this.buffer.indexOf(this.delimiter);
      if (at < 0) {
        // Keep enough to recognise a delimiter split across chunks.
        const safe = this.buffer.length - this.delimiter.length;
        if (safe > 0) {
          this.handlers.data(this.buffer.subarray(0, safe));
          this.buffer = this.buffer.subarray(safe);
        }
        return;
      }
      if (at > 0) this.handlers.data(this.buffer.subarray(0, at));
      this.handlers.partEnd();
      this.buffer = this.buffer.subarray(at + this.delimiter.length);
      this.state = 'headers';
    }
  }
}
