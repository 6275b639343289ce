import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { callsTo, gateway, headersOf } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

/** Replaces what a field holds, then presses the form's button. */
async function retypeAndSubmit(label: string, text: string, button: string) {
  await userEvent.clear(screen.getByLabelText(label));
  await userEvent.type(screen.getByLabelText(label), text);
  await userEvent.click(screen.getByRole('button', { name: button }));
}
const bodyOf = (init: RequestInit | undefined) => JSON.parse(String(init?.body)) as Record<string, unknown>;

describe('login with password', () => {
  it('asks for a valid e-mail and a password', async () => {
    renderApp('/login');
    await userEvent.click(await screen.findByRole('button', { name: 'Log in' }));
    expect(await screen.findAllByText('This field is required.')).toHaveLength(2);
    await userEvent.type(screen.getByLabelText('E-mail'), 'not-an-address');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Email seems to be invalid.')).toBeInTheDocument();
    expect(screen.getByLabelText('E-mail')).toHaveAttribute('aria-invalid', 'true');
  });

  it('says the credentials are wrong on a 401', async () => {
    const fetch = gateway({ 'POST /api/v1/user/login': () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS', message: 'x' }) });
    renderApp('/login', { fetch });
    await userEvent.type(await screen.findByLabelText('E-mail'), 'owner@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'wrong password');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid login credentials.');
  });

  it('logs in, keeps the token and goes to the items; prefills the e-mail from the query', async () => {
    const token = fakeToken();
    const fetch = gateway({
      'POST /api/v1/user/login': (_url, init) => (bodyOf(init).password === 'correct horse' ? jsonResponse(200, { token }) : jsonResponse(401, {})),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router, api } = renderApp('/login?email=owner%40example.com', { fetch });
    expect(await screen.findByLabelText('E-mail')).toHaveValue('owner@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(api.getToken()).toBe(token);
    expect(await screen.findByRole('button', { name: 'Log out' })).toBeInTheDocument();
  });

  it('sends the password exactly as typed, spaces at its ends included', async () => {
    const fetch = gateway({ 'POST /api/v1/user/login': () => jsonResponse(200, { token: fakeToken() }), 'GET /api/v1/user/items': () => jsonResponse(200, []) });
    renderApp('/login', { fetch });
    await userEvent.type(await screen.findByLabelText('E-mail'), 'owner@example.com');
    await userEvent.type(screen.getByLabelText('Password'), ' correct horse ');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(callsTo(fetch, 'POST', '/api/v1/user/login')).toHaveLength(1));
    expect(bodyOf(callsTo(fetch, 'POST', '/api/v1/user/login')[0][1])).toEqual({ email: 'owner@example.com', password: ' correct horse ' });
  });

  it('sends a logged-in user on: c to the found page, ec to the item page', async () => {
    const first = renderApp('/login?c=ABCD-EFGH-JKMN-PQRS', { token: fakeToken() });
    await waitFor(() => expect(first.router.state.location.pathname).toBe('/found/ABCD-EFGH-JKMN-PQRS'));
    first.unmount();
    const second = renderApp('/login?ec=ABCD-EFGH-JKMN-PQRS', { token: fakeToken() });
    await waitFor(() => expect(second.router.state.location.pathname).toBe('/item/ABCD-EFGH-JKMN-PQRS'));
  });

  it('takes the language from the route', async () => {
    renderApp('/login/es');
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
  });

  it('links to the e-mail login carrying the typed address', async () => {
    renderApp('/login?c=ABCD');
    await userEvent.type(await screen.findByLabelText('E-mail'), 'me@example.com');
    expect(screen.getByRole('link', { name: /code sent by e-mail/ })).toHaveAttribute('href', '/login/email?c=ABCD&email=me%40example.com');
  });
});

describe('login with e-mail', () => {
  it('asks for a valid e-mail', async () => {
    renderApp('/login/email');
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a login code' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('E-mail'), 'nope');
    await userEvent.click(screen.getByRole('button', { name: 'Send me a login code' }));
    expect(await screen.findByText('Email seems to be invalid.')).toBeInTheDocument();
  });

  it('sends the code and goes on to the code screen with the item code carried', async () => {
    const fetch = gateway({ 'GET /api/v1/magic-link': () => jsonResponse(200, { message: 'sent' }) });
    const { router } = renderApp('/login/email?c=ABCD&email=me%40example.com', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a login code' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login/code'));
    expect(router.state.location.search).toBe('?c=ABCD&email=me%40example.com');
    expect(String(fetch.mock.calls[0][0])).toBe('/api/v1/magic-link?email=me%40example.com');
    expect(await screen.findByText(/We sent a login code/)).toBeInTheDocument();
  });
});

describe('login with code', () => {
  it('asks for the code and explains a wrong or expired one', async () => {
    const fetch = gateway({
      'POST /api/v1/magic-link/login': (_url, init) =>
        bodyOf(init).code === 'OLDCODE1' ? jsonResponse(422, { response_code: 'LOGIN_CODE_EXPIRED', message: 'x' }) : jsonResponse(401, { response_code: 'UNAUTHORIZED', message: 'x' }),
    });
    renderApp('/login/code', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Login code'), 'WRONG123');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('Invalid login credentials.')).toBeInTheDocument();
    await retypeAndSubmit('Login code', 'OLDCODE1', 'Log in');
    expect(await screen.findByText('Your login code has expired.')).toBeInTheDocument();
  });

  it('logs in by itself with the code from the e-mail’s link', async () => {
    const fetch = gateway({
      'POST /api/v1/magic-link/login': () => jsonResponse(200, { token: fakeToken() }),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router } = renderApp('/login/code?code=ABCD1234', { fetch });
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(fetch.mock.calls.filter(([url]) => String(url).endsWith('/magic-link/login'))).toHaveLength(1);
  });
});

describe('forgot password', () => {
  it('asks for a valid e-mail, then says a link was sent', async () => {
    const fetch = gateway({ 'POST /api/v1/user/password-forgot': () => jsonResponse(200, { message: 'sent' }) });
    renderApp('/forgot-password', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a link' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('E-mail'), 'bad');
    await userEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect(await screen.findByText('Email seems to be invalid.')).toBeInTheDocument();
    await retypeAndSubmit('E-mail', 'someone@example.com', 'Send me a link');
    expect(await screen.findByText(/we have sent it a link to set a new password/)).toBeInTheDocument();
  });
});

describe('set and reset password', () => {
  it('titles the page by its route', async () => {
    const reset = renderApp('/reset-password/tok');
    expect(await screen.findByRole('heading', { name: 'Reset your password' })).toBeInTheDocument();
    reset.unmount();
    renderApp('/set-password/tok');
    expect(await screen.findByRole('heading', { name: 'Set your password' })).toBeInTheDocument();
  });

  it('checks the length and the repetition of the password', async () => {
    renderApp('/reset-password/tok');
    await userEvent.type(await screen.findByLabelText('New password'), 'short');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(await screen.findByText('Password is too short. Minimum length is 8 characters.')).toBeInTheDocument();
    await retypeAndSubmit('New password', 'x'.repeat(129), 'Save password');
    expect(await screen.findByText('Password is too long. Maximum length is 128 characters.')).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('New password'));
    await userEvent.type(screen.getByLabelText('New password'), 'long enough');
    await userEvent.type(screen.getByLabelText('Repeat password'), 'long enougj');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(await screen.findByText('Passwords do not match.')).toBeInTheDocument();
  });

  it('explains an expired link, and goes to the items once the password is saved', async () => {
    let expired = true;
    const fetch = gateway({
      'POST /api/v1/user/password': () =>
        expired ? jsonResponse(422, { response_code: 'EXPIRED_PASSWORD_TOKEN', message: 'x' }) : jsonResponse(200, { token: fakeToken() }),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router } = renderApp('/reset-password/tok', { fetch });
    await userEvent.type(await screen.findByLabelText('New password'), 'long enough');
    await userEvent.type(screen.getByLabelText('Repeat password'), 'long enough');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(await screen.findByText(/Token has expired/)).toBeInTheDocument();
    expired = false;
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(bodyOf(fetch.mock.calls.at(-2)?.[1] ?? fetch.mock.calls[0][1])).toMatchObject({ token: 'tok' });
    expect(await screen.findByText('Your password is saved.')).toBeInTheDocument();
  });

  it('tells a logged-in user about the account settings', async () => {
    renderApp('/set-password/tok', { token: fakeToken() });
    expect(await screen.findByText(/change the password in your account settings/)).toBeInTheDocument();
  });
});

describe('account', () => {
  it('shows the not-logged-in view to a visitor', async () => {
    renderApp('/account');
    expect(await screen.findByRole('heading', { name: 'You need to be logged in' })).toBeInTheDocument();
    expect(screen.getByText('You need to be logged in to view this page.')).toBeInTheDocument();
  });

  it('shows the e-mail read-only, checks the new password and says when it is updated', async () => {
    const fetch = gateway({ 'POST /api/v1/user/update-password': () => jsonResponse(200, { message: 'Done.' }) });
    renderApp('/account', { fetch, token: fakeToken({ email: 'owner@example.com' }) });
    const email = await screen.findByLabelText('E-mail');
    expect(email).toHaveValue('owner@example.com');
    expect(email).toHaveAttribute('readonly');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('New password'), 'new password');
    await userEvent.type(screen.getByLabelText('Repeat password'), 'other password');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Passwords do not match.')).toBeInTheDocument();
    await retypeAndSubmit('Repeat password', 'new password', 'Save');
    expect(await screen.findAllByText('Password updated.')).not.toHaveLength(0);
    expect(bodyOf(fetch.mock.calls[0][1])).toEqual({ password: 'new password' });
  });

  it('says when the new password is too short or too long', async () => {
    const fetch = gateway({});
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.type(await screen.findByLabelText('New password'), 'short');
    await userEvent.type(screen.getByLabelText('Repeat password'), 'short');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Password is too short. Minimum length is 8 characters.')).toBeInTheDocument();

    const tooLong = 'x'.repeat(129);
    await userEvent.clear(screen.getByLabelText('New password'));
    await userEvent.type(screen.getByLabelText('New password'), tooLong);
    await retypeAndSubmit('Repeat password', tooLong, 'Save');
    expect(await screen.findByText('Password is too long. Maximum length is 128 characters.')).toBeInTheDocument();
    expect(fetch).not.toHaveBeenCalledWith('/api/v1/user/update-password', expect.anything());
  });

  it('shows the server’s rule for a refused password', async () => {
    const fetch = gateway({
      'POST /api/v1/user/update-password': () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { password: 'invalid' } }),
    });
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.type(await screen.findByLabelText('New password'), 'password');
    await userEvent.type(screen.getByLabelText('Repeat password'), 'password');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Invalid value.')).toBeInTheDocument();
  });

  describe('download my data', () => {
    const saved: Array<{ href: string; download: string }> = [];
    beforeEach(() => {
      // jsdom has no Blob URLs and no downloads: record what the browser would have saved.
      URL.createObjectURL = vi.fn(() => 'blob:export-file');
      URL.revokeObjectURL = vi.fn();
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        saved.push({ href: this.href, download: this.download });
      });
    });
    afterEach(() => {
      saved.length = 0;
      vi.restoreAllMocks();
    });

    it('fetches the export with the token and saves it under the server’s name', async () => {
      const fetch = gateway({
        'GET /api/v1/user/export': () =>
          new Response('{"items":[]}', { headers: { 'content-type': 'application/json', 'content-disposition': 'attachment; filename="homing-export-2026-11-25.json"' } }),
      });
      const { api } = renderApp('/account', { fetch, token: fakeToken() });
      await userEvent.click(await screen.findByRole('button', { name: 'Download my data' }));
      await waitFor(() => expect(saved).toEqual([{ href: 'blob:export-file', download: 'homing-export-2026-11-25.json' }]));
      expect(headersOf(callsTo(fetch, 'GET', '/api/v1/user/export')[0][1]).authorization).toBe(`Bearer ${api.getToken()}`);
      expect(await (vi.mocked(URL.createObjectURL).mock.calls[0][0] as Blob).text()).toBe('{"items":[]}');
    });

    it('says so when the export cannot be made, and saves nothing', async () => {
      const fetch = gateway({
        'GET /api/v1/user/export': () => jsonResponse(503, { response_code: 'SERVICE_UNAVAILABLE', message: 'x' }),
      });
      renderApp('/account', { fetch, token: fakeToken() });
      await userEvent.click(await screen.findByRole('button', { name: 'Download my data' }));
      expect(await screen.findByRole('alert')).toHaveTextContent('Your data could not be downloaded. Please try again in a moment.');
      expect(saved).toEqual([]);
    });
  });
});

