import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Message } from '@homing/contracts';

import { callsTo, gateway, headersOf } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const API = `/api/v1/items/${CODE}`;
const item = (overrides: Record<string, unknown> = {}) => ({ code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, ...overrides });
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const day = 24 * 3600 * 1000;
let nextId = 1;
const message = (overrides: Partial<Message> = {}): Message => ({
  id: nextId++,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author: 'finder',
  content: 'Found your keys',
  created_at: new Date().toISOString(),
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: 0,
  ...overrides,
});

describe('the finder page', () => {
  it('says it is loading, then shows the not-found view for an unknown code', async () => {
    let answer: ((response: Response) => void) | undefined;
    renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET ${API}`]: () => new Promise((resolve) => (answer = resolve)) }) });
    expect(await screen.findByText('Loading…')).toBeInTheDocument();
    // The page may say it is loading before its code has asked the gateway (a slow machine): answer once it has.
    await waitFor(() => expect(answer).toBeDefined());
    answer?.(jsonResponse(404, { response_code: 'ITEM_NOT_FOUND', message: 'x' }));
    expect(await screen.findByRole('heading', { name: 'Item not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', '/contact');
  });

  it('sends a tag that is not activated yet to its activation', async () => {
    const { router } = renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET ${API}`]: () => jsonResponse(200, item({ activated: false, claimed_at: null })) }) });
    await waitFor(() => expect(router.state.location.pathname).toBe(`/activate/${CODE}`));
  });

  it('lets a finder write first, saving the e-mail before the message, and then shows the thread and a reply form', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item({ photo: { thumbnail: '/t.webp', normal: '/n.webp' } })),
      [`POST ${API}/set-finder`]: () => jsonResponse(200, { finder_token: TOKEN }),
      [`POST ${API}/messages`]: async (_url, init) => jsonResponse(201, { message: message({ id: 40, content: JSON.parse(String(init.body)).content }) }),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message({ id: 40, content: 'I have your keys' })]),
    });
    renderApp(`/found/${CODE}`, { fetch });
    expect(await screen.findByRole('heading', { name: "You found someone's item" })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Photo of the item' })).toHaveAttribute('src', '/n.webp');

    await userEvent.type(screen.getByLabelText('Message'), 'I have your keys');
    await userEvent.type(screen.getByLabelText('Your e-mail (optional)'), 'finder@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));

    expect(await screen.findByRole('button', { name: 'Send reply' })).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Messages' })).getByText('I have your keys')).toBeInTheDocument();
    expect(screen.queryByLabelText('Your e-mail (optional)')).not.toBeInTheDocument();
    const setFinder = callsTo(fetch, 'POST', `${API}/set-finder`);
    const post = callsTo(fetch, 'POST', `${API}/messages`);
    expect(JSON.parse(String(setFinder[0][1]?.body))).toEqual({ email: 'finder@example.com' });
    expect(headersOf(post[0][1])['x-finder-token']).toBe(TOKEN);
    expect(fetch.mock.invocationCallOrder[fetch.mock.calls.indexOf(setFinder[0])]).toBeLessThan(fetch.mock.invocationCallOrder[fetch.mock.calls.indexOf(post[0])]);
    expect(localStorage.getItem(`homing.finder.${CODE}`)).toBe(TOKEN);
  });

  it('takes the message back and restores the inputs when sending fails', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`POST ${API}/messages`]: () => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'x' }),
    });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('Message'), 'Hello{Enter}there');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByText('You are making too many requests.')).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toHaveValue('Hello\nthere');
    expect(screen.queryByRole('list', { name: 'Messages' })).not.toBeInTheDocument();
    expect(localStorage.getItem(`homing.finder.${CODE}`)).toBeNull();
  });

  it('refuses an address the gateway would refuse (a one-letter top-level domain) before sending anything', async () => {
    const fetch = gateway({ [`GET ${API}`]: () => jsonResponse(200, item()) });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('Message'), 'I have your keys');
    await userEvent.type(screen.getByLabelText('Your e-mail (optional)'), 'finder@example.c');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Email seems to be invalid.');
    expect(screen.getByLabelText('Your e-mail (optional)')).toHaveAttribute('aria-invalid', 'true');
    expect(callsTo(fetch, 'POST', `${API}/set-finder`)).toEqual([]);
  });

  it('shows the server’s refusal of the e-mail at its field, keeping what was typed', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`POST ${API}/set-finder`]: () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'Invalid input.', validation: { email: 'email' } }),
    });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('Message'), 'I have your keys');
    await userEvent.type(screen.getByLabelText('Your e-mail (optional)'), 'finder@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email address.');
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(screen.getByLabelText('Your e-mail (optional)')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Your e-mail (optional)')).toHaveValue('finder@example.com');
    expect(screen.getByLabelText('Message')).toHaveValue('I have your keys');
  });

  it('shows the server’s refusal of the message at its field', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`POST ${API}/messages`]: () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'Invalid input.', validation: { content: 'max=2000' } }),
    });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('Message'), 'I have your keys');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('2000');
    expect(screen.getByLabelText('Message')).toHaveAttribute('aria-invalid', 'true');
  });

  it('writes the retried first message in the conversation the e-mail opened, not in a new one', async () => {
    let posts = 0;
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`POST ${API}/set-finder`]: () => jsonResponse(200, { finder_token: TOKEN }),
      [`POST ${API}/messages`]: () => (++posts === 1 ? jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x' }) : jsonResponse(201, { message: message({ id: 50 }) })),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message({ id: 50, content: 'Second try' })]),
    });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('Message'), 'Second try');
    await userEvent.type(screen.getByLabelText('Your e-mail (optional)'), 'finder@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByText('Input data contains errors.')).toBeInTheDocument();
    expect(screen.getByLabelText('Your e-mail (optional)')).toHaveValue('finder@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send to the owner' }));
    expect(await screen.findByRole('button', { name: 'Send reply' })).toBeInTheDocument();
    const setFinderCalls = callsTo(fetch, 'POST', `${API}/set-finder`);
    expect(headersOf(setFinderCalls[1][1])['x-finder-token']).toBe(TOKEN);
    expect(headersOf(callsTo(fetch, 'POST', `${API}/messages`)[1][1])['x-finder-token']).toBe(TOKEN);
  });

  it('shows a returning finder their own conversation with the stored token', async () => {
    localStorage.setItem(`homing.finder.${CODE}`, TOKEN);
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message({ content: 'Where are you?' }), message({ author: 'owner', content: 'At home' })]),
    });
    renderApp(`/found/${CODE}`, { fetch });
    expect(await screen.findByText('At home')).toBeInTheDocument();
    expect(screen.getByText('owner')).toBeInTheDocument();
    expect(screen.getByText('you')).toBeInTheDocument();
    expect(headersOf(callsTo(fetch, 'GET', `${API}/messages`)[0][1])['x-finder-token']).toBe(TOKEN);
  });
});

