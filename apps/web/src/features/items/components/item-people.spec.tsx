import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ItemPeople } from '@homing/contracts';

import { callsTo, gateway, type Handler } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const ITEM = `/api/v1/user/items/${CODE}`;
const OWNER_ID = '0190a000-0000-7000-8000-000000000001';
const CO_OWNER_ID = '0190a000-0000-7000-8000-000000000002';
const INVITATION_ID = '0190a000-0000-7000-8000-0000000000a1';
const TRANSFER_ID = '0190a000-0000-7000-8000-0000000000b1';

const item = (overrides: Record<string, unknown> = {}) => ({
  code: CODE,
  name: 'Bike',
  claimed_at: '2026-11-01T10:00:00Z',
  activated: true,
  is_owner: true,
  lost: false,
  role: 'owner',
  shared: true,
  ...overrides,
});
const owner = (isYou: boolean) => ({ id: OWNER_ID, email: 'owner@example.com', role: 'owner' as const, added_at: '2026-11-01T10:00:00Z', is_you: isYou });
const coOwner = (isYou: boolean) => ({ id: CO_OWNER_ID, email: 'partner@example.com', role: 'co-owner' as const, added_at: '2026-11-02T10:00:00Z', is_you: isYou });
const invitation = { id: INVITATION_ID, email: 'friend@example.com', kind: 'co-owner' as const, expires_at: '2026-11-30T10:00:00Z' };
const transfer = { id: TRANSFER_ID, email: 'buyer@example.com', kind: 'transfer' as const, expires_at: '2026-11-30T10:00:00Z' };

/** The item page's calls, with the people and the person's settings as given; more routes override them. */
function itemGateway(role: 'owner' | 'co-owner', people: () => ItemPeople, routes: Record<string, Handler> = {}) {
  return gateway({
    [`GET ${ITEM}`]: () => jsonResponse(200, item({ role })),
    [`GET ${ITEM}/co-owners`]: () => jsonResponse(200, people()),
    [`GET ${ITEM}/notifications`]: () => jsonResponse(200, { email: true, push: true }),
    [`GET ${ITEM}/scans`]: () => jsonResponse(200, { scans: [] }),
    ...routes,
  });
}

const peopleSection = async () => within((await screen.findByRole('heading', { name: 'People' })).closest('section') as HTMLElement);

