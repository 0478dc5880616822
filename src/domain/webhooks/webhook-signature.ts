import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of a Standard Webhooks secret; the rest is base64 of the HMAC key bytes. */
const SECRET_PREFIX = 'whsec_';

/** A new per-key signing secret: `whsec_` + base64 of 32 random bytes (the standard's format). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers for one call (https://www.standardwebhooks.com): the signed content
 * is `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 with the secret's decoded bytes, sent
 * as `v1,<base64>`; with several secrets (during a rotation) one signature each, space-separated,
 * and a receiver accepts the call when any of them verifies. `id` stays the same on every retry of
 * one delivery so receivers can drop duplicates; `timestamp` is seconds since the epoch at the
 * attempt (receivers reject stale ones).
 */
export function webhookSignatureHeaders(input: {
  id: string;
  timestamp: number;
  body: string;
  secrets: readonly string[];
}): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  if (input.secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  const timestamp = String(Math.floor(input.timestamp));
  const signatures = input.secrets.map((secret) => {
    if (!secret.startsWith(SECRET_PREFIX)) throw new Error('webhook secret must start with whsec_');
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
    return `v1,${createHmac('sha256', key).update(`${input.id}.${timestamp}.${input.body}`).digest('base64')}`;
  });
  return {
    'webhook-id': input.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}

/** The delivery id of a job's completion webhook: one per job, the same on every retry. */
export const completionWebhookId = (jobId: string): string => `msg_${jobId}`;
