import { hash } from 'node:crypto';
import { type CleanOptions, cleanIdentifier } from './clean-identifier.ts';
import { type IdentifierKey, isHashedKey } from './identifier-keys.ts';

/**
 * How one platform wants the cleaned identifiers: data, not code, so a new file-drop platform is
 * one more entry. Sources: platforms.md (Meta: country code + number without `+`; Google and The
 * Trade Desk/UID2: E.164 with `+` and gmail canonicalized; LiveRamp: the 10-digit national number).
 * LiveRamp is modelled as a plaintext file drop; its hashed form (SHA-1 for phones) is not.
 */
export interface PlatformRendering {
  readonly platform: string;
  /** `digits`: 16505551212; `e164`: +16505551212; `national`: 6505551212 (U.S. numbers only). */
  readonly phone: 'digits' | 'e164' | 'national';
  /** Drop dots and `+tag` from the local part of gmail.com / googlemail.com addresses. */
  readonly canonicalGmail: boolean;
  /** `sha256`: every key but MADID is hashed; `none`: the platform takes plaintext. */
  readonly hashing: 'sha256' | 'none';
  /** Encoding of the SHA-256 digest. */
  readonly digest: 'hex' | 'base64';
}

export const PLATFORM_RENDERINGS = {
  meta: { platform: 'meta', phone: 'digits', canonicalGmail: false, hashing: 'sha256', digest: 'hex' },
  google: { platform: 'google', phone: 'e164', canonicalGmail: true, hashing: 'sha256', digest: 'hex' },
  thetradedesk: {
    platform: 'thetradedesk',
    phone: 'e164',
    canonicalGmail: true,
    hashing: 'sha256',
    digest: 'base64',
  },
  liveramp: {
    platform: 'liveramp',
    phone: 'national',
    canonicalGmail: false,
    hashing: 'none',
    digest: 'hex',
  },
} as const satisfies Record<string, PlatformRendering>;

export type PlatformName = keyof typeof PLATFORM_RENDERINGS;

/** Google and UID2 canonicalize these domains only; Meta and LiveRamp hash the address as written. */
function canonicalGmail(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1);
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return email;
  let local = email.slice(0, at);
  const plus = local.indexOf('+');
  if (plus >= 0) local = local.slice(0, plus);
  local = local.replaceAll('.', '');
  return local === '' ? '' : `${local}@${domain}`;
}

/**
 * The platform's plaintext form of a neutral value (from cleanIdentifier), or null when the
 * platform cannot take it (a non-U.S. phone for a `national` platform).
 */
export function renderIdentifier(
  rendering: PlatformRendering,
  key: IdentifierKey,
  neutral: string,
): string | null {
  if (key === 'PHONE') {
    if (rendering.phone === 'digits') return neutral;
    if (rendering.phone === 'e164') return `+${neutral}`;
    // National: only NANP numbers have one the platform understands.
    return neutral.length === 11 && neutral.charCodeAt(0) === 49 ? neutral.slice(1) : null;
  }
  if (key === 'EMAIL' && rendering.canonicalGmail) {
    const email = canonicalGmail(neutral);
    return email === '' ? null : email;
  }
  return neutral;
}

/** SHA-256 of the UTF-8 of `value`, in the platform's encoding. */
export function digestIdentifier(rendering: PlatformRendering, value: string): string {
  return hash('sha256', value, rendering.digest);
}

const HEX = new Uint8Array(128);
for (const ch of '0123456789abcdefABCDEF') HEX[ch.charCodeAt(0)] = 1;

/** Whether `value` is a SHA-256 digest in hex (64 hex digits, either case): a value hashed by the client. */
export function isSha256Hex(value: string): boolean {
  if (value.length !== 64) return false;
  for (let i = 0; i < 64; i++) if (HEX[value.charCodeAt(i)] !== 1) return false;
  return true;
}

/** A client-hashed value in the platform's digest encoding: lower-case hex unchanged, or Base64. */
function passThroughDigest(rendering: PlatformRendering, hex: string): string {
  const lower = hex.toLowerCase();
  return rendering.digest === 'hex' ? lower : Buffer.from(lower, 'hex').toString('base64');
}

/**
 * One raw cell → what the platform receives: the digest of the rendered value, the MADID as is,
 * or '' (blank) when the value is unusable, never a digest of ''. An already hashed value (64 hex
 * digits, surrounding spaces allowed) passes through: it cannot be cleaned, and the client is
 * trusted to have normalized it; a plaintext platform cannot take one, so it is blank there. The
 * job refuses columns that mix the two (classifyColumn). Never throws.
 */
export function renderCell(
  rendering: PlatformRendering,
  key: IdentifierKey,
  raw: string,
  options?: CleanOptions,
): string {
  const hashed = isHashedKey(key);
  if (hashed && raw.length >= 64 && raw.length < 80) {
    const trimmed = raw.trim();
    if (isSha256Hex(trimmed))
      return rendering.hashing === 'none' ? '' : passThroughDigest(rendering, trimmed);
  }
  const neutral = cleanIdentifier(key, raw, options);
  if (neutral === null) return '';
  const value = renderIdentifier(rendering, key, neutral);
  if (value === null) return '';
  return hashed && rendering.hashing === 'sha256' ? digestIdentifier(rendering, value) : value;
}

export type ColumnHashing = 'empty' | 'plain' | 'hashed' | 'mixed';

/**
 * Tells, value by value, whether a column holds plaintext, client-hashed values, both or nothing
 * (blank cells do not count). A mixed column is refused by the job: a half-hashed list would be
 * hashed twice in part and silently never match. Streaming, so a 1M-row file needs no copy.
 */
export class ColumnHashClassifier {
  #plain = 0;
  #hashed = 0;

  add(raw: string): void {
    if (raw.length >= 64 && raw.length < 80 && isSha256Hex(raw.trim())) this.#hashed++;
    else if (raw.trim() !== '') this.#plain++;
  }

  get plainCount(): number {
    return this.#plain;
  }

  get hashedCount(): number {
    return this.#hashed;
  }

  get result(): ColumnHashing {
    if (this.#plain === 0) return this.#hashed === 0 ? 'empty' : 'hashed';
    return this.#hashed === 0 ? 'plain' : 'mixed';
  }
}

/** classifyColumn over a whole column of raw cells (ColumnHashClassifier for streams). */
export function classifyColumn(values: Iterable<string>): ColumnHashing {
  const classifier = new ColumnHashClassifier();
  for (const value of values) classifier.add(value);
  return classifier.result;
}
