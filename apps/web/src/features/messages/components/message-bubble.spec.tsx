import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { Message } from '@homing/contracts';

import { createI18n } from '../../../i18n/i18n';
import { MessageBubble, type Viewer } from './message-bubble';

const now = Date.parse('2026-11-20T12:00:00Z');
const message = (overrides: Partial<Message> = {}): Message => ({
  id: 1,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author: 'finder',
  content: 'Found your keys\nat the station',
  created_at: '2026-11-20T11:57:00Z',
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: 0,
  ...overrides,
});

function show(value: Message, viewer: Viewer) {
  const i18n = createI18n();
  return render(
    <I18nextProvider i18n={i18n}>
      <ol>
        <MessageBubble message={value} viewer={viewer} now={now} />
      </ol>
    </I18nextProvider>,
  );
}

describe('a message bubble', () => {
  it('shows the content line by line and how long ago it was written', () => {
    show(message(), 'owner');
    expect(screen.getByText('Found your keys')).toBeInTheDocument();
    expect(screen.getByText('at the station')).toBeInTheDocument();
    expect(screen.getByText('3 minutes ago')).toBeInTheDocument();
  });

  it('labels the owner as "you" for the owner, aligned right, and as "owner" for the finder', () => {
    const { unmount } = show(message({ author: 'owner' }), 'owner');
    expect(screen.getByText('you').closest('li')).toHaveClass('bubble--own');
    unmount();
    show(message({ author: 'owner' }), 'finder');
    expect(screen.getByText('owner').closest('li')).not.toHaveClass('bubble--own');
  });

  it('names the finder, by number when the owner has several', () => {
    const { unmount } = show(message({ finder: 'Finder 2' }), 'owner');
    expect(screen.getByText('Finder 2')).toBeInTheDocument();
    unmount();
    show(message(), 'owner');
    expect(screen.getByText('finder')).toBeInTheDocument();
  });

  it('shows a finder "Delivered" and then "Read" under their own messages, and nothing under the owner’s', () => {
    const { unmount } = show(message({ delivered_at: '2026-11-20T11:58:00Z' }), 'finder');
    expect(screen.getByText('Delivered')).toBeInTheDocument();
    unmount();
    const read = show(message({ delivered_at: '2026-11-20T11:58:00Z', read_at: '2026-11-20T11:59:00Z' }), 'finder');
    expect(screen.getByText('Read')).toBeInTheDocument();
    expect(screen.queryByText('Delivered')).not.toBeInTheDocument();
    read.unmount();
    show(message({ author: 'owner', delivered_at: '2026-11-20T11:58:00Z', read_at: '2026-11-20T11:59:00Z' }), 'finder');
    expect(screen.queryByText('Read')).not.toBeInTheDocument();
  });

  it('shows the owner "Read" on a reply the finder opened, and no "Delivered"', () => {
    const { unmount } = show(message({ author: 'owner', delivered_at: '2026-11-20T11:58:00Z' }), 'owner');
    expect(screen.queryByText('Delivered')).not.toBeInTheDocument();
    unmount();
    show(message({ author: 'owner', read_at: '2026-11-20T11:59:00Z' }), 'owner');
    expect(screen.getByText('Read')).toBeInTheDocument();
  });

  it('shows a shared place in words with a link to it on a map, to the owner and the finder alike', () => {
    const coarse = message({ content: '', location: { lat: 52.37, lon: 4.9, accuracy_m: 1000, precise: false } });
    const { unmount } = show(coarse, 'owner');
    expect(screen.getByText('Shared a place: 52.37, 4.90 (within about 1 km)')).toBeInTheDocument();
    const link = screen.getByRole('link', { name: 'Open in a map' });
    expect(link).toHaveAttribute('href', 'https://www.openstreetmap.org/?mlat=52.37&mlon=4.9#map=14/52.37/4.9');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    unmount();
    show(message({ content: '', location: { lat: 52.37403, lon: 4.88969, accuracy_m: 12, precise: true } }), 'finder');
    expect(screen.getByText('Shared a place: 52.37403, 4.88969 (exact position)')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open in a map' }).getAttribute('href')).toContain('mlat=52.37403&mlon=4.88969#map=17/');
  });

  it('words a shared place in the reader’s language, coordinates kept as they are', async () => {
    const i18n = createI18n();
    await i18n.changeLanguage('nl');
    render(
      <I18nextProvider i18n={i18n}>
        <ol>
          <MessageBubble message={message({ content: '', location: { lat: 52.37, lon: 4.9, accuracy_m: 3000, precise: false } })} viewer="owner" now={now} />
        </ol>
      </I18nextProvider>,
    );
    expect(screen.getByText('Plek gedeeld: 52.37, 4.90 (binnen ongeveer 3 km)')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Openen op een kaart' })).toBeInTheDocument();
  });
  it('says which contact details are hidden in a message, and why, in the reader’s language', async () => {
    const masked = message({ content: 'Call me at ••••••••, IBAN ••••', masked: ['phone', 'iban'] });
    const { unmount } = show(masked, 'owner');
    expect(screen.getByText('Call me at ••••••••, IBAN ••••')).toBeInTheDocument();
    expect(screen.getByText('Hidden until you both agree to share contact details: a phone number and an IBAN.')).toBeInTheDocument();
    unmount();

    const i18n = createI18n();
    await i18n.changeLanguage('nl');
    render(
      <I18nextProvider i18n={i18n}>
        <ol>
          <MessageBubble message={masked} viewer="owner" now={now} />
        </ol>
      </I18nextProvider>,
    );
    expect(screen.getByText('Verborgen tot jullie allebei akkoord gaan met het delen van contactgegevens: een telefoonnummer en een IBAN.')).toBeInTheDocument();
  });

  it('has no note on a message with nothing hidden', () => {
    show(message({ masked: [] }), 'owner');
    expect(screen.queryByText(/Hidden until/)).not.toBeInTheDocument();
  });
});
