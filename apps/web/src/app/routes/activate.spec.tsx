import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { callsTo, gateway } from '../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const unclaimed = () => jsonResponse(200, { code: CODE, name: null, claimed_at: null, activated: false, is_owner: false });
const loginToken = fakeToken({ email: 'new@example.com' });

async function enterAndConfirm(email: string) {
  await userEvent.type(await screen.findByLabelText('E-mail'), email);
  await userEvent.click(screen.getByRole('button', { name: 'Activate' }));
  expect(await screen.findByRole('heading', { name: 'Is this your e-mail address?' })).toBeInTheDocument();
  expect(screen.getByText(email, { selector: 'strong' })).toBeInTheDocument();
  await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
}

describe('activating a tag', () => {
  it('shows the not-found view with a contact link for an unknown code', async () => {
    renderApp(`/activate/${CODE}`, { fetch: gateway({}) });
    expect(await screen.findByRole('heading', { name: 'Tag not found' })).toBeInTheDocument();
    expect(screen.getByText(`No item with code "${CODE}" was found. If this is your tag, please contact us.`)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', '/contact');
  });

  it('registers a new user: e-mail, confirmation, an empty password skips the call, done', async () => {
    const fetch = gateway({
      [`GET /api/v1/items/${CODE}`]: unclaimed,
      'POST /api/v1/claim': () => jsonResponse(200, { response_code: 'NEW_USER_REGISTERED', password_token: 'pt', login_token: loginToken }),
    });
    const { api } = renderApp(`/activate/${CODE}`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Activate' }));
    expect(screen.getByText('This field is required.')).toBeInTheDocument();
    await enterAndConfirm('new@example.com');
    expect(await screen.findByRole('heading', { name: 'Set a password' })).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', '/api/v1/claim')[0][1]?.body))).toEqual({ code: CODE, email: 'new@example.com' });
    expect(api.getToken()).toBe(loginToken);

    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(await screen.findByRole('heading', { name: 'Your tag is activated' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Name your item' })).toHaveAttribute('href', `/item/${CODE}`);
    expect(callsTo(fetch, 'POST', '/api/v1/user/password')).toHaveLength(0);
  });

  it('sets the new user’s password when one is given, checking its length first', async () => {
    const fetch = gateway({
      [`GET /api/v1/items/${CODE}`]: unclaimed,
      'POST /api/v1/claim': () => jsonResponse(200, { response_code: 'NEW_USER_REGISTERED', password_token: 'pt', login_token: loginToken }),
      'POST /api/v1/user/password': () => jsonResponse(200, { token: loginToken }),
    });
    renderApp(`/activate/${CODE}`, { fetch });
    await enterAndConfirm('new@example.com');
    await userEvent.type(await screen.findByLabelText('Password (optional)'), 'short');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(screen.getByText('Password is too short. Minimum length is 8 characters.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Password (optional)'), '-enough');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(await screen.findByText(/Welcome to Homing!/)).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', '/api/v1/user/password')[0][1]?.body))).toEqual({ token: 'pt', password: 'short-enough' });
  });

  it('tells a logged-out existing user the tag was added, and links to log in with the code and the e-mail', async () => {
    const fetch = gateway({ [`GET /api/v1/items/${CODE}`]: unclaimed, 'POST /api/v1/claim': () => jsonResponse(200, { response_code: 'ITEM_CLAIMED_SUCCESFULLY' }) });
    renderApp(`/activate/${CODE}`, { fetch });
    await enterAndConfirm('known@example.com');
    expect(await screen.findByRole('heading', { name: 'Your tag is activated' })).toBeInTheDocument();
    expect(screen.getByText('The tag is added to your items. Log in to give it a name.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Log in to name your item' })).toHaveAttribute('href', `/login?ec=${CODE}&email=known%40example.com`);
    expect(screen.queryByRole('link', { name: 'Name your item' })).not.toBeInTheDocument();
  });

  it('confirms the e-mail with Enter on the confirmation step', async () => {
    const fetch = gateway({ [`GET /api/v1/items/${CODE}`]: unclaimed, 'POST /api/v1/claim': () => jsonResponse(200, { response_code: 'ITEM_CLAIMED_SUCCESFULLY' }) });
    renderApp(`/activate/${CODE}`, { fetch });
    await userEvent.type(await screen.findByLabelText('E-mail'), 'known@example.com{Enter}');
    expect(await screen.findByRole('heading', { name: 'Is this your e-mail address?' })).toBeInTheDocument();
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByRole('heading', { name: 'Your tag is activated' })).toBeInTheDocument();
    expect(callsTo(fetch, 'POST', '/api/v1/claim')).toHaveLength(1);
  });

  it('activates for a logged-in user with one button and the token’s e-mail', async () => {
    const fetch = gateway({ [`GET /api/v1/items/${CODE}`]: unclaimed, 'POST /api/v1/claim': () => jsonResponse(200, { response_code: 'ITEM_CLAIMED_SUCCESFULLY' }) });
    renderApp(`/activate/${CODE}`, { fetch, token: fakeToken() });
    expect(await screen.findByText('Activate this tag for your account (owner@example.com).')).toBeInTheDocument();
    expect(screen.queryByLabelText('E-mail')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Activate' }));
    expect(await screen.findByText('The tag is added to your items.')).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', '/api/v1/claim')[0][1]?.body))).toEqual({ code: CODE });
  });

  it('says a tag is already activated, from the item or from the claim, and links to its found page', async () => {
    const fetch = gateway({ [`GET /api/v1/items/${CODE}`]: unclaimed, 'POST /api/v1/claim': () => jsonResponse(409, { response_code: 'ALREADY_CLAIMED', message: 'x' }) });
    const { unmount } = renderApp(`/activate/${CODE}`, { fetch });
    await enterAndConfirm('late@example.com');
    expect(await screen.findByRole('heading', { name: 'This tag is already activated' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact the owner' })).toHaveAttribute('href', `/found/${CODE}`);
    unmount();

    renderApp(`/activate/${CODE}`, { fetch: gateway({ [`GET /api/v1/items/${CODE}`]: () => jsonResponse(200, { code: CODE, name: 'Keys', claimed_at: '2026-01-01T00:00:00Z', activated: true, is_owner: false }) }) });
    expect(await screen.findByRole('heading', { name: 'This tag is already activated' })).toBeInTheDocument();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Log in' })).toHaveAttribute('href', `/login?c=${CODE}`);
  });

  it('shows the invalid e-mail message for a validation error', async () => {
    const fetch = gateway({ [`GET /api/v1/items/${CODE}`]: unclaimed, 'POST /api/v1/claim': () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { email: 'email' } }) });
    renderApp(`/activate/${CODE}`, { fetch });
    await enterAndConfirm('odd@example.com');
    expect(await screen.findByText('Email seems to be invalid.')).toBeInTheDocument();
  });
});
