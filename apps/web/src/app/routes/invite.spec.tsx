import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { callsTo, gateway, headersOf } from '../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../testing/render-app';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUv';
const CODE = 'ABCD-EFGH-JKMN-PQRS';
const INVITATION = `/api/v1/invitations/${TOKEN}`;
const offer = (overrides: Record<string, unknown> = {}) => jsonResponse(200, { kind: 'co-owner', item_name: 'Bike', email: 'friend@example.com', expires_at: '2026-11-30T10:00:00Z', ...overrides });
const sharedItem = () => jsonResponse(200, { code: CODE, name: 'Bike', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: true, lost: false, role: 'co-owner', shared: true });

describe('an invitation link', () => {
  it('shows what it offers and the address it was sent to', async () => {
    renderApp(`/invite/${TOKEN}`, { fetch: gateway({ [`GET ${INVITATION}`]: () => offer() }) });
    expect(await screen.findByRole('heading', { name: 'You are invited to share “Bike” on Homing', level: 1 })).toBeInTheDocument();
    expect(screen.getByText('This invitation was sent to friend@example.com.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Accept' })).toBeInTheDocument();
  });

  it('says what taking an item over means', async () => {
    renderApp(`/invite/${TOKEN}`, { fetch: gateway({ [`GET ${INVITATION}`]: () => offer({ kind: 'transfer' }) }) });
    expect(await screen.findByRole('heading', { name: 'You are invited to take over “Bike” on Homing', level: 1 })).toBeInTheDocument();
    expect(screen.getByText(/Its conversations are cleared/)).toBeInTheDocument();
  });

  it('says clearly that an expired, used or withdrawn link no longer works', async () => {
    renderApp(`/invite/${TOKEN}`, { fetch: gateway({ [`GET ${INVITATION}`]: () => jsonResponse(422, { response_code: 'INVITATION_EXPIRED', message: 'x' }) }) });
    expect(await screen.findByRole('heading', { name: 'This invitation no longer works', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('This invitation has expired, was withdrawn or was already used. Ask the owner for a new one.');
    expect(screen.queryByRole('button', { name: 'Accept' })).not.toBeInTheDocument();
  });

  it('says so too when the link stops working between opening and accepting', async () => {
    const fetch = gateway({
      [`GET ${INVITATION}`]: () => offer(),
      [`POST ${INVITATION}/accept`]: () => jsonResponse(422, { response_code: 'INVITATION_EXPIRED', message: 'x' }),
    });
    renderApp(`/invite/${TOKEN}`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Accept' }));
    expect(await screen.findByRole('heading', { name: 'This invitation no longer works', level: 1 })).toBeInTheDocument();
  });

  it('adds the item to the logged-in account and opens its page', async () => {
    const fetch = gateway({
      [`GET ${INVITATION}`]: () => offer(),
      [`POST ${INVITATION}/accept`]: () => jsonResponse(200, { code: CODE, response_code: 'ITEM_CLAIMED_SUCCESFULLY' }),
      [`GET /api/v1/user/items/${CODE}`]: sharedItem,
    });
    const token = fakeToken({ email: 'friend@example.com' });
    const { router } = renderApp(`/invite/${TOKEN}`, { fetch, token });
    expect(await screen.findByText('You are logged in as friend@example.com: the item is added to this account.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/item/${CODE}`));
    expect(await screen.findByText('The item is shared with you.')).toBeInTheDocument();
    expect(headersOf(callsTo(fetch, 'POST', `${INVITATION}/accept`)[0][1]).authorization).toBe(`Bearer ${token}`);
  });

  it('makes an account for a new address as activation does: logged in, a password offered, then the item', async () => {
    const loginToken = fakeToken({ email: 'friend@example.com' });
    const fetch = gateway({
      [`GET ${INVITATION}`]: () => offer(),
      [`POST ${INVITATION}/accept`]: () => jsonResponse(200, { code: CODE, response_code: 'NEW_USER_REGISTERED', password_token: 'pt', login_token: loginToken }),
      'POST /api/v1/user/password': () => jsonResponse(200, { token: loginToken }),
    });
    const { api } = renderApp(`/invite/${TOKEN}`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Accept' }));
    expect(await screen.findByRole('heading', { name: 'Set a password', level: 1 })).toBeInTheDocument();
    expect(api.getToken()).toBe(loginToken);
    await userEvent.type(screen.getByLabelText('Password (optional)'), 'long-enough');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(await screen.findByRole('heading', { name: 'Welcome to Homing', level: 1 })).toBeInTheDocument();
    expect(screen.getByText('Your account is ready and the item is shared with you.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the item' })).toHaveAttribute('href', `/item/${CODE}`);
    expect(JSON.parse(String(callsTo(fetch, 'POST', '/api/v1/user/password')[0][1]?.body))).toEqual({ token: 'pt', password: 'long-enough' });
  });

  it('sends an existing account, logged out, to log in and then to the item', async () => {
    const fetch = gateway({
      [`GET ${INVITATION}`]: () => offer(),
      [`POST ${INVITATION}/accept`]: () => jsonResponse(200, { code: CODE, response_code: 'ITEM_CLAIMED_SUCCESFULLY' }),
    });
    const { router } = renderApp(`/invite/${TOKEN}`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.search).toBe(`?ec=${CODE}&email=friend%40example.com`);
    expect(await screen.findByText('The item is added to your account. Log in to see it.')).toBeInTheDocument();
  });
});
