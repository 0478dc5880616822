/**
 * Replaces e-mail addresses in a log line with their first character and domain
 * (`j***@example.com`): enough for an operator to tell recipients apart, not to read them.
 * SMTP servers quote the recipient in their error replies, so every mail error passes through here.
 */
export function redactEmails(text: string): string {
  return text.replace(
    /([A-Za-z0-9!#$%&'*+/=?^_`{|}~-])[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]*@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/g,
    '$1***@$2',
  );
}
