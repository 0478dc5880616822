import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { providerOfTypo } from './email-domain-typos.ts';

describe('providerOfTypo', () => {
  it('a provider one keystroke off: a letter substituted, dropped, doubled, two swapped, the dot', () => {
    for (const [typo, provider] of [
      ['gmial.com', 'gmail.com'],
      ['gmai.com', 'gmail.com'],
      ['gmaill.com', 'gmail.com'],
      ['gnail.com', 'gmail.com'],
      ['gmailcom', 'gmail.com'],
      ['gmail.con', 'gmail.com'],
      ['gmail.co', 'gmail.com'],
      ['yahoo.cmo', 'yahoo.com'],
      ['yaho.com', 'yahoo.com'],
      ['hotmial.com', 'hotmail.com'],
      ['outlok.com', 'outlook.com'],
      ['icloud.co', 'icloud.com'],
      ['comcast.ner', 'comcast.net'],
      ['aol.con', 'aol.com'],
    ]) {
      assert.equal(providerOfTypo(typo!), provider, typo);
    }
  });

  it('leaves providers, their real neighbours, other domains and short look-alikes of aol.com alone', () => {
    for (const domain of [
      'gmail.com',
      'ymail.com',
      'mail.com',
      'email.com',
      'aim.com',
      'sol.com',
      'ao.com',
      'gmx.com',
      'yahoo.co.uk',
      'hotmail.fr',
      'example.org',
      'gmail.company.com',
      '',
      'x'.repeat(10_000),
    ]) {
      assert.equal(providerOfTypo(domain), null, domain.slice(0, 20));
    }
  });
});
