import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { callsTo, gateway } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

// A build with rewards on (VITE_REWARDS_ENABLED=true); the default build has them off (spec §9).
vi.mock('../../../lib/config', () => ({ rewardsEnabled: true }));

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const item = { code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: true, reward: 0 };

describe('the item form with rewards enabled', () => {
  it('asks for no reward when adding an item', async () => {
    renderApp('/add-item', { token: fakeToken() });
    expect(await screen.findByLabelText('Name')).toBeInTheDocument();
    expect(screen.queryByLabelText('Reward in euros')).not.toBeInTheDocument();
  });

  it('refuses a reward that is not an amount, and saves one with a decimal comma in cents', async () => {
    const fetch = gateway({
      [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item),
      [`PATCH /api/v1/user/items/${CODE}`]: (_url, init) => jsonResponse(200, { ...item, ...JSON.parse(String(init.body)) }),
    });
    const { router } = renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const reward = await screen.findByLabelText('Reward in euros');
    await userEvent.type(reward, 'ten euros');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Enter an amount such as 10 or 12,50.')).toBeInTheDocument();
    expect(callsTo(fetch, 'PATCH', `/api/v1/user/items/${CODE}`)).toHaveLength(0);

    await userEvent.clear(reward);
    await userEvent.type(reward, '12,5');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
    const [[, init]] = callsTo(fetch, 'PATCH', `/api/v1/user/items/${CODE}`);
    expect(JSON.parse(String(init?.body))).toEqual({ name: 'Keys', reward: 1250 });
  });
});
