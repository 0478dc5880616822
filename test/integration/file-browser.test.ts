import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { cookiePairs, listedFiles, postSignIn, signIn, signInForm } from '../support/file-browser-client.ts';
import {
  type SftpServer,
  sftpUnavailable,
  skipWithoutSftp,
  startSftpServer,
} from '../support/sftp-server.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/** GET with the path sent exactly as written (fetch would resolve dot segments first). */
function rawGet(base: string, path: string, cookie: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers: { cookie } }, async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve({ status: res.statusCode ?? 0, body });
    });
    req.on('error', reject);
    req.end();
  });
}

const ZIP = Buffer.from('PK\u0003\u0004 pretend archive bytes');

async function putFile(t: TestService, keyId: string, name: string, body: Buffer): Promise<void> {
  await t.running.services.drop.put(keyId, name, async () => Readable.from([body]));
}

/** The whole client journey, the same for every backend. */
async function signInListDownload(t: TestService, client: { key: string; id: string }): Promise<void> {
  await putFile(t, client.id, 'mylist.zip', ZIP);
  const session = await signIn(t.base, client.key);
  const page = await fetch(`${t.base}/browse`, { headers: { cookie: session.cookie } });
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.deepEqual(listedFiles(html), ['mylist.zip']);
  const download = await fetch(`${t.base}/browse/files/mylist.zip`, { headers: { cookie: session.cookie } });
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-type'), 'application/zip');
  assert.equal(download.headers.get('content-disposition'), 'attachment; filename="mylist.zip"');
  assert.deepEqual(Buffer.from(await download.arrayBuffer()), ZIP);
}

