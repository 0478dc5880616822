import type { MailMessage } from '../../domain/ports/mailer.ts';

/** `Message-ID` of a notice: its stable id at the sender's domain, so retries carry the same one. */
export function messageIdOf(message: MailMessage, from: string): string {
  const domain = /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'listmatch.invalid';
  return `<${message.id.replace(/[^A-Za-z0-9._-]/g, '_')}@${domain}>`;
}

/**
 * The message as RFC 5322 bytes (CRLF line ends, multipart/alternative text + HTML, non-ASCII
 * headers encoded), built by nodemailer's composer. Loaded on first use so that a service that
 * never sends mail never loads nodemailer.
 */
export async function buildMime(message: MailMessage, from: string, date: Date): Promise<Buffer> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  return new MailComposer({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: messageIdOf(message, from),
    date,
    // RFC 5322 line ends everywhere, bodies included (the composer keeps body newlines as given).
    newline: 'windows',
  })
    .compile()
    .build();
}
