import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Scan } from '@homing/contracts';

import { gateway } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const item = { code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: true, lost: true };

function itemPageWith(scans: Scan[] | (() => Response), language?: string) {
  const fetch = gateway({
    [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item),
    [`GET /api/v1/user/items/${CODE}/scans`]: typeof scans === 'function' ? scans : () => jsonResponse(200, { scans }),
  });
  if (language) localStorage.setItem('lang', language);
  return renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
}

describe('the scans of a tag on its item page', () => {
  it('lists when, roughly where and on what device, newest first, with a word of what is kept', async () => {
    itemPageWith([
      { scanned_at: '2026-11-20T14:05:00Z', city: 'Amsterdam', country: 'NL', device_kind: 'phone' },
      { scanned_at: '2026-11-19T09:30:00Z', city: null, country: 'BE', device_kind: 'tablet' },
      { scanned_at: '2026-11-18T20:00:00Z', city: null, country: null, device_kind: 'desktop' },
    ]);
    const section = await screen.findByRole('region', { name: 'Scans of this tag' });
    expect(within(section).getByText(/We keep no addresses\./)).toBeInTheDocument();
    const scans = await within(section).findAllByRole('listitem');
    expect(scans).toHaveLength(3);
    expect(scans[0]).toHaveTextContent('Amsterdam, Netherlands');
    expect(scans[0]).toHaveTextContent('Phone');
    expect(within(scans[0]).getByText(/2026/)).toHaveAttribute('dateTime', '2026-11-20T14:05:00Z');
    expect(scans[1]).toHaveTextContent('Belgium');
    expect(scans[1]).toHaveTextContent('Tablet');
    expect(scans[2]).toHaveTextContent('Unknown place');
    expect(scans[2]).toHaveTextContent('Computer');
  });

  it('names the country and the device in the page’s language', async () => {
    itemPageWith([{ scanned_at: '2026-11-20T14:05:00Z', city: 'Madrid', country: 'ES', device_kind: 'other' }], 'nl');
    const section = await screen.findByRole('region', { name: 'Scans van dit label' });
    const [scan] = await within(section).findAllByRole('listitem');
    expect(scan).toHaveTextContent('Madrid, Spanje');
    expect(scan).toHaveTextContent('Ander apparaat');
  });

  it('says so when nobody scanned the tag in the last 30 days', async () => {
    itemPageWith([]);
    const section = await screen.findByRole('region', { name: 'Scans of this tag' });
    expect(await within(section).findByText('Nobody has scanned this tag in the last 30 days.')).toBeInTheDocument();
    expect(within(section).queryByRole('list')).not.toBeInTheDocument();
  });

  it('says why when the scans cannot be loaded', async () => {
    itemPageWith(() => jsonResponse(500, { response_code: 'INTERNAL_ERROR', message: 'x' }));
    const section = await screen.findByRole('region', { name: 'Scans of this tag' });
    expect(await within(section).findByRole('alert')).toBeInTheDocument();
  });
});
