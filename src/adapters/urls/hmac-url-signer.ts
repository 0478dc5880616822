import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../domain/errors.ts';
import type { UrlGrant, VerifyingUrlSigner } from '../../domain/ports/url-signer.ts';

/**
 * Embedded presigned URLs: `<base>/files/<jobId>/<name>?op=…&exp=…[&max=…]&sig=…`, where `sig` is
 * an HMAC-SHA256 over every part of the grant. The HTTP method must fit `op` (PUT for put; GET or
 * HEAD for get), so a download URL cannot upload and an upload URL cannot download.
 */
export class HmacUrlSigner implements VerifyingUrlSigner {
  private readonly secret: Buffer;
  private readonly baseUrl: string;

  constructor(options: { secret: string | Buffer; baseUrl: string }) {
    this.secret = Buffer.isBuffer(options.secret) ? options.secret : Buffer.from(options.secret);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async sign(grant: UrlGrant): Promise<string> {
    const query = new URLSearchParams({ op: grant.op, exp: String(grant.expiresAt) });
    if (grant.maxBytes !== undefined) query.set('max', String(grant.maxBytes));
    query.set('sig', this.signature(grant));
    return `${this.baseUrl}/files/${encodeURIComponent(grant.jobId)}/${encodeURIComponent(grant.name)}?${query}`;
  }

  verify(request: { method: string; jobId: string; name: string; url: string }, now: number): UrlGrant {
    const query = canonicalQuery(request);
    if (query === null) throw new AppError('URL_INVALID', 'this URL is not a valid presigned URL');
    const { op, exp, max, sig } = query;
    const grant: UrlGrant = {
      op,
      jobId: request.jobId,
      name: request.name,
      expiresAt: Number(exp),
      ...(max === undefined ? {} : { maxBytes: Number(max) }),
    };
    const expected = Buffer.from(this.signature(grant));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new AppError('URL_INVALID', 'the URL signature does not match; the URL was altered');
    }
    if (grant.expiresAt * 1000 < now) {
      throw new AppError('URL_INVALID', 'this URL has expired; register the job again for a new one');
    }
    const method = request.method.toUpperCase();
    const fits = op === 'put' ? method === 'PUT' : method === 'GET' || method === 'HEAD';
    if (!fits) {
      throw new AppError(
        'URL_INVALID',
        op === 'put'
          ? 'this URL is for uploading with PUT, not for downloading'
          : 'this URL is for downloading with GET, not for uploading',
      );
    }
    return grant;
  }

  private signature(grant: UrlGrant): string {
    const material = ['v1', grant.op, grant.jobId, grant.name, grant.expiresAt, grant.maxBytes ?? ''].join(
      '\n',
    );
    return createHmac('sha256', this.secret).update(material).digest('base64url');
  }
}

/** A positive whole number as `sign` writes it: digits only, no leading zero, at most 15 digits. */
const CANONICAL_NUMBER = /^[1-9][0-9]{0,14}$/;

/**
 * The query of a presigned URL when it is exactly as `sign` writes it, read from the raw request
 * target without decoding: the path is the one signed, the names are op, exp, sig and (uploads)
 * max, each once, and the numbers are canonical (the signature is compared as it is). Anything else (`exp=0…`, `exp=….0`, `0x…`,
 * percent-encoded digits, an extra `&foo=bar`) is null, so one grant has one URL.
 */
function canonicalQuery(request: {
  jobId: string;
  name: string;
  url: string;
}): { op: 'put' | 'get'; exp: string; max?: string; sig: string } | null {
  const mark = request.url.indexOf('?');
  if (mark === -1) return null;
  const path = request.url.slice(0, mark);
  if (path !== `/files/${encodeURIComponent(request.jobId)}/${encodeURIComponent(request.name)}`) return null;
  const values = new Map<string, string>();
  for (const pair of request.url.slice(mark + 1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) return null;
    const name = pair.slice(0, eq);
    if (values.has(name)) return null;
    values.set(name, pair.slice(eq + 1));
  }
  const op = values.get('op');
  const exp = values.get('exp');
  const max = values.get('max');
  const sig = values.get('sig');
  if ((op !== 'put' && op !== 'get') || exp === undefined || sig === undefined) return null;
  if (values.size !== (max === undefined ? 3 : 4) || sig === '') return null;
  if (!CANONICAL_NUMBER.test(exp)) return null;
  if (max !== undefined && !CANONICAL_NUMBER.test(max)) return null;
  return { op, exp, sig, ...(max === undefined ? {} : { max }) };
}
