/** Minimal cookie handling for the few cookies the service sets (no dependency for two cookies). */

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/**
 * A Set-Cookie value: HttpOnly, SameSite=Strict and Path=/ always; Secure when the service is
 * reached over https. `maxAgeSeconds` 0 deletes the cookie. Values are our own base64url tokens.
 */
export function cookieHeader(
  name: string,
  value: string,
  options: { maxAgeSeconds: number; secure: boolean },
): string {
  const attributes = [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${options.maxAgeSeconds}`,
  ];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}
