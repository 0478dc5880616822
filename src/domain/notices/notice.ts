/**
 * A notice as content, independent of who it is about: the list-matching notices build one, and
 * the onboarding workflow's `status_email` can build its own. Values are plain text; rendering
 * escapes them for HTML.
 */
export interface NoticeModel {
  subject: string;
  /** Opening paragraphs. */
  intro: string[];
  /** Label/value rows shown as a small table (plain text: `Label: value`). */
  facts: ReadonlyArray<readonly [label: string, value: string]>;
  /** Closing paragraphs: what to do next. */
  outro: string[];
}

export interface RenderedNotice {
  subject: string;
  text: string;
  html: string;
}

const SIGNATURE = 'This message was sent automatically by listmatch. Replies are not read.';

/** Plain-text and simple HTML bodies of a notice; the HTML has inline styles only (mail clients drop the rest). */
export function renderNotice(model: NoticeModel): RenderedNotice {
  const width = Math.max(0, ...model.facts.map(([label]) => label.length));
  const text = [
    ...model.intro.flatMap((p) => [p, '']),
    ...(model.facts.length > 0
      ? [...model.facts.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`), '']
      : []),
    ...model.outro.flatMap((p) => [p, '']),
    '-- ',
    SIGNATURE,
    '',
  ].join('\n');
  const rows = model.facts
    .map(
      ([label, value]) =>
        `<tr><th style="text-align:left;padding:2px 12px 2px 0;font-weight:normal;color:#555">${escapeHtml(label)}</th><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  const paragraphs = (list: string[]) => list.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(model.subject)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222;line-height:1.4">
${paragraphs(model.intro)}
${rows === '' ? '' : `<table style="border-collapse:collapse;margin:8px 0 16px">\n${rows}\n</table>`}
${paragraphs(model.outro)}
<p style="color:#777;font-size:12px">${escapeHtml(SIGNATURE)}</p>
</body></html>
`;
  return { subject: model.subject, text, html };
}

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}
