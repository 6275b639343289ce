import type { Message } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, checkAtBothSizes, chooseLanguage, chromiumForSuite, heading, logIn as logInAt } from './browser';
import { ownerWithItem } from './owners';

// A lost item's tag scanned, and the place its finder shares, in two browsers against the whole product: the finder's
// page counts the visit, the finder shares where they found the item (rounded to about 1 km unless they choose their
// exact position) and sees it in their conversation; the owner reads it in the thread with a link to a map, and finds
// the visit among the scans on the item's page (no city for a private address). axe and the width at 360 and 1280 px.

// Where the web app keeps the push offer's snooze (apps/web/src/features/push/push-subscription.ts): the offer would
// cover the screens these tests look at.
const PUSH_SNOOZE_KEY = 'homing.push.snoozedUntil';

// The finder's device: the position Chromium reports, to the page that asks, with the permission already given.
const FOUND_AT = { latitude: 52.37403, longitude: 4.88969, accuracy: 20 };

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: {
    message: 'Message',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    messages: 'Messages',
    share: 'Share where I found it',
    shareTitle: 'Share where you found it',
    coarsePreview: 'About 52.37, 4.89 (within about 1 km)',
    precise: 'Share my exact position, for a hand-over',
    send: 'Send this place',
    shared: 'Shared a place: 52.37, 4.89 (within about 1 km)',
    openMap: 'Open in a map',
    itemTitle: 'Edit item',
    scans: 'Scans of this tag',
    unknownPlace: 'Unknown place',
  },
  nl: {
    message: 'Bericht',
    sendFirst: 'Verstuur naar de eigenaar',
    sendReply: 'Antwoord versturen',
    messages: 'Berichten',
    share: 'Deel waar ik het vond',
    shareTitle: 'Deel waar je het vond',
    coarsePreview: 'Ongeveer 52.37, 4.89 (binnen ongeveer 1 km)',
    precise: 'Deel mijn exacte positie, voor de overdracht',
    send: 'Deze plek versturen',
    shared: 'Plek gedeeld: 52.37, 4.89 (binnen ongeveer 1 km)',
    openMap: 'Openen op een kaart',
    itemTitle: 'Voorwerp bewerken',
    scans: 'Scans van dit label',
    unknownPlace: 'Onbekende plek',
  },
  es: {
    message: 'Mensaje',
    sendFirst: 'Enviar al propietario',
    sendReply: 'Enviar respuesta',
    messages: 'Mensajes',
    share: 'Compartir dónde lo encontré',
    shareTitle: 'Comparte dónde lo encontraste',
    coarsePreview: 'Aproximadamente 52.37, 4.89 (margen aproximado: 1 km)',
    precise: 'Compartir mi posición exacta, para la entrega',
    send: 'Enviar este lugar',
    shared: 'Lugar compartido: 52.37, 4.89 (margen aproximado: 1 km)',
    openMap: 'Abrir en un mapa',
    itemTitle: 'Editar objeto',
    scans: 'Escaneos de esta etiqueta',
    unknownPlace: 'Lugar desconocido',
  },
} as const;
type Language = keyof typeof TEXTS;

