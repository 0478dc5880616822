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

  verify(
    request: { method: string; jobId: string; name: string; query: Record<string, unknown> },
    now: number,
  ): UrlGrant {
    const { op, exp, max, sig } = request.query;
    if (
      typeof op !== 'string' ||
      typeof exp !== 'string' ||
      typeof sig !== 'string' ||
      (op !== 'put' && op !== 'get')
    ) {
      throw new AppError('URL_INVALID', 'this URL is not a valid presigned URL');
    }
    if (max !== undefined && (typeof max !== 'string' || !/^\d+$/.test(max))) {
      throw new AppError('URL_INVALID', 'this URL is not a valid presigned URL');
    }
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
    if (!Number.isSafeInteger(grant.expiresAt) || grant.expiresAt * 1000 < now) {
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
