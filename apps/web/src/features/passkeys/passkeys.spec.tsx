import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Passkey } from '@homing/contracts';

import { callsTo, gateway } from '../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../testing/render-app';

// jsdom has no WebAuthn: the browser's side is faked here, the gateway's by `gateway`.
const webauthn = vi.hoisted(() => ({
  supported: true,
  autofill: false,
  startAuthentication: vi.fn(),
  startRegistration: vi.fn(),
  cancelCeremony: vi.fn(),
}));
vi.mock('@simplewebauthn/browser', () => ({
  browserSupportsWebAuthn: () => webauthn.supported,
  browserSupportsWebAuthnAutofill: () => Promise.resolve(webauthn.autofill),
  startAuthentication: webauthn.startAuthentication,
  startRegistration: webauthn.startRegistration,
  WebAuthnAbortService: { cancelCeremony: webauthn.cancelCeremony },
}));

const assertion = { id: 'cred', rawId: 'cred', type: 'public-key', response: {}, clientExtensionResults: {} };
const requestOptions = { challenge: 'challenge', rpId: 'localhost' };
const creationOptions = { challenge: 'challenge', rp: { name: 'Homing' }, user: { id: 'dXNlcg', name: 'owner@example.com', displayName: 'owner@example.com' }, pubKeyCredParams: [] };
const bodyOf = (init: RequestInit | undefined) => JSON.parse(String(init?.body)) as Record<string, unknown>;
const notAllowed = () => Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' });

function passkey(overrides: Partial<Passkey> = {}): Passkey {
  return { id: '0190a000-0000-7000-8000-0000000000aa', name: null, provider: null, synced: false, created_at: new Date(Date.now() - 3 * 86_400_000).toISOString(), last_used_at: null, ...overrides };
}

beforeEach(() => {
  webauthn.supported = true;
  webauthn.autofill = false;
  webauthn.startAuthentication.mockReset();
  webauthn.startRegistration.mockReset();
  webauthn.cancelCeremony.mockReset();
});