describe('scans of a lost item’s tag and the place its finder shares, in two browsers', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;

  const bubble = (page: Page, language: Language, text: string) => page.getByRole('list', { name: TEXTS[language].messages }).getByRole('listitem').filter({ hasText: text });

  /** A page whose push offer is snoozed: it would cover what these tests look at. */
  async function pageWithoutPushOffer(options: Parameters<typeof openPage>[0]): Promise<Page> {
    const page = await openPage(options);
    await page.addInitScript(`localStorage.setItem(${JSON.stringify(PUSH_SNOOZE_KEY)}, String(Date.now() + 3600000))`);
    return page;
  }

  /** An owner whose item is marked lost with a note, through the API. */
  async function ownerOfLostItem(note: string) {
    const owner = await ownerWithItem(stack, 'Backpack');
    const marked = await fetch(`${stack.api}/user/items/${owner.code}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.205.0.1' },
      body: JSON.stringify({ lost: true, lost_note: note }),
    });
    expect(marked.status).toBe(200);
    return owner;
  }

  /** The finder opens the tag's page (the lost banner with the owner's note) and writes a first message. */
  async function finderWrites(finder: Page, code: string, language: Language, note: string) {
    const texts = TEXTS[language];
    await finder.goto(url(`/found/${code}`));
    await appTookOver(finder);
    await chooseLanguage(finder, language);
    await finder.locator('.found__lost').filter({ hasText: note }).waitFor();
    await finder.getByLabel(texts.message, { exact: true }).fill('I found your backpack on the tram');
    await finder.getByRole('button', { name: texts.sendFirst }).click();
    await finder.getByRole('button', { name: texts.sendReply }).waitFor();
  }


  it.each(Object.keys(TEXTS) as Language[])(
    'lets a finder share roughly where they found a lost item, shows it to the owner with a map link, and lists the scan, in %s, accessibly at 360 and 1280 px',
    async (language) => {
      const texts = TEXTS[language];
      const violations: string[] = [];
      const note = `Lost on tram 5 (${language}), please write!`;
      const owner = await ownerOfLostItem(note);

      const finder = await pageWithoutPushOffer({ viewport: 'phone', geolocation: FOUND_AT });
      await finderWrites(finder, owner.code, language, note);
      await finder.getByRole('button', { name: texts.share }).click();
      const preview = finder.getByRole('region', { name: texts.shareTitle });
      await preview.getByText(texts.coarsePreview, { exact: true }).waitFor();
      expect(await preview.getByRole('checkbox', { name: texts.precise }).isChecked()).toBe(false);
      await checkAtBothSizes(finder, `location-finder-preview-${language}`, violations);

      await preview.getByRole('button', { name: texts.send }).click();
      const place = bubble(finder, language, texts.shared);
      await place.waitFor();
      await preview.waitFor({ state: 'detached' });
      expect(await place.getByRole('link', { name: texts.openMap }).getAttribute('href')).toContain('mlat=52.37&mlon=4.89');
      await checkAtBothSizes(finder, `location-finder-sent-${language}`, violations);

      const ownerPage = await pageWithoutPushOffer({ viewport: 'desktop' });
      await logInAt(ownerPage, stack.base, owner);
      await chooseLanguage(ownerPage, language);
      await ownerPage.goto(url(`/found/${owner.code}`));
      const seen = bubble(ownerPage, language, texts.shared);
      await seen.waitFor();
      const mapLink = seen.getByRole('link', { name: texts.openMap });
      expect(await mapLink.getAttribute('href')).toContain('mlat=52.37');
      expect(await mapLink.getAttribute('href')).toMatch(/^https:\/\/www\.openstreetmap\.org\//);
      expect(await mapLink.getAttribute('rel')).toBe('noopener noreferrer');
      await checkAtBothSizes(ownerPage, `location-owner-thread-${language}`, violations);

      // The finder's visit is a scan; a private client address has no city.
      await ownerPage.goto(url(`/item/${owner.code}`));
      await heading(ownerPage, texts.itemTitle);
      const scans = ownerPage.getByRole('region', { name: texts.scans });
      await scans.getByRole('listitem').filter({ hasText: texts.unknownPlace }).first().waitFor();
      await checkAtBothSizes(ownerPage, `scans-owner-item-${language}`, violations);

      expect(violations).toEqual([]);
    },
  );

  it('sends the exact position when the finder chooses it for a hand-over', async () => {
    const texts = TEXTS.en;
    const note = 'Lost near the station';
    const owner = await ownerOfLostItem(note);
    const finder = await pageWithoutPushOffer({ viewport: 'phone', geolocation: FOUND_AT });
    await finderWrites(finder, owner.code, 'en', note);
    await finder.getByRole('button', { name: texts.share }).click();
    const preview = finder.getByRole('region', { name: texts.shareTitle });
    await preview.getByText(texts.coarsePreview, { exact: true }).waitFor();
    await preview.getByRole('checkbox', { name: texts.precise }).check();
    await preview.getByText('52.37403, 4.88969 (exact position)', { exact: true }).waitFor();
    await preview.getByRole('button', { name: texts.send }).click();
    await bubble(finder, 'en', 'Shared a place: 52.37403, 4.88969 (exact position)').waitFor();

    // What the owner's thread holds: the place as chosen, to the metre.
    const messages = await expectEventually(async () => {
      const answer = await fetch(`${stack.api}/items/${owner.code}/messages`, { headers: { authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.205.0.2' } });
      expect(answer.status).toBe(200);
      return (await answer.json()) as Message[];
    });
    const shared = messages.filter((message) => message.location);
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatchObject({ author: 'finder', content: '', location: { lat: 52.37403, lon: 4.88969, precise: true } });
  });
});
