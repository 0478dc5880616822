/** A scripted browser for the web file browser: follows its cookies and forms over plain fetch. */

export interface BrowserSession {
  /** Cookie header value to send (name=value pairs). */
  cookie: string;
  setCookies: string[];
}

/** Cookies (name=value) of a response's Set-Cookie headers. */
export const cookiePairs = (response: Response): string[] =>
  response.headers.getSetCookie().map((line) => line.split(';')[0]!);

/** GET /browse and read the sign-in form's token and its nonce cookie. */
export async function signInForm(base: string): Promise<{ token: string; cookie: string; html: string }> {
  const response = await fetch(`${base}/browse`);
  const html = await response.text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error(`no sign-in token in the form: ${response.status}`);
  return { token, cookie: cookiePairs(response).join('; '), html };
}

/** Posts the sign-in form as a same-origin browser would. */
export async function postSignIn(
  base: string,
  form: Record<string, string>,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(`${base}/browse/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Signs in with an API key; returns the session cookie to send. */
export async function signIn(base: string, key: string): Promise<BrowserSession> {
  const form = await signInForm(base);
  const response = await postSignIn(base, { api_key: key, token: form.token }, { cookie: form.cookie });
  if (response.status !== 303) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const setCookies = response.headers.getSetCookie();
  const session = cookiePairs(response).find((pair) => !pair.endsWith('='));
  if (session === undefined) throw new Error('sign-in set no session cookie');
  return { cookie: session, setCookies };
}

/** File names linked from the folder page. */
export const listedFiles = (html: string): string[] =>
  [...html.matchAll(/href="\/browse\/files\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