describe('web file browser (local folder)', () => {
  let t: TestService;
  let alice: { key: string; id: string };
  let bob: { key: string; id: string };

  before(async () => {
    t = await startTestService({}, { voters: false });
    alice = await t.createKey({ name: 'Alice <campaign>' });
    bob = await t.createKey({ name: 'Bob' });
    await putFile(t, bob.id, 'bobs.zip', Buffer.from('bob only'));
  });
  after(async () => await t.stop());

  test('sign in, list and download; the key is never in a URL or a cookie', async () => {
    await signInListDownload(t, alice);
    const form = await signInForm(t.base);
    assert.match(form.html, /<form class="card" method="post" action="\/browse\/sign-in"/);
    assert.doesNotMatch(form.html, /<script/i);
    const session = await signIn(t.base, alice.key);
    assert.ok(!session.cookie.includes(alice.key), 'the session cookie does not hold the key');
    assert.ok(!session.cookie.includes(alice.key.slice(3, 20)));
    const [sessionLine] = session.setCookies.filter((line) => line.startsWith('lm_files='));
    assert.match(sessionLine!, /; Path=\/; HttpOnly; SameSite=Strict; Max-Age=1800$/, 'not Secure over http');
    const page = await (await fetch(`${t.base}/browse`, { headers: { cookie: session.cookie } })).text();
    assert.match(page, /Signed in as Alice &lt;campaign&gt;/, 'names are escaped');
  });

  test('pages carry a strict CSP, no framing and no caching', async () => {
    const response = await fetch(`${t.base}/browse`);
    assert.match(
      response.headers.get('content-security-policy') ?? '',
      /default-src 'none'.*frame-ancestors 'none'/,
    );
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  test('a wrong key, a missing or foreign form token, and a cross-site post are refused', async () => {
    const form = await signInForm(t.base);
    const wrong = await postSignIn(
      t.base,
      { api_key: `lm_${'x'.repeat(43)}`, token: form.token },
      { cookie: form.cookie },
    );
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /That API key was not accepted/);
    assert.equal(
      cookiePairs(wrong).some((pair) => pair.startsWith('lm_files=')),
      false,
    );

    const noToken = await postSignIn(t.base, { api_key: alice.key }, { cookie: form.cookie });
    assert.equal(noToken.status, 403);
    const noCookie = await postSignIn(t.base, { api_key: alice.key, token: form.token }, {});
    assert.equal(noCookie.status, 403);
    const other = await signInForm(t.base);
    const foreign = await postSignIn(
      t.base,
      { api_key: alice.key, token: other.token },
      { cookie: form.cookie },
    );
    assert.equal(foreign.status, 403, 'a token is bound to its own nonce');
    const crossSite = await postSignIn(
      t.base,
      { api_key: alice.key, token: form.token },
      { cookie: form.cookie, origin: 'https://evil.example' },
    );
    assert.equal(crossSite.status, 403);
  });

  test("only the key's own folder: other keys' files, traversal and hidden names are not served", async () => {
    const session = await signIn(t.base, alice.key);
    const html = await (await fetch(`${t.base}/browse`, { headers: { cookie: session.cookie } })).text();
    assert.ok(!listedFiles(html).includes('bobs.zip'));
    for (const path of [
      'bobs.zip',
      `..%2F..%2F${bob.id}%2Fsmartmatch%2Fbobs.zip`,
      `%2E%2E%2F${bob.id}%2Fsmartmatch%2Fbobs.zip`,
      '..',
      '%2E%2E',
      `../../../files/${bob.id}/smartmatch/bobs.zip`,
      '.mylist.zip.1234.part',
      'nothing.zip',
    ]) {
      const response = await rawGet(t.base, `/browse/files/${path}`, session.cookie);
      assert.ok(response.status === 404 || response.status === 400, `${path}: ${response.status}`);
      assert.doesNotMatch(response.body, /bob only/);
    }
  });

  test('no session, a forged session and a revoked key get no files', async () => {
    assert.equal((await fetch(`${t.base}/browse/files/mylist.zip`)).status, 401);
    const session = await signIn(t.base, alice.key);
    const [name, value] = session.cookie.split('=') as [string, string];
    const forged = `${name}=${value.replace(alice.id, bob.id)}`;
    assert.equal(
      (await fetch(`${t.base}/browse/files/bobs.zip`, { headers: { cookie: forged } })).status,
      401,
    );
    const carol = await t.createKey({ name: 'Carol' });
    await putFile(t, carol.id, 'carol.zip', ZIP);
    const carolSession = await signIn(t.base, carol.key);
    await t.running.services.keys.revoke(carol.id);
    const response = await fetch(`${t.base}/browse/files/carol.zip`, {
      headers: { cookie: carolSession.cookie },
    });
    assert.equal(response.status, 401, 'a revoked key stops working at once');
  });

  test('sign-out clears the session cookie', async () => {
    const session = await signIn(t.base, alice.key);
    const html = await (await fetch(`${t.base}/browse`, { headers: { cookie: session.cookie } })).text();
    const token = /action="\/browse\/sign-out"><input type="hidden" name="token" value="([^"]+)"/.exec(
      html,
    )?.[1];
    const response = await fetch(`${t.base}/browse/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: t.base,
        cookie: session.cookie,
      },
      body: new URLSearchParams({ token: token! }).toString(),
    });
    assert.equal(response.status, 303);
    assert.deepEqual(cookiePairs(response), ['lm_files=']);
  });
});

describe('web file browser behind https', () => {
  test('cookies are __Host- prefixed and Secure', async () => {
    const t = await startTestService({ PUBLIC_URL: 'https://files.example.org' }, { voters: false });
    try {
      const form = await fetch(`${t.base}/browse`);
      assert.match(
        form.headers.getSetCookie()[0] ?? '',
        /^__Host-lm_signin=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=3600; Secure$/,
      );
    } finally {
      await t.stop();
    }
  });
});

describe('web file browser (SFTP)', () => {
  let server: SftpServer | null = null;
  let t: TestService | null = null;
  before(async () => {
    if (sftpUnavailable() !== null) return;
    server = await startSftpServer();
    t = await startTestService(server.env, { voters: false });
  });
  after(async () => {
    await t?.stop();
    await server?.dispose();
  });

  test('sign in, list and download from the SFTP folder; other keys see nothing', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    const alice = await t!.createKey({ name: 'Alice' });
    const bob = await t!.createKey({ name: 'Bob' });
    await signInListDownload(t!, alice);
    const session = await signIn(t!.base, bob.key);
    const html = await (await fetch(`${t!.base}/browse`, { headers: { cookie: session.cookie } })).text();
    assert.deepEqual(listedFiles(html), []);
    assert.equal(
      (await fetch(`${t!.base}/browse/files/mylist.zip`, { headers: { cookie: session.cookie } })).status,
      404,
    );
  });
});
