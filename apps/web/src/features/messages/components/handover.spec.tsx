import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ConversationState, Message } from '@homing/contracts';

import { callsTo, gateway, headersOf, type Handler } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const API = `/api/v1/items/${CODE}`;
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const CONVERSATION = '0190a000-0000-7000-8000-000000000001';
const item = (overrides: Record<string, unknown> = {}) => ({ code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, ...overrides });
const message = (overrides: Partial<Message> = {}): Message => ({
  id: 1,
  conversation_id: CONVERSATION,
  author: 'finder',
  content: 'I found your keys',
  created_at: new Date().toISOString(),
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: 1,
  ...overrides,
});
const conversationState = (overrides: Partial<ConversationState> = {}): ConversationState => ({
  conversation_id: CONVERSATION,
  contact_consent: { finder: false, owner: false },
  contact_shared: false,
  closed_at: null,
  ...overrides,
});
const bodyOf = (call: readonly [unknown, RequestInit?]) => JSON.parse(String(call[1]?.body)) as unknown;

/** A finder who has written (their token stored), on the item's page. */
function finderPage(routes: Record<string, Handler> = {}, messages: Message[] = [message()]) {
  localStorage.setItem(`homing.finder.${CODE}`, TOKEN);
  const fetch = gateway({
    [`GET ${API}`]: () => jsonResponse(200, item({ lost: true })),
    [`GET ${API}/messages`]: () => jsonResponse(200, messages),
    [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState()),
    ...routes,
  });
  renderApp(`/found/${CODE}`, { fetch });
  return fetch;
}

/** The owner on their item's thread. */
function ownerPage(routes: Record<string, Handler> = {}, messages: Message[] = [message()]) {
  const fetch = gateway({
    [`GET ${API}`]: () => jsonResponse(200, item({ is_owner: true })),
    [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 0),
    [`GET ${API}/messages`]: () => jsonResponse(200, messages),
    [`GET ${API}/finder-details`]: () => jsonResponse(200, { finder_known: true }),
    [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState()),
    [`GET /api/v1/user/items/${CODE}/handover-code`]: () => jsonResponse(200, { code: '482913', valid_until: new Date(Date.now() + 3600_000).toISOString() }),
    ...routes,
  });
  renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
  return fetch;
}