describe('the owner’s thread', () => {
  const ownerItem = () => jsonResponse(200, item({ is_owner: true }));

  it('shows the item menu with the unread badge, the last 7 days, 5 older messages per click, and the unknown-finder warning', async () => {
    const old = Array.from({ length: 7 }, (_, index) => message({ content: `old ${index}`, created_at: new Date(Date.now() - (20 - index) * day).toISOString() }));
    const fetch = gateway({
      [`GET ${API}`]: ownerItem,
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 3),
      [`GET ${API}/messages`]: () => jsonResponse(200, [...old, message({ content: 'recent' })]),
      [`GET ${API}/finder-details`]: () => jsonResponse(200, { finder_known: false }),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'Keys' })).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Item menu' });
    expect(await within(menu).findByLabelText('3 unread messages')).toHaveTextContent('3');
    expect(within(menu).getByRole('link', { name: 'Edit item' })).toHaveAttribute('href', `/item/${CODE}`);
    expect(within(menu).getByRole('link', { name: 'View found page' })).toHaveAttribute('href', `/found/${CODE}`);

    expect(await screen.findByText('recent')).toBeInTheDocument();
    expect(screen.queryByText(/^old/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show older messages' }));
    expect(screen.getAllByText(/^old/)).toHaveLength(5);
    expect(screen.queryByText('old 1')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show older messages' }));
    expect(screen.getAllByText(/^old/)).toHaveLength(7);
    expect(screen.queryByRole('button', { name: 'Show older messages' })).not.toBeInTheDocument();
    expect(await screen.findByText(/The finder did not leave an e-mail address/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send reply' })).toBeInTheDocument();
  });

  it('lets the owner pick which finder to answer when several wrote, the latest by default', async () => {
    const first = '0190a000-0000-7000-8000-00000000000a';
    const second = '0190a000-0000-7000-8000-00000000000b';
    const fetch = gateway({
      [`GET ${API}`]: ownerItem,
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 2),
      [`GET ${API}/messages`]: () =>
        jsonResponse(200, [message({ conversation_id: first, finder: 'Finder 1', content: 'first finder' }), message({ conversation_id: second, finder: 'Finder 2', content: 'second finder' })]),
      [`GET ${API}/finder-details`]: () => jsonResponse(200, { finder_known: true }),
      [`POST ${API}/messages`]: async (_url, init) => jsonResponse(201, { message: message({ id: 900, author: 'owner', ...JSON.parse(String(init.body)) }) }),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    const replyTo = await screen.findByLabelText('Reply to');
    expect(replyTo).toHaveDisplayValue('Finder 2');
    await userEvent.selectOptions(replyTo, 'Finder 1');
    await userEvent.type(screen.getByLabelText('Message'), 'to the first');
    await userEvent.click(screen.getByRole('button', { name: 'Send reply' }));
    await waitFor(() => expect(callsTo(fetch, 'POST', `${API}/messages`)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetch, 'POST', `${API}/messages`)[0][1]?.body))).toEqual({ content: 'to the first', conversation_id: first });
  });

  it('warns about a finder without an e-mail address only while that finder is picked in "Reply to"', async () => {
    const silent = '0190a000-0000-7000-8000-00000000001a';
    const known = '0190a000-0000-7000-8000-00000000001b';
    const fetch = gateway({
      [`GET ${API}`]: ownerItem,
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 2),
      [`GET ${API}/messages`]: () =>
        jsonResponse(200, [message({ conversation_id: silent, finder: 'Finder 1', content: 'no address' }), message({ conversation_id: known, finder: 'Finder 2', content: 'with address' })]),
      [`GET ${API}/finder-details`]: (url) => jsonResponse(200, { finder_known: new URL(url, 'http://x').searchParams.get('conversation_id') === known }),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    const replyTo = await screen.findByLabelText('Reply to');
    expect(replyTo).toHaveDisplayValue('Finder 2');
    await waitFor(() => expect(callsTo(fetch, 'GET', `${API}/finder-details`).length).toBeGreaterThan(0));
    expect(screen.queryByText(/The finder did not leave an e-mail address/)).not.toBeInTheDocument();

    await userEvent.selectOptions(replyTo, 'Finder 1');
    expect(await screen.findByText(/The finder did not leave an e-mail address/)).toBeInTheDocument();
    await userEvent.selectOptions(replyTo, 'Finder 2');
    await waitFor(() => expect(screen.queryByText(/The finder did not leave an e-mail address/)).not.toBeInTheDocument());
  });

  it('shows the no-messages note and the own-scan notice instead of a form, and no reset, before anyone wrote', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item({ is_owner: true, name: null })),
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 0),
      [`GET ${API}/messages`]: () => jsonResponse(200, []),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'Your item' })).toBeInTheDocument();
    expect(await screen.findByText(/No messages yet/)).toBeInTheDocument();
    expect(screen.getByText('This is your own item: only a finder can write the first message.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reset item' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('3 unread messages')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });

  it('resets after a confirmation that Escape closes, and says so', async () => {
    const fetch = gateway({
      [`GET ${API}`]: ownerItem,
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 0),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message({ content: 'hello owner' })]),
      [`GET ${API}/finder-details`]: () => jsonResponse(200, { finder_known: true }),
      [`POST /api/v1/user/items/${CODE}/reset`]: () => new Response(null, { status: 204 }),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    await screen.findByText('hello owner');
    const open = screen.getByRole('button', { name: 'Reset item' });
    await userEvent.click(open);
    const dialog = screen.getByRole('alertdialog', { name: 'Reset this item?' });
    expect(within(dialog).getByRole('button', { name: 'Yes, reset' })).toHaveFocus();
    await userEvent.tab();
    await userEvent.tab();
    expect(within(dialog).getByRole('button', { name: 'Yes, reset' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(open).toHaveFocus();

    await userEvent.click(open);
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByText('Item reset.')).toBeInTheDocument();
    expect(screen.queryByText('hello owner')).not.toBeInTheDocument();
    expect(screen.getByText(/No messages yet/)).toBeInTheDocument();
  });

  it('offers the reset in the "I have my item back" modal', async () => {
    const fetch = gateway({
      [`GET ${API}`]: ownerItem,
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 0),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message()]),
      [`GET ${API}/finder-details`]: () => jsonResponse(200, { finder_known: true }),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'I have my item back' }));
    const dialog = screen.getByRole('dialog', { name: 'Great, you have your item back!' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reset item' }));
    expect(screen.getByRole('alertdialog', { name: 'Reset this item?' })).toBeInTheDocument();
  });
});

describe('the owner’s preview of the finder page', () => {
  it('shows the finder’s page read-only from the item menu, and writes nothing', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item({ is_owner: true })),
      [`GET /api/v1/user/items/${CODE}/unread-count`]: () => jsonResponse(200, 0),
      [`GET ${API}/messages`]: () => jsonResponse(200, []),
    });
    renderApp(`/found/${CODE}`, { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('link', { name: 'See what a finder sees' }));
    expect(await screen.findByRole('heading', { name: "You found someone's item" })).toBeInTheDocument();
    expect(screen.getByText(/only a preview: nothing here is sent/)).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toBeDisabled();
    expect(screen.getByLabelText('Your e-mail (optional)')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Send to the owner' })).toBeDisabled();
    expect(fetch.mock.calls.filter(([, init]) => (init?.method ?? 'GET') !== 'GET')).toEqual([]);
    expect(screen.getByRole('link', { name: 'Back to your messages' })).toHaveAttribute('href', `/found/${CODE}`);
  });

  it('sends anyone but the owner to the real finder page', async () => {
    const { router } = renderApp(`/found/${CODE}/preview`, { fetch: gateway({ [`GET ${API}`]: () => jsonResponse(200, item()) }), token: fakeToken() });
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
  });
});
