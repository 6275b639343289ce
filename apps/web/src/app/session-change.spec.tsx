import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { gateway } from '../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../testing/render-app';

const alice = fakeToken({ id: '0190a000-0000-7000-8000-00000000000a', email: 'alice@example.com' });
const bob = fakeToken({ id: '0190a000-0000-7000-8000-00000000000b', email: 'bob@example.com' });
const alicesItem = { code: 'AAAA-AAAA-AAAA-AAAA', name: 'Alice’s keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: true, lost: false };

/** A gateway answering Alice's items at once, and the next user's only when the test lets it. */
function itemsGateway() {
  let current = 'alice';
  let answerNextUser: (response: Response) => void = () => undefined;
  const fetch = gateway({
    'GET /api/v1/user/items': () => (current === 'alice' ? jsonResponse(200, [alicesItem]) : new Promise<Response>((resolve) => (answerNextUser = resolve))),
    'GET /api/v1/user/found-items': () => jsonResponse(200, {}),
    'POST /api/v1/auth/logout': () => jsonResponse(204),
  });
  return { fetch, nextUser: () => (current = 'next'), answerNextUser: (response: Response) => answerNextUser(response) };
}

/** Bob logs in and opens his items: Alice's never show, not even while his own are on their way. */
async function bobOpensItems(api: ReturnType<typeof renderApp>['api'], router: ReturnType<typeof renderApp>['router'], items: ReturnType<typeof itemsGateway>) {
  items.nextUser();
  act(() => api.setToken(bob));
  await act(() => router.navigate('/items'));
  expect(await screen.findByRole('heading', { name: 'My items', level: 1 })).toBeInTheDocument();
  expect(screen.queryByText('Alice’s keys')).not.toBeInTheDocument();
  await act(async () => items.answerNextUser(jsonResponse(200, [])));
}

describe('a change of session in the same tab', () => {
  it('never shows the previous user’s items to the next user after a logout', async () => {
    const items = itemsGateway();
    const { api, router } = renderApp('/items', { fetch: items.fetch, token: alice });
    expect(await screen.findByText('Alice’s keys')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Log out' }));
    await screen.findByRole('link', { name: 'Log in' });

    await bobOpensItems(api, router, items);
  });

  it('never shows them when another user logs in over an expired session', async () => {
    const items = itemsGateway();
    const { api, router } = renderApp('/items', { fetch: items.fetch, token: alice });
    expect(await screen.findByText('Alice’s keys')).toBeInTheDocument();
    await act(() => router.navigate('/'));

    act(() => api.setToken(null, 'expired'));
    await bobOpensItems(api, router, items);
  });

  it('keeps what it has when the token is only refreshed', async () => {
    const { fetch, nextUser } = itemsGateway();
    const { api } = renderApp('/items', { fetch, token: alice });
    expect(await screen.findByText('Alice’s keys')).toBeInTheDocument();
    nextUser();
    act(() => api.setToken(fakeToken({ id: '0190a000-0000-7000-8000-00000000000a', email: 'alice@example.com' }), 'refresh'));
    expect(screen.getByText('Alice’s keys')).toBeInTheDocument();
  });
});