describe('logging in with a passkey', () => {
  it('logs in with the button, keeps the token as a password login does, and goes to the items', async () => {
    const token = fakeToken();
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const fetch = gateway({
      'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions),
      'POST /api/v1/user/login/passkey': (_url, init) => jsonResponse(200, bodyOf(init).response ? { token } : {}),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router, api } = renderApp('/login', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Log in with a passkey' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(api.getToken()).toBe(token);
    expect(webauthn.startAuthentication).toHaveBeenCalledWith({ optionsJSON: requestOptions, useBrowserAutofill: false });
    expect(bodyOf(callsTo(fetch, 'POST', '/api/v1/user/login/passkey')[0][1])).toEqual({ response: assertion });
  });

  it('honours the redirect a password login honours', async () => {
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const fetch = gateway({
      'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions),
      'POST /api/v1/user/login/passkey': () => jsonResponse(200, { token: fakeToken() }),
    });
    const { router } = renderApp('/login?ec=ABCD-EFGH-JKMN-PQRS', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Log in with a passkey' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/item/ABCD-EFGH-JKMN-PQRS'));
  });

  it('says the credentials are wrong when the server refuses the passkey', async () => {
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const fetch = gateway({
      'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions),
      'POST /api/v1/user/login/passkey': () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS', message: 'x' }),
    });
    const { api } = renderApp('/login', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Log in with a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid login credentials.');
    expect(api.getToken()).toBeNull();
  });

  it('says nothing when the user closes the browser dialog', async () => {
    webauthn.startAuthentication.mockRejectedValue(notAllowed());
    const fetch = gateway({ 'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions) });
    renderApp('/login', { fetch });
    const button = await screen.findByRole('button', { name: 'Log in with a passkey' });
    await userEvent.click(button);
    await waitFor(() => expect(webauthn.startAuthentication).toHaveBeenCalled());
    await waitFor(() => expect(button).toBeEnabled());
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(callsTo(fetch, 'POST', '/api/v1/user/login/passkey')).toHaveLength(0);
  });

  it('offers passkeys in the e-mail field where the browser can, and stops offering them when the page is left', async () => {
    webauthn.autofill = true;
    webauthn.startAuthentication.mockReturnValue(new Promise(() => undefined));
    const fetch = gateway({ 'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions) });
    const { router } = renderApp('/login', { fetch });
    expect(await screen.findByLabelText('E-mail')).toHaveAttribute('autocomplete', 'username webauthn');
    await waitFor(() => expect(webauthn.startAuthentication).toHaveBeenCalledWith({ optionsJSON: requestOptions, useBrowserAutofill: true }));
    // The button stays usable while the suggestions wait.
    expect(screen.getByRole('button', { name: 'Log in with a passkey' })).toBeEnabled();
    webauthn.cancelCeremony.mockClear();
    await router.navigate('/forgot-password');
    await waitFor(() => expect(webauthn.cancelCeremony).toHaveBeenCalled());
  });

  it('says nothing when the suggestions cannot be offered, and the button still works', async () => {
    webauthn.autofill = true;
    // A page on an IP address: the browser refuses the ceremony.
    webauthn.startAuthentication.mockRejectedValueOnce(Object.assign(new Error('invalid domain'), { name: 'SecurityError' }));
    const fetch = gateway({ 'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions) });
    renderApp('/login', { fetch });
    await waitFor(() => expect(webauthn.startAuthentication).toHaveBeenCalledWith({ optionsJSON: requestOptions, useBrowserAutofill: true }));
    await screen.findByRole('button', { name: 'Log in with a passkey' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    webauthn.startAuthentication.mockRejectedValueOnce(Object.assign(new Error('invalid domain'), { name: 'SecurityError' }));
    await userEvent.click(screen.getByRole('button', { name: 'Log in with a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your passkey could not be used.');
  });

  it('says the credentials are wrong when the server refuses a suggested passkey the user picked', async () => {
    webauthn.autofill = true;
    webauthn.startAuthentication.mockResolvedValue(assertion);
    const fetch = gateway({
      'POST /api/v1/user/login/passkey-options': () => jsonResponse(200, requestOptions),
      'POST /api/v1/user/login/passkey': () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS', message: 'x' }),
    });
    renderApp('/login', { fetch });
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid login credentials.');
  });

  it('shows no passkey button where the browser has no WebAuthn', async () => {
    webauthn.supported = false;
    renderApp('/login');
    await screen.findByRole('button', { name: 'Log in' });
    expect(screen.queryByRole('button', { name: 'Log in with a passkey' })).not.toBeInTheDocument();
  });
});

describe('passkeys on the account page', () => {
  it('lists passkeys by name, else provider, else "Passkey", with when they were added and used, and whether synced', async () => {
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () =>
        jsonResponse(200, {
          passkeys: [
            passkey({ id: '0190a000-0000-7000-8000-000000000001', name: 'My phone', provider: 'Google Password Manager', synced: true, last_used_at: new Date(Date.now() - 3_600_000).toISOString() }),
            passkey({ id: '0190a000-0000-7000-8000-000000000002', provider: 'iCloud Keychain' }),
            passkey({ id: '0190a000-0000-7000-8000-000000000003' }),
          ],
        }),
    });
    renderApp('/account', { fetch, token: fakeToken() });
    const section = await screen.findByRole('region', { name: 'Passkeys' });
    const entries = await within(section).findAllByRole('listitem');
    expect(entries.map((entry) => within(entry).getByRole('heading').textContent)).toEqual(['My phone', 'iCloud Keychain', 'Passkey']);
    expect(entries[0]).toHaveTextContent('1 hour ago');
    expect(entries[0]).toHaveTextContent('Synced');
    expect(entries[1]).toHaveTextContent('3 days ago');
    expect(entries[1]).toHaveTextContent('Never');
    expect(entries[1]).not.toHaveTextContent('Synced');
  });

  it('adds a passkey: the options to the browser, its answer to the server, and the new one in the list', async () => {
    let stored: Passkey[] = [];
    const registration = { id: 'new', rawId: 'new', type: 'public-key', response: {}, clientExtensionResults: {} };
    webauthn.startRegistration.mockResolvedValue(registration);
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: stored }),
      'POST /api/v1/user/passkeys/options': () => jsonResponse(200, creationOptions),
      'POST /api/v1/user/passkeys': (_url, init) => {
        expect(bodyOf(init)).toEqual({ response: registration });
        stored = [passkey({ provider: '1Password' })];
        return jsonResponse(201, stored[0]);
      },
    });
    renderApp('/account', { fetch, token: fakeToken() });
    expect(await screen.findByText('You have no passkeys yet.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('heading', { name: '1Password' })).toBeInTheDocument();
    expect(webauthn.startRegistration).toHaveBeenCalledWith({ optionsJSON: creationOptions });
    expect(await screen.findByText('Passkey added.')).toBeInTheDocument();
  });

  it('asks for a recent login, and "Log in again" logs out and comes back to the account after the login', async () => {
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: [] }),
      'POST /api/v1/user/passkeys/options': () => jsonResponse(403, { response_code: 'RECENT_LOGIN_REQUIRED', message: 'x' }),
      'POST /api/v1/auth/logout': () => jsonResponse(204),
      'POST /api/v1/user/login': () => jsonResponse(200, { token: fakeToken() }),
    });
    const { router, api } = renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('you need to have logged in during the last 10 minutes');
    expect(webauthn.startRegistration).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Log in again' }));
    await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe('/login?next=%2Faccount'));
    expect(api.getToken()).toBeNull();
    await userEvent.type(await screen.findByLabelText('E-mail'), 'owner@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/account'));
  });

  it('adds nothing and shows no error when the user closes the browser dialog', async () => {
    webauthn.startRegistration.mockRejectedValue(notAllowed());
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: [] }),
      'POST /api/v1/user/passkeys/options': () => jsonResponse(200, creationOptions),
    });
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByText('No passkey was added.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(callsTo(fetch, 'POST', '/api/v1/user/passkeys')).toHaveLength(0);
  });

  it('says so when the account has the most passkeys it may have', async () => {
    webauthn.startRegistration.mockResolvedValue(assertion);
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: [] }),
      'POST /api/v1/user/passkeys/options': () => jsonResponse(200, creationOptions),
      'POST /api/v1/user/passkeys': () => jsonResponse(409, { response_code: 'TOO_MANY_PASSKEYS', message: 'x' }),
    });
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An account can have at most 20 passkeys.');
  });

  it('renames a passkey, trimmed, and refuses an empty name', async () => {
    let stored = [passkey({ provider: 'iCloud Keychain' })];
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: stored }),
      [`PATCH /api/v1/user/passkeys/${stored[0].id}`]: (_url, init) => {
        stored = [{ ...stored[0], name: String(bodyOf(init).name) }];
        return jsonResponse(200, stored[0]);
      },
    });
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Rename iCloud Keychain' }));
    const field = screen.getByLabelText('Name');
    await userEvent.clear(field);
    const save = within(field.closest('form') as HTMLFormElement).getByRole('button', { name: 'Save' });
    await userEvent.type(field, '   ');
    await userEvent.click(save);
    expect(await screen.findByRole('alert')).toHaveTextContent('This field is required.');
    await userEvent.clear(field);
    await userEvent.type(field, '  Work laptop  ');
    await userEvent.click(save);
    expect(await screen.findByRole('heading', { name: 'Work laptop' })).toBeInTheDocument();
    expect(bodyOf(callsTo(fetch, 'PATCH', `/api/v1/user/passkeys/${stored[0].id}`)[0][1])).toEqual({ name: 'Work laptop' });
  });

  it('deletes a passkey only once confirmed', async () => {
    let stored = [passkey({ name: 'My phone' })];
    const fetch = gateway({
      'GET /api/v1/user/passkeys': () => jsonResponse(200, { passkeys: stored }),
      [`DELETE /api/v1/user/passkeys/${stored[0].id}`]: () => {
        stored = [];
        return new Response(null, { status: 204 });
      },
    });
    renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete My phone' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete this passkey?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo(fetch, 'DELETE', `/api/v1/user/passkeys/${stored[0].id}`)).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Delete My phone' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete the passkey' }));
    expect(await screen.findByText('You have no passkeys yet.')).toBeInTheDocument();
    expect(await screen.findByText('Passkey deleted.')).toBeInTheDocument();
  });

  it('says beforehand that deleting a passkey logs out whoever logged in with it, this browser too, and then ends this session cleanly when it did', async () => {
    let revoked = false;
    const unauthorized = () => jsonResponse(401, { response_code: 'UNAUTHORIZED', message: 'x' });
    const mine = passkey({ name: 'My phone' });
    const answer = gateway({});
    const fetch = vi.fn<typeof globalThis.fetch>(async (input, init = {}) => {
      const path = String(input).split('?')[0];
      const method = init.method ?? 'GET';
      if (method === 'POST' && path === '/api/v1/auth/refresh-token') return revoked ? unauthorized() : jsonResponse(200, { token: fakeToken() });
      if (method === 'DELETE' && path === `/api/v1/user/passkeys/${mine.id}`) {
        // The server ends the sessions that passkey opened: this one's among them.
        revoked = true;
        return new Response(null, { status: 204 });
      }
      if (revoked && path.startsWith('/api/v1/user')) return unauthorized();
      if (path === '/api/v1/user/passkeys') return jsonResponse(200, { passkeys: [mine] });
      return answer(input, init);
    });
    const { api } = renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete My phone' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete this passkey?' });
    expect(dialog).toHaveTextContent('every device logged in with it is logged out: this one too, if you logged in with it');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete the passkey' }));
    expect(await screen.findByRole('heading', { name: 'You need to be logged in' })).toBeInTheDocument();
    expect(api.getToken()).toBeNull();
    expect(screen.queryByText('An error has occurred')).not.toBeInTheDocument();
    // One refresh decided it: no loop of refused calls.
    expect(callsTo(fetch as unknown as ReturnType<typeof gateway>, 'POST', '/api/v1/auth/refresh-token')).toHaveLength(1);
  });

  it('shows no passkeys where the browser has no WebAuthn', async () => {
    webauthn.supported = false;
    renderApp('/account', { fetch: gateway({}), token: fakeToken() });
    await screen.findByRole('heading', { name: 'Account', level: 1 });
    expect(screen.queryByRole('heading', { name: 'Passkeys' })).not.toBeInTheDocument();
  });
});
