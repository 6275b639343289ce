import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { callsTo, gateway, headersOf } from '../../../testing/gateway';
import { threadMessage as message } from '../../../testing/messages';
import { jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const API = `/api/v1/items/${CODE}`;
const item = () => jsonResponse(200, { code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false });
const RESUME = 'RRRRRRRRRRRRRRRRRRRRRR';
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('a finder’s resume link', () => {
  it('brings the finder’s conversation to this browser, keeps its token and takes the link out of the address', async () => {
    const fetch = gateway({
      [`GET ${API}`]: item,
      [`POST ${API}/finder-resume`]: () => jsonResponse(200, { finder_token: TOKEN }),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message(1, 'finder', 'Encontré tus llaves'), message(2, 'owner', 'Thank you!')]),
    });
    const { router } = renderApp(`/found/${CODE}?resume=${RESUME}`, { fetch });
    expect(await screen.findByText('Thank you!')).toBeInTheDocument();
    expect(screen.getByText('Encontré tus llaves')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send reply' })).toBeInTheDocument();
    const exchange = callsTo(fetch, 'POST', `${API}/finder-resume`);
    expect(exchange).toHaveLength(1);
    expect(JSON.parse(String(exchange[0][1]?.body))).toEqual({ token: RESUME });
    expect(headersOf(callsTo(fetch, 'GET', `${API}/messages`)[0][1])['x-finder-token']).toBe(TOKEN);
    expect(localStorage.getItem(`homing.finder.${CODE}`)).toBe(TOKEN);
    expect(router.state.location.search).toBe('');
    expect(screen.queryByText('Already wrote to the owner? Get a link to your conversation')).not.toBeInTheDocument();
  });

  it('says an expired link has expired and offers to send a new one', async () => {
    const fetch = gateway({
      [`GET ${API}`]: item,
      [`POST ${API}/finder-resume`]: () => jsonResponse(422, { response_code: 'RESUME_LINK_EXPIRED', message: 'x' }),
      [`POST ${API}/resume-link`]: () => jsonResponse(202, { message: 'x' }),
    });
    const { router } = renderApp(`/found/${CODE}?resume=${RESUME}`, { fetch });
    expect(await screen.findByText(/This link to your conversation has expired/)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(localStorage.getItem(`homing.finder.${CODE}`)).toBeNull();

    await userEvent.type(screen.getByLabelText('The e-mail address you wrote with'), 'finder@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send me the link' }));
    expect(await screen.findByText(/a link to your conversation is on its way/)).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', `${API}/resume-link`)[0][1]?.body))).toEqual({ email: 'finder@example.com' });
  });

  it('offers a finder without a conversation here to ask for a link, folded away, and checks the address first', async () => {
    const fetch = gateway({ [`GET ${API}`]: item, [`POST ${API}/resume-link`]: () => jsonResponse(202, { message: 'x' }) });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.click(await screen.findByText('Already wrote to the owner? Get a link to your conversation'));
    await userEvent.type(screen.getByLabelText('The e-mail address you wrote with'), 'not-an-address');
    await userEvent.click(screen.getByRole('button', { name: 'Send me the link' }));
    expect(await screen.findByRole('alert')).toBeInTheDocument();
    expect(callsTo(fetch, 'POST', `${API}/resume-link`)).toHaveLength(0);
  });
});
