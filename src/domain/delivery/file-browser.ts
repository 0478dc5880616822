import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { KeyService } from '../keys/key-service.ts';
import type { ApiKeyRecord } from '../keys/key-types.ts';
import type { FileDrop, FolderFile } from '../ports/file-drop.ts';

/**
 * The web file browser's sign-in and access: a client signs in with its API key and gets a
 * short-lived session token (`<key id>.<expiry s>.<hmac>`) that names the key by id only, so the
 * key itself is never stored in a cookie, a URL or a log. Every request re-checks the key, so a
 * revoked key's session stops working at once. Files come from the key's own folder only.
 */
export class FileBrowser {
  private readonly keys: KeyService;
  private readonly drop: FileDrop;
  private readonly secret: Buffer;
  private readonly sessionTtlMs: number;

  /** `secret` is specific to the browser (derived from the service secret), never the URL-signing key itself. */
  constructor(deps: { keys: KeyService; drop: FileDrop; secret: Buffer; sessionTtlMs: number }) {
    this.keys = deps.keys;
    this.drop = deps.drop;
    this.secret = deps.secret;
    this.sessionTtlMs = deps.sessionTtlMs;
  }

  /** A random nonce for the sign-in form; the form carries `signInToken(nonce)`, a cookie carries the nonce. */
  newSignInNonce(): string {
    return randomBytes(18).toString('base64url');
  }

  /** The form token bound to a nonce: a site that cannot read our pages cannot make one. */
  signInToken(nonce: string): string {
    return this.mac('sign-in', nonce);
  }

  /** The sign-out form token of a session, so another site cannot sign the client out. */
  signOutToken(session: string): string {
    return this.mac('sign-out', session);
  }

  /** Constant-time check of a form token against what it must be. */
  tokenMatches(given: string | undefined, expected: string): boolean {
    if (given === undefined) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Authenticates the presented key (UNAUTHORIZED when bad) and returns a session token. */
  async signIn(
    presented: string,
    now = Date.now(),
  ): Promise<{ session: string; maxAgeSeconds: number; key: ApiKeyRecord }> {
    const key = await this.keys.authenticate(presented);
    const expires = Math.floor((now + this.sessionTtlMs) / 1000);
    const body = `${key.id}.${expires}`;
    return {
      session: `${body}.${this.mac('session', body)}`,
      maxAgeSeconds: Math.floor(this.sessionTtlMs / 1000),
      key,
    };
  }

  /** The key of a valid, unexpired session whose key is still active; null otherwise. */
  async sessionKey(session: string | undefined, now = Date.now()): Promise<ApiKeyRecord | null> {
    if (session === undefined) return null;
    const parts = session.split('.');
    if (parts.length !== 3) return null;
    const [keyId, expires, mac] = parts as [string, string, string];
    if (!this.tokenMatches(mac, this.mac('session', `${keyId}.${expires}`))) return null;
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now) return null;
    return await this.keys.activeKey(keyId);
  }

  async list(key: ApiKeyRecord): Promise<FolderFile[]> {
    return await this.drop.list(key.id);
  }

  /** Opens a file of the key's own folder (NOT_FOUND for anything else). */
  async open(key: ApiKeyRecord, name: string): Promise<{ bytes: number; stream: Readable }> {
    return await this.drop.read(key.id, name);
  }

  private mac(purpose: string, value: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${value}`).digest('base64url');
  }
}
