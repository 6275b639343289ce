import { act, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { callsTo, gateway } from '../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../testing/render-app';
import { ApiError } from '../../lib/api-transport';
import { formatWait, mailWaitOf, useMailWait } from './mail-wait';
import { afterLoginPath, forgetLoginTarget, rememberLoginTarget, withLoginTarget } from './redirects';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const rateLimited = (seconds: number) => () => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'Too many.' }, { 'Retry-After': String(seconds) });

afterEach(() => {
  vi.useRealTimers();
});

describe('carrying c/ec through the login code', () => {
  it('keeps the c or ec of the login that asked for a code, for the code screen opened from the e-mail', () => {
    const now = 1_000_000;
    rememberLoginTarget(new URLSearchParams(`c=${CODE}&email=a%40example.com`), now);
    const restored = withLoginTarget(new URLSearchParams('code=ABCD2345'), now + 60_000);
    expect(afterLoginPath(restored)).toBe(`/found/${CODE}`);
    expect(restored.get('code')).toBe('ABCD2345');

    rememberLoginTarget(new URLSearchParams(`ec=${CODE}`), now);
    expect(afterLoginPath(withLoginTarget(new URLSearchParams(), now + 1))).toBe(`/item/${CODE}`);
  });

  it('prefers the URL’s own c/ec, forgets a kept one after the code’s 10 minutes, on logging in, and on a login without one', () => {
    const now = 1_000_000;
    rememberLoginTarget(new URLSearchParams(`c=${CODE}`), now);
    expect(afterLoginPath(withLoginTarget(new URLSearchParams('ec=OTHER'), now))).toBe('/item/OTHER');
    expect(afterLoginPath(withLoginTarget(new URLSearchParams(), now + 10 * 60_000 + 1))).toBe('/items');

    forgetLoginTarget();
    expect(afterLoginPath(withLoginTarget(new URLSearchParams(), now + 1))).toBe('/items');

    rememberLoginTarget(new URLSearchParams(`c=${CODE}`), now);
    rememberLoginTarget(new URLSearchParams('email=a%40example.com'), now);
    expect(afterLoginPath(withLoginTarget(new URLSearchParams(), now + 1))).toBe('/items');
  });

  it('ignores whatever else the storage holds', () => {
    localStorage.setItem('homing.afterLogin', '{not json');
    expect(afterLoginPath(withLoginTarget(new URLSearchParams()))).toBe('/items');
    localStorage.setItem('homing.afterLogin', JSON.stringify({ c: 42, at: Date.now() }));
    expect(afterLoginPath(withLoginTarget(new URLSearchParams()))).toBe('/items');
  });

  it('asks for a code from a thread link and, from the code e-mail’s link, lands on the thread', async () => {
    const token = fakeToken();
    const fetch = gateway({
      'GET /api/v1/magic-link': () => jsonResponse(200, { message: 'sent' }),
      'POST /api/v1/magic-link/login': () => jsonResponse(200, { token }),
    });
    const first = renderApp(`/login/email?c=${CODE}&email=owner%40example.com`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a login code' }));
    await waitFor(() => expect(first.router.state.location.pathname).toBe('/login/code'));
    expect(first.router.state.location.search).toBe(`?c=${CODE}&email=owner%40example.com`);
    expect(await screen.findByRole('link', { name: 'Back to logging in with a password' })).toHaveAttribute('href', `/login?c=${CODE}&email=owner%40example.com`);
    first.unmount();

    // The e-mail's link, as another tab opens it: no c of its own.
    const second = renderApp('/login/code?code=ABCD2345', { fetch });
    await waitFor(() => expect(second.router.state.location.pathname).toBe(`/found/${CODE}`));
    expect(localStorage.getItem('homing.afterLogin')).toBeNull();
  });

  it('forgets it at log-out: the next person to log in with a code in this browser is not sent to the previous one’s thread', async () => {
    const alice = fakeToken({ id: '0190a000-0000-7000-8000-00000000000a', email: 'alice@example.com' });
    const bob = fakeToken({ id: '0190a000-0000-7000-8000-00000000000b', email: 'bob@example.com' });
    const fetch = gateway({
      'GET /api/v1/magic-link': () => jsonResponse(200, { message: 'sent' }),
      'POST /api/v1/user/login': () => jsonResponse(200, { token: alice }),
      'POST /api/v1/auth/logout': () => jsonResponse(204),
      'POST /api/v1/magic-link/login': () => jsonResponse(200, { token: bob }),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
      'GET /api/v1/user/found-items': () => jsonResponse(200, {}),
    });
    // Alice follows a thread link, asks for a login code, then logs in with her password instead.
    const { router } = renderApp(`/login/email?c=${CODE}&email=alice%40example.com`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a login code' }));
    await userEvent.click(await screen.findByRole('link', { name: 'Back to logging in with a password' }));
    await userEvent.type(await screen.findByLabelText('Password'), 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
    await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    await screen.findByRole('link', { name: 'Log in' });

    // Within the code's 10 minutes Bob opens, in the same browser, the link of a code he asked for on his phone.
    await act(() => router.navigate('/login/code?code=BOBC2345'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
  });
});

describe('the mail countdown', () => {
  it('reads the wait of a 429 only', () => {
    expect(mailWaitOf(new ApiError('http', 'x', 429, 'RATE_LIMITED', undefined, 42))).toBe(42);
    expect(mailWaitOf(new ApiError('http', 'x', 503, 'SERVICE_UNAVAILABLE', undefined, 5))).toBeNull();
    expect(mailWaitOf(new ApiError('http', 'x', 429))).toBeNull();
    expect(mailWaitOf(new Error('x'))).toBeNull();
  });

  it('formats minutes and seconds, and hours for a day’s wait', () => {
    expect(formatWait(5)).toBe('0:05');
    expect(formatWait(60)).toBe('1:00');
    expect(formatWait(59.2)).toBe('1:00');
    expect(formatWait(3599)).toBe('59:59');
    expect(formatWait(86_340)).toBe('23:59:00');
  });

  it('counts down from the Retry-After to 0', () => {
    vi.useFakeTimers();
    const refusal = new ApiError('http', 'x', 429, 'RATE_LIMITED', undefined, 3);
    const { result } = renderHook(({ error }) => useMailWait(error), { initialProps: { error: refusal as unknown } });
    expect(result.current).toBe(3);
    act(() => void vi.advanceTimersByTime(1000));
    expect(result.current).toBe(2);
    act(() => void vi.advanceTimersByTime(2000));
    expect(result.current).toBe(0);
  });

  it('on the e-mail login: says when a new code can be asked for, and keeps the button off until then', async () => {
    const fetch = gateway({ 'GET /api/v1/magic-link': rateLimited(3) });
    renderApp('/login/email?email=owner%40example.com', { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Send me a login code' }));
    expect(await screen.findByRole('timer')).toHaveTextContent('You can ask for a new e-mail in 0:03.');
    expect(screen.getByRole('alert')).toHaveTextContent('We have sent enough e-mails to this address for now.');
    expect(screen.getByRole('button', { name: 'Send me a login code' })).toBeDisabled();
    // A refused request is not retried: a minute's wait is not a second's.
    expect(callsTo(fetch, 'GET', '/api/v1/magic-link')).toHaveLength(1);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send me a login code' })).toBeEnabled(), { timeout: 6000 });
    expect(screen.queryByRole('timer')).not.toBeInTheDocument();
  });

  it('on the forgot-password screen: the same countdown', async () => {
    const fetch = gateway({ 'POST /api/v1/user/password-forgot': rateLimited(61) });
    renderApp('/forgot-password', { fetch });
    await userEvent.type(await screen.findByLabelText('E-mail'), 'owner@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send me a link' }));
    expect(await screen.findByRole('timer')).toHaveTextContent('You can ask for a new e-mail in 1:01.');
    expect(screen.getByRole('button', { name: 'Send me a link' })).toBeDisabled();
  });
});

describe('owner ways in', () => {
  const claimed = (overrides: Record<string, unknown> = {}) => () =>
    jsonResponse(200, { code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, ...overrides });

  it('offers a logged-out visitor of a claimed tag a discreet login to the thread', async () => {
    renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET /api/v1/items/${CODE}`]: claimed() }) });
    expect(await screen.findByRole('link', { name: 'Is this your item? Log in' })).toHaveAttribute('href', `/login?c=${CODE}`);
  });

  it('does not offer it to someone logged in', async () => {
    renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET /api/v1/items/${CODE}`]: claimed() }), token: fakeToken() });
    expect(await screen.findByRole('heading', { name: "You found someone's item" })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Is this your item? Log in' })).not.toBeInTheDocument();
  });

  it('links an unusable password link to a new link and to login', async () => {
    const fetch = gateway({ 'POST /api/v1/user/password': () => jsonResponse(422, { response_code: 'EXPIRED_PASSWORD_TOKEN', message: 'x' }) });
    renderApp('/reset-password/old-token', { fetch });
    for (const field of await screen.findAllByLabelText(/password/i)) await userEvent.type(field, 'a long enough password');
    await userEvent.click(screen.getByRole('button', { name: 'Save password' }));
    expect(await screen.findByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password');
    expect(within(screen.getByRole('note')).getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login');
  });
});