describe('deleting the account', () => {
  const deleted = () => jsonResponse(200, { response_code: 'USER_DELETED' });

  /** Opens Account's delete dialog; its password field has focus. */
  async function openDeleteDialog() {
    await userEvent.click(await screen.findByRole('button', { name: 'Delete my account' }));
    return screen.findByRole('alertdialog', { name: 'Delete your account?' });
  }

  it('deletes with the password, ends the session here and lands on / with a flash', async () => {
    const fetch = gateway({ 'DELETE /api/v1/user': deleted });
    const token = fakeToken();
    const { router, api } = renderApp('/account', { fetch, token });
    await openDeleteDialog();
    await waitFor(() => expect(screen.getByLabelText('Password')).toHaveFocus());
    await userEvent.type(screen.getByLabelText('Password'), 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(await screen.findByTestId('flash')).toHaveTextContent('Your account has been deleted.');
    await waitFor(() => expect(api.getToken()).toBeNull());
    expect(localStorage.getItem('homing.token')).toBeNull();
    expect(await screen.findByRole('link', { name: 'Log in' })).toBeInTheDocument();
    const [call] = callsTo(fetch, 'DELETE', '/api/v1/user');
    expect(bodyOf(call[1])).toEqual({ password: 'correct horse' });
    expect(headersOf(call[1]).authorization).toBe(`Bearer ${token}`);
    // The session no longer exists on the server: nothing to log out of.
    expect(callsTo(fetch, 'POST', '/api/v1/auth/logout')).toEqual([]);
  });

  it('shows a wrong password in the dialog, keeps it open and the session as it was', async () => {
    const fetch = gateway({ 'DELETE /api/v1/user': () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS', message: 'Invalid login credentials.' }) });
    const token = fakeToken();
    const { router, api } = renderApp('/account', { fetch, token });
    const dialog = await openDeleteDialog();
    await userEvent.type(screen.getByLabelText('Password'), 'wrong password');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));

    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Invalid login credentials.');
    expect(dialog).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/account');
    expect(api.getToken()).toBe(token);
    // A wrong password is not a dead session: no refresh, no second try.
    expect(callsTo(fetch, 'DELETE', '/api/v1/user')).toHaveLength(1);
    expect(callsTo(fetch, 'POST', '/api/v1/auth/refresh-token')).toEqual([]);
  });

  it('sends the password exactly as typed, spaces at its ends included', async () => {
    const fetch = gateway({ 'DELETE /api/v1/user': deleted });
    const { api } = renderApp('/account', { fetch, token: fakeToken() });
    await openDeleteDialog();
    await userEvent.type(screen.getByLabelText('Password'), ' correct horse ');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));
    await waitFor(() => expect(api.getToken()).toBeNull());
    expect(bodyOf(callsTo(fetch, 'DELETE', '/api/v1/user')[0][1])).toEqual({ password: ' correct horse ' });
  });

  it('asks for a password before sending anything, and Cancel closes the dialog', async () => {
    const fetch = gateway({});
    renderApp('/account', { fetch, token: fakeToken() });
    await openDeleteDialog();
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(callsTo(fetch, 'DELETE', '/api/v1/user')).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete my account' })).toHaveFocus();
  });

  it('e-mails a code to the owner’s own address for an owner without a password, then deletes with {code}', async () => {
    const fetch = gateway({ 'GET /api/v1/magic-link': () => jsonResponse(200, { message: 'sent' }), 'DELETE /api/v1/user': deleted });
    const { router } = renderApp('/account', { fetch, token: fakeToken({ email: 'owner@example.com' }) });
    await openDeleteDialog();
    await userEvent.click(screen.getByRole('button', { name: 'I have no password: e-mail me a code' }));

    expect(await screen.findByLabelText('Code from the e-mail')).toHaveFocus();
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    expect(screen.getByText(/We sent a code to owner@example.com/)).toBeInTheDocument();
    expect(String(callsTo(fetch, 'GET', '/api/v1/magic-link')[0][0])).toBe('/api/v1/magic-link?email=owner%40example.com');
    await userEvent.type(screen.getByLabelText('Code from the e-mail'), ' ABCD1234 ');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(bodyOf(callsTo(fetch, 'DELETE', '/api/v1/user')[0][1])).toEqual({ code: 'ABCD1234' });
    expect(await screen.findByTestId('flash')).toHaveTextContent('Your account has been deleted.');
  });

  it('explains an expired code in the dialog', async () => {
    const fetch = gateway({
      'GET /api/v1/magic-link': () => jsonResponse(200, { message: 'sent' }),
      'DELETE /api/v1/user': () => jsonResponse(422, { response_code: 'LOGIN_CODE_EXPIRED', message: 'x' }),
    });
    renderApp('/account', { fetch, token: fakeToken() });
    const dialog = await openDeleteDialog();
    await userEvent.click(screen.getByRole('button', { name: 'I have no password: e-mail me a code' }));
    await userEvent.type(await screen.findByLabelText('Code from the e-mail'), 'OLDCODE1');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Your login code has expired.');
  });
});

describe('registration', () => {
  it('only says that registration is disabled', async () => {
    renderApp('/register');
    expect(await screen.findByText('Registration is disabled at this time. An account is created when you scan a tag.')).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });
});

describe('language change while logged in', () => {
  it('is sent to the server and posted to the service worker', async () => {
    const postMessage = vi.fn();
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: async () => ({ active: { postMessage } }) },
    });
    const fetch = gateway({ 'POST /api/v1/user/language': () => jsonResponse(200, {}), 'GET /api/v1/user/items': () => jsonResponse(200, []) });
    renderApp('/items', { fetch, token: fakeToken() });
    await userEvent.selectOptions(await screen.findByLabelText('Language'), 'es');
    await waitFor(() => expect(postMessage).toHaveBeenCalledWith({ type: 'LANG_UPDATE', language: 'es' }));
    const call = fetch.mock.calls.find(([url]) => String(url) === '/api/v1/user/language');
    expect(bodyOf(call?.[1])).toEqual({ language: 'es' });
    expect(await screen.findByRole('heading', { name: 'Mis objetos' })).toBeInTheDocument();
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });
});