describe('the people of an item, for its owner', () => {
  it('lists the owner, the co-owners and the open invitations, with an invite form and the hand-over', async () => {
    const fetch = itemGateway('owner', () => ({ people: [owner(true), coOwner(false)], invitations: [invitation] }));
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const people = await peopleSection();
    expect(await people.findByText('owner@example.com')).toBeInTheDocument();
    expect(people.getByText('Owner · you')).toBeInTheDocument();
    expect(people.getByText('partner@example.com')).toBeInTheDocument();
    expect(people.getByText('Co-owner')).toBeInTheDocument();
    expect(people.getByText('friend@example.com')).toBeInTheDocument();
    expect(people.getByText(/^Invited, until/)).toBeInTheDocument();
    expect(people.getByRole('button', { name: 'Remove partner@example.com' })).toBeInTheDocument();
    // The owner is never offered to remove themselves.
    expect(people.queryByRole('button', { name: 'Remove owner@example.com' })).not.toBeInTheDocument();
    expect(people.getByRole('button', { name: 'Withdraw the invitation of friend@example.com' })).toBeInTheDocument();
    expect(people.getByLabelText('E-mail address to invite')).toBeInTheDocument();
    expect(people.getByRole('heading', { name: 'Hand over ownership' })).toBeInTheDocument();
    expect(people.queryByRole('button', { name: 'Leave this item' })).not.toBeInTheDocument();
    // The owner's own controls stay.
    expect(screen.getByRole('heading', { name: 'Edit item', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete item' })).toBeInTheDocument();
  });

  it('invites an address, checks it first, and shows why the server refuses one', async () => {
    let invitations: ItemPeople['invitations'] = [];
    const fetch = itemGateway('owner', () => ({ people: [owner(true)], invitations }), {
      [`POST ${ITEM}/co-owners`]: (_url, init) => {
        const { email } = JSON.parse(String(init.body)) as { email: string };
        if (email === 'again@example.com') return jsonResponse(409, { response_code: 'ALREADY_INVITED', message: 'x' });
        if (email === 'eleventh@example.com') return jsonResponse(409, { response_code: 'TOO_MANY_PEOPLE', message: 'x' });
        invitations = [{ ...invitation, email }];
        return jsonResponse(201, { invitation_id: INVITATION_ID, expires_at: invitation.expires_at });
      },
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const people = await peopleSection();
    const field = await people.findByLabelText('E-mail address to invite');

    await userEvent.type(field, 'not-an-address');
    await userEvent.click(people.getByRole('button', { name: 'Invite' }));
    expect(await people.findByText('Email seems to be invalid.')).toBeInTheDocument();
    expect(callsTo(fetch, 'POST', `${ITEM}/co-owners`)).toHaveLength(0);

    await userEvent.clear(field);
    await userEvent.type(field, 'again@example.com');
    await userEvent.click(people.getByRole('button', { name: 'Invite' }));
    expect(await people.findByRole('alert')).toHaveTextContent('This address is already invited.');

    await userEvent.clear(field);
    await userEvent.type(field, 'eleventh@example.com');
    await userEvent.click(people.getByRole('button', { name: 'Invite' }));
    expect(await people.findByText(/at most 10 people/)).toBeInTheDocument();

    await userEvent.clear(field);
    await userEvent.type(field, 'friend@example.com');
    await userEvent.click(people.getByRole('button', { name: 'Invite' }));
    expect(await screen.findByText('Invitation sent to friend@example.com.')).toBeInTheDocument();
    expect(await people.findByText('friend@example.com')).toBeInTheDocument();
    expect(field).toHaveValue('');
    expect(JSON.parse(String(callsTo(fetch, 'POST', `${ITEM}/co-owners`).at(-1)?.[1]?.body))).toEqual({ email: 'friend@example.com' });
  });

  it('removes a co-owner after a confirmation, and withdraws an invitation', async () => {
    let current: ItemPeople = { people: [owner(true), coOwner(false)], invitations: [invitation] };
    const fetch = itemGateway('owner', () => current, {
      [`DELETE ${ITEM}/co-owners/${CO_OWNER_ID}`]: () => {
        current = { ...current, people: [owner(true)] };
        return new Response(null, { status: 204 });
      },
      [`DELETE ${ITEM}/co-owners/${INVITATION_ID}`]: () => {
        current = { ...current, invitations: [] };
        return new Response(null, { status: 204 });
      },
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const people = await peopleSection();
    await userEvent.click(await people.findByRole('button', { name: 'Remove partner@example.com' }));
    const question = people.getByRole('alertdialog', { name: 'Remove partner@example.com?' });
    // Escape keeps them.
    await userEvent.keyboard('{Escape}');
    expect(people.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(callsTo(fetch, 'DELETE', `${ITEM}/co-owners/${CO_OWNER_ID}`)).toHaveLength(0);
    expect(question).not.toBeInTheDocument();

    await userEvent.click(people.getByRole('button', { name: 'Remove partner@example.com' }));
    await userEvent.click(people.getByRole('button', { name: 'Yes, remove' }));
    expect(await screen.findByText('partner@example.com no longer shares this item.')).toBeInTheDocument();
    await waitFor(() => expect(people.queryByText('partner@example.com')).not.toBeInTheDocument());

    await userEvent.click(people.getByRole('button', { name: 'Withdraw the invitation of friend@example.com' }));
    await waitFor(() => expect(people.queryByText('friend@example.com')).not.toBeInTheDocument());
    expect(callsTo(fetch, 'DELETE', `${ITEM}/co-owners/${INVITATION_ID}`)).toHaveLength(1);
  });

  it('hands the item over, shows the offer waiting, and cancels it', async () => {
    let current: ItemPeople = { people: [owner(true), coOwner(false)], invitations: [] };
    const fetch = itemGateway('owner', () => current, {
      [`POST ${ITEM}/transfer`]: () => {
        current = { ...current, invitations: [transfer] };
        return jsonResponse(201, { invitation_id: TRANSFER_ID, expires_at: transfer.expires_at });
      },
      [`DELETE ${ITEM}/transfer`]: () => {
        current = { ...current, invitations: [] };
        return new Response(null, { status: 204 });
      },
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const people = await peopleSection();
    await userEvent.type(await people.findByLabelText('E-mail address of the new owner'), 'buyer@example.com');
    expect(people.getByText(/conversations are then cleared and its co-owners removed/)).toBeInTheDocument();
    await userEvent.click(people.getByRole('button', { name: 'Hand over' }));
    expect(await people.findByText('Waiting for buyer@example.com to accept.')).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', `${ITEM}/transfer`)[0][1]?.body))).toEqual({ email: 'buyer@example.com' });
    // A transfer offer is not listed among the invitations to share.
    expect(people.queryByText(/^Invited, until/)).not.toBeInTheDocument();

    await userEvent.click(people.getByRole('button', { name: 'Cancel the hand-over to buyer@example.com' }));
    expect(await people.findByLabelText('E-mail address of the new owner')).toBeInTheDocument();
    expect(callsTo(fetch, 'DELETE', `${ITEM}/transfer`)).toHaveLength(1);
  });
});

describe('the people of an item, for a co-owner', () => {
  it('shows the list without the owner’s controls, and hides renaming and deleting', async () => {
    const fetch = itemGateway('co-owner', () => ({ people: [owner(false), coOwner(true)], invitations: [invitation] }));
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken({ email: 'partner@example.com' }) });
    const people = await peopleSection();
    expect(await people.findByText('Co-owner · you')).toBeInTheDocument();
    expect(people.getByText('Owner')).toBeInTheDocument();
    expect(people.getByText('friend@example.com')).toBeInTheDocument();
    expect(people.queryByRole('button', { name: /^Remove/ })).not.toBeInTheDocument();
    expect(people.queryByRole('button', { name: /^Withdraw/ })).not.toBeInTheDocument();
    expect(people.queryByLabelText('E-mail address to invite')).not.toBeInTheDocument();
    expect(people.queryByRole('heading', { name: 'Hand over ownership' })).not.toBeInTheDocument();
    expect(people.getByRole('button', { name: 'Leave this item' })).toBeInTheDocument();

    expect(screen.getByRole('heading', { name: 'Shared item', level: 1 })).toBeInTheDocument();
    expect(screen.getByText('Bike')).toBeInTheDocument();
    expect(screen.queryByLabelText('Name')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete item' })).not.toBeInTheDocument();
    // Lost mode and the tag's scans are theirs too.
    expect(screen.getByRole('button', { name: 'I lost it' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Scans of this tag' })).toBeInTheDocument();
  });

  it('leaves the item after a confirmation and goes to My items', async () => {
    let left = false;
    const fetch = itemGateway('co-owner', () => ({ people: [owner(false), coOwner(true)], invitations: [] }), {
      [`DELETE ${ITEM}/co-owners/${CO_OWNER_ID}`]: () => {
        left = true;
        return new Response(null, { status: 204 });
      },
      'GET /api/v1/user/items': () => jsonResponse(200, left ? [] : [item({ role: 'co-owner' })]),
    });
    const { router } = renderApp(`/item/${CODE}`, { fetch, token: fakeToken({ email: 'partner@example.com' }) });
    const people = await peopleSection();
    await userEvent.click(await people.findByRole('button', { name: 'Leave this item' }));
    expect(people.getByRole('alertdialog', { name: 'Leave this item?' })).toBeInTheDocument();
    await userEvent.click(people.getByRole('button', { name: 'Yes, leave' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(await screen.findByText('You left the item.')).toBeInTheDocument();
    expect(await screen.findByText(/You have no items yet/)).toBeInTheDocument();
    expect(left).toBe(true);
  });
});

describe('a person’s notification settings of an item', () => {
  it('shows the settings and saves each switch with PATCH', async () => {
    let settings = { email: true, push: false };
    const patches: unknown[] = [];
    const fetch = itemGateway('co-owner', () => ({ people: [owner(false), coOwner(true)], invitations: [] }), {
      [`GET ${ITEM}/notifications`]: () => jsonResponse(200, settings),
      [`PATCH ${ITEM}/notifications`]: (_url, init) => {
        const body = JSON.parse(String(init.body)) as Partial<typeof settings>;
        patches.push(body);
        settings = { ...settings, ...body };
        return jsonResponse(200, settings);
      },
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const email = await screen.findByRole('checkbox', { name: 'E-mail me about this item' });
    const push = screen.getByRole('checkbox', { name: 'Push notifications about this item' });
    expect(email).toBeChecked();
    expect(push).not.toBeChecked();

    // Each switch shows the change at once, not only once the answer is in.
    await userEvent.click(email);
    expect(email).not.toBeChecked();
    await waitFor(() => expect(patches).toHaveLength(1));
    await userEvent.click(push);
    expect(push).toBeChecked();
    await waitFor(() => expect(patches).toEqual([{ email: false }, { push: true }]));
    expect(email).not.toBeChecked();
  });

  it('puts a switch back and says so when the change is refused', async () => {
    const fetch = itemGateway('owner', () => ({ people: [owner(true)], invitations: [] }), {
      [`PATCH ${ITEM}/notifications`]: () => jsonResponse(500, {}),
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const email = await screen.findByRole('checkbox', { name: 'E-mail me about this item' });
    await userEvent.click(email);
    expect(await screen.findByText('Our server seems to be having some troubles.')).toBeInTheDocument();
    expect(email).toBeChecked();
  });
});

describe('shared items in My items', () => {
  it('marks an item its owner shares, and an item shared with this person', async () => {
    const fetch = gateway({
      'GET /api/v1/user/items': () =>
        jsonResponse(200, [
          item({ code: 'AAAA-AAAA-AAAA-AAAA', name: 'Bike', shared: true }),
          item({ code: 'BBBB-BBBB-BBBB-BBBB', name: 'Car', role: 'co-owner', shared: true }),
          item({ code: 'CCCC-CCCC-CCCC-CCCC', name: 'Keys', shared: false }),
        ]),
      'GET /api/v1/user/found-items': () => jsonResponse(200, {}),
    });
    renderApp('/items', { fetch, token: fakeToken() });
    const card = async (name: string) => within((await screen.findByText(name)).closest('li') as HTMLElement);
    expect((await card('Bike')).getByText('Shared')).toBeInTheDocument();
    expect((await card('Car')).getByText('Shared with you')).toBeInTheDocument();
    expect((await card('Keys')).queryByText(/^Shared/)).not.toBeInTheDocument();
  });
});
