import type { FolderFile } from '../domain/ports/file-drop.ts';

/** Server-rendered pages of the web file browser: plain HTML and inline CSS, no scripts. */

const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:760px;margin:48px auto;padding:0 20px}
h1{font-size:22px;margin:0 0 4px}
.sub{color:#5b6475;margin:0 0 24px}
form.card,section.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:20px}
label{display:block;font-weight:600;margin-bottom:6px}
input[type=password]{width:100%;box-sizing:border-box;padding:8px;font:inherit;border:1px solid #b9c0cc;border-radius:6px}
button{margin-top:12px;padding:8px 16px;font:inherit;border:0;border-radius:6px;background:#2456c8;color:#fff;cursor:pointer}
button.link{background:none;color:#2456c8;padding:0;margin:0}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:8px 6px;border-bottom:1px solid #e6e9ef}
.num{text-align:right;font-variant-numeric:tabular-nums}
.error{background:#fdecec;border:1px solid #f3b7b7;color:#8a1c1c;padding:10px 12px;border-radius:6px;margin-bottom:16px}
.bar{display:flex;justify-content:space-between;align-items:baseline}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

/** The sign-in form. The API key is posted in the body, never put in a URL. */
export function signInPage(options: { token: string; error?: string }): string {
  const error =
    options.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(options.error)}</p>`;
  return page(
    'Sign in: listmatch files',
    `<h1>Your result files</h1>
<p class="sub">Sign in with your API key to see the files of your <code>smartmatch</code> folder.</p>
${error}<form class="card" method="post" action="/browse/sign-in" autocomplete="off">
<label for="api_key">API key</label>
<input id="api_key" name="api_key" type="password" required spellcheck="false" placeholder="lm_…">
<input type="hidden" name="token" value="${escapeHtml(options.token)}">
<button type="submit">Sign in</button>
</form>`,
  );
}

const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
};

/** The listing of the signed-in key's folder, newest first, each file a download link. */
export function folderPage(options: {
  keyName: string;
  keyPrefix: string;
  files: FolderFile[];
  signOutToken: string;
}): string {
  const rows =
    options.files.length === 0
      ? '<tr><td colspan="3">No files yet: results appear here when a list-matching job completes.</td></tr>'
      : options.files
          .map(
            (file) =>
              `<tr><td><a href="/browse/files/${encodeURIComponent(file.name)}" download>${escapeHtml(file.name)}</a></td>` +
              `<td class="num">${formatBytes(file.bytes)}</td>` +
              `<td><time datetime="${new Date(file.modifiedAt).toISOString()}">${new Date(file.modifiedAt)
                .toISOString()
                .replace('T', ' ')
                .slice(0, 16)} UTC</time></td></tr>`,
          )
          .join('\n');
  return page(
    'smartmatch: listmatch files',
    `<div class="bar"><h1>smartmatch</h1>
<form method="post" action="/browse/sign-out"><input type="hidden" name="token" value="${escapeHtml(options.signOutToken)}"><button class="link" type="submit">Sign out</button></form></div>
<p class="sub">Signed in as ${escapeHtml(options.keyName)} (<code>${escapeHtml(options.keyPrefix)}…</code>)</p>
<section class="card"><table>
<thead><tr><th>File</th><th class="num">Size</th><th>Modified</th></tr></thead>
<tbody>
${rows}
</tbody></table></section>`,
  );
}

/** A page for errors met while browsing (never a stack, a path or a key). */
export function messagePage(title: string, message: string): string {
  return page(
    `${title}: listmatch files`,
    `<h1>${escapeHtml(title)}</h1><p class="sub">${escapeHtml(message)}</p><p><a href="/browse">Back to your files</a></p>`,
  );
}
