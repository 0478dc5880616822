import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookSender } from '../../domain/ports/webhook-sender.ts';
import { isAllowlisted, isPublicAddress, refuseWebhookTarget } from '../../domain/webhooks/public-address.ts';

/**
 * Webhook calls over node:http(s) with an SSRF guard: the destination must resolve to public
 * addresses only (checked on the addresses actually connected to, so DNS rebinding cannot slip
 * through), unless the host is allowlisted. Redirects are not followed; the whole call has one
 * timeout.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly allowHosts: readonly string[];
  private readonly timeoutMs: number;

  constructor(options: { allowHosts: readonly string[]; timeoutMs: number }) {
    this.allowHosts = options.allowHosts;
    this.timeoutMs = options.timeoutMs;
  }

  /** See {@link WebhookSender.postJson}. */
  postJson(target: string, json: string, headers: Readonly<Record<string, string>> = {}): Promise<void> {
    const url = new URL(target);
    const refused = refuseWebhookTarget(target, this.allowHosts);
    if (refused !== null) return Promise.reject(new Error(refused));
    const allowlisted = isAllowlisted(url, this.allowHosts);
    const payload = Buffer.from(json);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': payload.length,
          'user-agent': 'listmatch-webhook/1',
        },
        ...(allowlisted ? {} : { lookup: publicOnlyLookup }),
        timeout: this.timeoutMs,
      });
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => clearTimeout(timer));
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else if (status >= 300 && status < 400)
          reject(new Error(`webhook answered ${status}; redirects are not followed`));
        else reject(new Error(`webhook answered ${status}`));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`webhook call failed: ${error.message}`));
      });
      request.end(payload);
    });
  }
}

/** dns.lookup that fails unless every resolved address is public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad !== undefined || list.length === 0) {
      return callback(new Error('webhook host resolves to a non-public address'), '', 0);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
};