describe('the contact details panel', () => {
  it('lets the finder agree, and withdraw while the owner has not agreed', async () => {
    const fetch = finderPage({
      [`POST ${API}/contact-consent`]: async (_url, init) => {
        const { agree } = JSON.parse(String(init.body)) as { agree: boolean };
        return jsonResponse(200, conversationState({ contact_consent: { finder: agree, owner: false } }));
      },
    });
    const panel = await screen.findByRole('region', { name: 'Contact details' });
    expect(within(panel).getByText(/are hidden from the other side until you both agree to share them/)).toBeInTheDocument();
    expect(within(panel).getByText('Neither of you has agreed yet.')).toBeInTheDocument();
    expect(headersOf(callsTo(fetch, 'GET', `${API}/conversation`)[0][1])['x-finder-token']).toBe(TOKEN);

    await userEvent.click(within(panel).getByRole('button', { name: 'Agree to share contact details' }));
    expect(await within(panel).findByText(/^You agreed to share contact details/)).toBeInTheDocument();
    const [agreed] = callsTo(fetch, 'POST', `${API}/contact-consent`);
    expect(bodyOf(agreed)).toEqual({ agree: true });
    expect(headersOf(agreed[1])['x-finder-token']).toBe(TOKEN);

    await userEvent.click(within(panel).getByRole('button', { name: 'Withdraw my agreement' }));
    expect(await within(panel).findByText('Neither of you has agreed yet.')).toBeInTheDocument();
    expect(bodyOf(callsTo(fetch, 'POST', `${API}/contact-consent`)[1])).toEqual({ agree: false });
  });

  it('shows the message unmasked once the finder agrees after the owner, without waiting for the next poll', async () => {
    const masked = message({ id: 2, author: 'owner', content: 'Call me on ••••••••', masked: ['phone'], version: 2 });
    let shared = false;
    const fetch = finderPage(
      {
        [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState({ contact_consent: { finder: shared, owner: true }, contact_shared: shared })),
        [`GET ${API}/messages`]: (url) =>
          jsonResponse(200, new URL(url, 'http://x').searchParams.has('after') ? [message({ id: 2, author: 'owner', content: 'Call me on 0612345678', version: 5 })] : [message(), masked]),
        [`POST ${API}/contact-consent`]: () => {
          shared = true;
          return jsonResponse(200, conversationState({ contact_consent: { finder: true, owner: true }, contact_shared: true }));
        },
      },
      [],
    );
    const panel = await screen.findByRole('region', { name: 'Contact details' });
    expect(within(panel).getByText('The other side agreed to share contact details. Agree too to see them.')).toBeInTheDocument();
    expect(screen.getByText('Hidden until you both agree to share contact details: a phone number.')).toBeInTheDocument();

    await userEvent.click(within(panel).getByRole('button', { name: 'Agree to share contact details' }));
    expect(await screen.findByText('Call me on 0612345678')).toBeInTheDocument();
    expect(within(panel).getByText('You both agreed: contact details are shown as written.')).toBeInTheDocument();
    expect(within(panel).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByText(/Hidden until/)).not.toBeInTheDocument();
    expect(new URL(String(callsTo(fetch, 'GET', `${API}/messages`).at(-1)?.[0]), 'http://x').searchParams.get('after')).toBe('2');
  });

  it('says so when the other side agreed meanwhile and the finder can no longer withdraw', async () => {
    finderPage({
      [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState({ contact_consent: { finder: true, owner: false } })),
      [`POST ${API}/contact-consent`]: () => jsonResponse(409, { response_code: 'CONTACT_ALREADY_SHARED', message: 'x' }),
    });
    const panel = await screen.findByRole('region', { name: 'Contact details' });
    await userEvent.click(within(panel).getByRole('button', { name: 'Withdraw my agreement' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent('You both agreed already: contact details are shared and cannot be hidden again.');
  });

  it('is about the conversation the owner picked when several finders wrote', async () => {
    const first = '0190a000-0000-7000-8000-00000000000a';
    const second = '0190a000-0000-7000-8000-00000000000b';
    const fetch = ownerPage(
      {
        [`GET ${API}/conversation`]: (url) => {
          const id = new URL(url, 'http://x').searchParams.get('conversation_id') ?? '';
          return jsonResponse(200, conversationState({ conversation_id: id, contact_consent: { finder: id === first, owner: false } }));
        },
        [`POST ${API}/contact-consent`]: async (_url, init) => {
          const { conversation_id } = JSON.parse(String(init.body)) as { conversation_id: string };
          return jsonResponse(200, conversationState({ conversation_id, contact_consent: { finder: true, owner: true }, contact_shared: true }));
        },
      },
      [message({ id: 1, conversation_id: first, finder: 'Finder 1' }), message({ id: 2, conversation_id: second, finder: 'Finder 2' })],
    );
    expect(within(await screen.findByRole('region', { name: 'Contact details' })).getByText('Neither of you has agreed yet.')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText('Reply to'), 'Finder 1');
    // The picked finder's conversation: a panel of its own.
    expect(await screen.findByText('The other side agreed to share contact details. Agree too to see them.')).toBeInTheDocument();
    const panel = screen.getByRole('region', { name: 'Contact details' });
    expect(new URL(String(callsTo(fetch, 'GET', `${API}/conversation`).at(-1)?.[0]), 'http://x').searchParams.get('conversation_id')).toBe(first);

    await userEvent.click(within(panel).getByRole('button', { name: 'Agree to share contact details' }));
    expect(await within(panel).findByText('You both agreed: contact details are shown as written.')).toBeInTheDocument();
    expect(bodyOf(callsTo(fetch, 'POST', `${API}/contact-consent`)[0])).toEqual({ agree: true, conversation_id: first });
  });
});

describe('the finder’s hand-over', () => {
  const handOverWith = (answer: Handler) => finderPage({ [`POST ${API}/handover`]: answer });

  it('offers the code entry with the safety card, and asks for 6 digits before calling', async () => {
    const fetch = handOverWith(() => jsonResponse(200, { closed_at: new Date().toISOString() }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    expect(within(section).getByText("Hand the item over only to someone who can tell you the owner's hand-over code.")).toBeInTheDocument();
    const input = within(section).getByLabelText('Hand-over code');
    expect(input).toHaveAttribute('inputmode', 'numeric');
    expect(input).toHaveAttribute('autocomplete', 'one-time-code');

    await userEvent.click(within(section).getByText('Staying safe at the hand-over'));
    expect(within(section).getByText('Never share your home address.')).toBeVisible();
    expect(within(section).getByText(/never asks for money/)).toBeVisible();

    await userEvent.type(input, '12');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('Enter the 6 digits the owner tells you.');
    expect(callsTo(fetch, 'POST', `${API}/handover`)).toEqual([]);
  });

  it('marks a wrong code on the field', async () => {
    handOverWith(() => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { code: 'invalid' } }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    const input = within(section).getByLabelText('Hand-over code');
    await userEvent.type(input, '111111');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent("This is not the owner's hand-over code. Check it and try again.");
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription("This is not the owner's hand-over code. Check it and try again.");
    expect(screen.getByRole('button', { name: 'Send reply' })).toBeInTheDocument();
  });

  it('says when to try again after too many wrong codes', async () => {
    handOverWith(() => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'x' }, { 'Retry-After': '1800' }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    await userEvent.type(within(section).getByLabelText('Hand-over code'), '111111');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent(/^Too many wrong codes\. Try again after \d{1,2}:\d\d( [AP]M)?\.$/);
  });

  it('says to try again later after too many wrong codes when the server gives no time', async () => {
    handOverWith(() => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'x' }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    await userEvent.type(within(section).getByLabelText('Hand-over code'), '111111');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('Too many wrong codes. Try again later.');
  });

  it('closes the case with the right code, thanks the finder and names the reward now due', async () => {
    const fetch = handOverWith(() => jsonResponse(200, { closed_at: new Date().toISOString(), reward: 2500 }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    // As the owner reads it out.
    await userEvent.type(within(section).getByLabelText('Hand-over code'), '482 913');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await screen.findByText('Thank you! The case is closed.')).toBeInTheDocument();
    expect(screen.getByText('The reward of €25.00 is now due to you.')).toBeInTheDocument();
    expect(screen.getByText('This conversation is closed: the item was handed over.')).toBeInTheDocument();
    const [call] = callsTo(fetch, 'POST', `${API}/handover`);
    expect(bodyOf(call)).toEqual({ code: '482913' });
    expect(headersOf(call[1])['x-finder-token']).toBe(TOKEN);
    expect(screen.queryByRole('region', { name: 'Hand-over' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Contact details' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Share where I found it' })).not.toBeInTheDocument();
  });

  it('thanks without a reward when none is due', async () => {
    handOverWith(() => jsonResponse(200, { closed_at: new Date().toISOString() }));
    const section = await screen.findByRole('region', { name: 'Hand-over' });
    await userEvent.type(within(section).getByLabelText('Hand-over code'), '482913');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await screen.findByText('Thank you! The case is closed.')).toBeInTheDocument();
    expect(screen.queryByText(/reward/)).not.toBeInTheDocument();
  });
});

describe('a closed conversation', () => {
  it('shows the finder the closed text in place of the message form', async () => {
    finderPage({ [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState({ closed_at: '2026-11-25T10:00:00Z' })) });
    expect(await screen.findByText('This conversation is closed: the item was handed over.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Hand-over' })).not.toBeInTheDocument();
    expect(screen.getByText('I found your keys')).toBeInTheDocument();
  });

  it('replaces the finder’s form when a reply finds the conversation closed', async () => {
    finderPage({ [`POST ${API}/messages`]: () => jsonResponse(409, { response_code: 'CONVERSATION_CLOSED', message: 'x' }) });
    await userEvent.type(await screen.findByLabelText('Message'), 'Are you there?');
    await userEvent.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('This conversation is closed: the item was handed over.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
  });

  it('shows the owner the closed text and thanks them, without the hand-over code', async () => {
    ownerPage({ [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState({ closed_at: '2026-11-25T10:00:00Z' })) });
    expect(await screen.findByText('This conversation is closed: the item was handed over.')).toBeInTheDocument();
    expect(screen.getByText('Your item is back. Thank you for using Homing.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Hand-over code' })).not.toBeInTheDocument();
  });

  it('replaces the owner’s form when a reply finds the conversation closed', async () => {
    ownerPage({ [`POST ${API}/messages`]: () => jsonResponse(409, { response_code: 'CONVERSATION_CLOSED', message: 'x' }) });
    await userEvent.type(await screen.findByLabelText('Message'), 'See you at 5');
    await userEvent.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('Your item is back. Thank you for using Homing.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
  });
});

describe('the owner’s hand-over code', () => {
  it('shows today’s code in two groups, what to do with it, and the safety card', async () => {
    ownerPage();
    const card = await screen.findByRole('region', { name: 'Hand-over code' });
    expect(await within(card).findByText('482 913')).toBeInTheDocument();
    expect(within(card).getByText('Tell this code only to the person who hands your item over to you. A new one every day.')).toBeInTheDocument();
    await userEvent.click(within(card).getByText('Staying safe at the hand-over'));
    expect(within(card).getByText('Meet in a public place, in daylight.')).toBeVisible();
  });

  it('is not shown before anyone wrote', async () => {
    const fetch = ownerPage({}, []);
    expect(await screen.findByText(/No messages yet/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Hand-over code' })).not.toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetch, 'GET', `${API}/finder-details`).length).toBeGreaterThan(0));
    expect(callsTo(fetch, 'GET', `/api/v1/user/items/${CODE}/handover-code`)).toEqual([]);
  });
});

describe('the safety card before the first message', () => {
  it('is one tap away on the finder page', async () => {
    renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET ${API}`]: () => jsonResponse(200, item()) }) });
    const summary = await screen.findByText('Staying safe at the hand-over');
    expect(screen.getByText('Never share your home address.')).not.toBeVisible();
    await userEvent.click(summary);
    expect(screen.getByText('Never share your home address.')).toBeVisible();
  });
});
