import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { tokenStorageKey } from '../lib/api-session';
import { callsTo, gateway, headersOf } from '../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../testing/render-app';

describe('focus across pages', () => {
  it('leaves the first page’s focus to the browser', async () => {
    renderApp('/items', { fetch: gateway({ 'GET /api/v1/user/items': () => jsonResponse(200, []) }), token: fakeToken(), strictMode: true });
    await screen.findByRole('link', { name: 'add an item here' });
    expect(screen.getByRole('main')).not.toHaveFocus();
  });

  it('goes to the new page’s content when a link in the page opens another page', async () => {
    const { router } = renderApp('/items', { fetch: gateway({ 'GET /api/v1/user/items': () => jsonResponse(200, []) }), token: fakeToken() });
    await userEvent.click(await screen.findByRole('link', { name: 'add an item here' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/add-item'));
    await screen.findByRole('heading', { level: 1 });
    // The focus moves once the new page has rendered (its code may load first): waited for, as after logging out.
    await waitFor(() => expect(screen.getByRole('main')).toHaveFocus());
  });

  it('goes to the landing page’s content after logging out, whose button is gone', async () => {
    const fetch = gateway({ 'GET /api/v1/user/items': () => jsonResponse(200, []), 'POST /api/v1/auth/logout': () => jsonResponse(204) });
    const { router } = renderApp('/items', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    await waitFor(() => expect(screen.getByRole('main')).toHaveFocus());
  });
});

describe('logging out', () => {
  it('takes the token out of the browser’s storage at once, while the server has not answered yet, and still ends the session there with it', async () => {
    let answerLogout: (response: Response) => void = () => undefined;
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(200, []),
      'POST /api/v1/auth/logout': () => new Promise<Response>((resolve) => (answerLogout = resolve)),
    });
    const token = fakeToken();
    renderApp('/items', { fetch, token });
    expect(localStorage.getItem(tokenStorageKey)).toBe(token);
    await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    // A tab closed now leaves no one logged in: nothing of the session is in storage.
    await waitFor(() => expect(callsTo(fetch, 'POST', '/api/v1/auth/logout')).toHaveLength(1));
    expect(localStorage.getItem(tokenStorageKey)).toBeNull();
    // The server's logout still carries the token, which this page kept.
    expect(headersOf(callsTo(fetch, 'POST', '/api/v1/auth/logout')[0][1]).authorization).toBe(`Bearer ${token}`);
    answerLogout(jsonResponse(204));
    expect(await screen.findByRole('link', { name: 'Log in' })).toBeInTheDocument();
    expect(localStorage.getItem(tokenStorageKey)).toBeNull();
  });
});
