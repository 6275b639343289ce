import { describe, expect, it } from 'vitest';
import type { Message, PublicItem } from '@homing/contracts';

import { renderFinderPage } from './finder-page.server';

// Only what the page reads (the scan's answer has grown fields the page leaves alone).
const item = { code: 'ABCD-EFGH-JKLM-NPQR', name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false } as PublicItem;
const now = Date.parse('2026-11-20T12:00:00Z');
const message = (id: number, author: Message['author'], content: string): Message => ({
  id,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author,
  content,
  created_at: '2026-11-20T11:57:00Z',
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: id,
});

/** The rendered root as a document, to read it as a browser would. */
function page(html: string): Document {
  return new DOMParser().parseFromString(`<div id="root">${html}</div>`, 'text/html');
}

describe('the finder page rendered on the server', () => {
  it('says a lost item is lost, with the owner’s note, shows the relay address, and carries the item for the app', () => {
    const lost = { ...item, lost: true, lost_note: 'Lost at the station.\n</script><b>Reward</b>', relay_address: 'tag-abcdefghjkmnpqrs@relay.localhost' };
    const rendered = renderFinderPage({ code: item.code, language: 'es', item: lost, now });
    const document = page(rendered.root);
    expect(document.querySelector('.found__lost-title')?.textContent).toBe('Su dueño está buscando este objeto.');
    expect(document.querySelector('.found__lost-note')?.textContent).toBe('Lost at the station.\n</script><b>Reward</b>');
    expect(document.querySelector('b')).toBeNull();
    expect(document.querySelector('.found__relay a')?.getAttribute('href')).toBe('mailto:tag-abcdefghjkmnpqrs@relay.localhost');
    // The item as JSON the note cannot break out of, for the app to start from.
    const carried = document.querySelectorAll('script#homing-found-item');
    expect(carried).toHaveLength(1);
    expect(JSON.parse(carried[0].textContent ?? '')).toEqual(lost);
    const notLost = page(renderFinderPage({ code: item.code, language: 'en', item: { ...item, lost: false }, now }).root);
    expect(notLost.querySelector('.found__lost')).toBeNull();
  });

  it('renders the first-message form that posts to the page, in the visitor’s language', () => {
    const rendered = renderFinderPage({ code: item.code, language: 'nl', item, now });
    expect(rendered.language).toBe('nl');
    expect(rendered.title).toBe('Je hebt andermans voorwerp gevonden · Homing');
    const document = page(rendered.root);
    const form = document.querySelector('form.message-form');
    expect(form?.getAttribute('method')).toBe('post');
    expect(form?.getAttribute('action')).toBe(`/found/${item.code}`);
    expect(document.querySelector('textarea')?.getAttribute('name')).toBe('content');
    expect(document.querySelector('input[type="email"]')?.getAttribute('name')).toBe('email');
    expect(document.querySelector<HTMLInputElement>('input[type="hidden"][name="language"]')?.value).toBe('nl');
    expect(document.querySelector('button[type="submit"]')?.textContent).toBe('Verstuur naar de eigenaar');
    expect(document.querySelector('button[type="submit"]')?.hasAttribute('disabled')).toBe(false);
    expect(document.querySelector('.owner-login a')?.getAttribute('href')).toBe(`/login?c=${item.code}`);
  });

  it('shows the finder’s conversation and a reply form without the address, the messages escaped', () => {
    const thread = [message(1, 'finder', 'Found them <b>here</b>'), message(2, 'owner', 'Thank you!')];
    const document = page(renderFinderPage({ code: item.code, language: 'en', item, thread, now }).root);
    const bubbles = [...document.querySelectorAll('ol.thread li')].map((bubble) => bubble.querySelector('.bubble__content')?.textContent);
    expect(bubbles).toEqual(['Found them <b>here</b>', 'Thank you!']);
    expect(document.querySelector('ol.thread b')).toBeNull();
    expect(document.querySelector('input[type="email"]')).toBeNull();
    expect(document.querySelector('button[type="submit"]')?.textContent).toBe('Send reply');
    expect(document.querySelector('.intro')).toBeNull();
  });

  it('asks a finder in their conversation for the address again when it could not be saved, filled in', () => {
    const thread = [message(1, 'finder', 'Found them')];
    const document = page(renderFinderPage({ code: item.code, language: 'en', item, thread, values: { email: 'finder@example.test' }, error: { status: 503, response_code: 'SERVICE_UNAVAILABLE' }, now }).root);
    expect(document.querySelector('input[type="email"]')?.getAttribute('value')).toBe('finder@example.test');
    expect(document.querySelector('button[type="submit"]')?.textContent).toBe('Send reply');
    expect(document.querySelector('.form-error')?.textContent).toEqual(expect.any(String));
  });

  it('puts back what was posted with the app’s texts for its mistakes', () => {
    const invalid = page(
      renderFinderPage({ code: item.code, language: 'en', item, values: { content: 'Hello', email: 'nope' }, error: { status: 422, response_code: 'VALIDATION_ERROR', validation: { email: 'email' } } }).root,
    );
    expect(invalid.querySelector('textarea')?.textContent).toBe('Hello');
    expect(invalid.querySelector<HTMLInputElement>('input[type="email"]')?.getAttribute('value')).toBe('nope');
    expect(invalid.querySelector('input[type="email"]')?.getAttribute('aria-invalid')).toBe('true');
    expect(invalid.querySelector('.field__error')?.textContent).toBe('Email seems to be invalid.');

    const empty = page(renderFinderPage({ code: item.code, language: 'en', item, error: { status: 422, response_code: 'VALIDATION_ERROR', validation: { content: 'required' } } }).root);
    expect(empty.querySelector('.field__error')?.textContent).toBe('This field is required.');

    const limited = page(renderFinderPage({ code: item.code, language: 'en', item, error: { status: 429, response_code: 'RATE_LIMITED' } }).root);
    expect(limited.querySelector('.form-error')?.textContent).toBe('You are making too many requests.');
  });

  it('says when no item has the code, and when the item could not be looked up', () => {
    const missing = renderFinderPage({ code: 'NOPE', language: 'es', item: null });
    expect(missing.title).toBe('Objeto no encontrado · Homing');
    expect(page(missing.root).querySelector('h1')?.textContent).toBe('Objeto no encontrado');

    const away = renderFinderPage({ code: item.code, language: 'en', item: null, error: { status: 503, response_code: 'SERVICE_UNAVAILABLE' } });
    expect(away.title).toBe("You found someone's item · Homing");
    expect(page(away.root).querySelector('.form-error')).not.toBeNull();
    expect(page(away.root).querySelector('form.message-form')).toBeNull();
  });

  it('speaks English to a visitor whose language it does not offer', () => {
    expect(renderFinderPage({ code: item.code, language: 'it', item }).language).toBe('en');
  });
});
