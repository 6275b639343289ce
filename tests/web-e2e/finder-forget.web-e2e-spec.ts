import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { stackForSuite } from '../support/stack';
import { appTookOver, chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, FINDER_PAGE_CODE } from './browser';
import { ownerWithItem } from './owners';

// A finder deletes their conversation from the finder page, after a confirmation, in each language; the owner's page
// then says the finder left. Texts as the locales of apps/web have them.
const TEXTS = {
  en: {
    finderTitle: "You found someone's item",
    message: 'Message',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    pushTitle: 'Get notified of new messages?',
    pushDecline: 'Not now',
    forgetAction: 'Delete my conversation',
    forgetTitle: 'Delete your conversation?',
    forgetConfirm: 'Yes, delete it',
    forgotten: 'Your conversation has been deleted. You can write to the owner again below.',
  },
  nl: {
    finderTitle: 'Je hebt andermans voorwerp gevonden',
    message: 'Bericht',
    sendFirst: 'Verstuur naar de eigenaar',
    sendReply: 'Antwoord versturen',
    pushTitle: 'Meldingen krijgen van nieuwe berichten?',
    pushDecline: 'Niet nu',
    forgetAction: 'Mijn gesprek verwijderen',
    forgetTitle: 'Je gesprek verwijderen?',
    forgetConfirm: 'Ja, verwijderen',
    forgotten: 'Je gesprek is verwijderd. Hieronder kun je de eigenaar opnieuw schrijven.',
  },
  es: {
    finderTitle: 'Has encontrado un objeto de otra persona',
    message: 'Mensaje',
    sendFirst: 'Enviar al propietario',
    sendReply: 'Enviar respuesta',
    pushTitle: '¿Quieres recibir avisos de nuevos mensajes?',
    pushDecline: 'Ahora no',
    forgetAction: 'Eliminar mi conversación',
    forgetTitle: '¿Eliminar tu conversación?',
    forgetConfirm: 'Sí, eliminarla',
    forgotten: 'Tu conversación se ha eliminado. Abajo puedes volver a escribir al propietario.',
  },
} as const;
type Language = keyof typeof TEXTS;
const LOCALES: Record<Language, string> = { en: 'en-GB', nl: 'nl-NL', es: 'es-ES' };
const FINDER_LEFT_EN = 'The finder deleted their conversation: you can no longer answer them.';

describe('a finder deleting their conversation', () => {
  const stack = stackForSuite({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;

  async function axeClean(page: Page, name: string, violations: string[]) {
    violations.push(...(await seriousViolations(page)).map((violation) => `${name}: ${violation}`));
    await screenshot(page, name);
  }

  for (const language of ['en', 'nl', 'es'] as const) {
    it(`lets a finder delete their conversation after confirming (${language}), and the owner sees that they left`, async () => {
      const text = TEXTS[language];
      const violations: string[] = [];
      const user = await ownerWithItem(stack, `Umbrella ${language}`);
      const { code } = user;

      // The finder meets the push offer once they have written: the full browser, which has the Push API.
      const finder = await openPage({ viewport: 'phone', locale: LOCALES[language], push: true });
      // The finder types into the prerendered page while the app's code is still on its way (a slow phone).
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await finder.route(FINDER_PAGE_CODE, async (route) => {
        await held;
        await route.continue();
      });
      await finder.goto(url(`/found/${code}`), { waitUntil: 'commit' });
      // (Not until `load`: the held script is the page's own, which the load event waits for.)
      // The gateway renders the page in the browser's language already.
      await heading(finder, text.finderTitle);
      const content = `Found it at the bakery (${randomUUID().slice(0, 8)})`;
      await finder.getByLabel(text.message, { exact: true }).fill(content);
      release();
      // The page's own form would post without the app; this journey is the app's.
      await appTookOver(finder);
      await heading(finder, text.finderTitle);
      await finder.getByRole('button', { name: text.sendFirst, disabled: false }).click();
      await finder.getByRole('button', { name: text.sendReply }).waitFor();
      const offer = finder.getByRole('dialog', { name: text.pushTitle });
      await offer.getByRole('button', { name: text.pushDecline }).click();
      await offer.waitFor({ state: 'detached' });

      // Nothing goes before the finder confirms.
      await finder.getByRole('button', { name: text.forgetAction }).click();
      const confirm = finder.getByRole('alertdialog', { name: text.forgetTitle });
      await confirm.waitFor();
      await axeClean(finder, `finder-forget-confirm-${language}-360`, violations);
      await confirm.getByRole('button', { name: text.forgetConfirm }).click();
      await confirm.waitFor({ state: 'detached' });

      // The page is empty again: the confirmation, the first-message form, no message, no token kept.
      await finder.getByRole('status').filter({ hasText: text.forgotten }).waitFor();
      await finder.getByRole('button', { name: text.sendFirst }).waitFor();
      expect(await finder.getByText(content).count()).toBe(0);
      expect(await finder.evaluate(`localStorage.getItem('homing.finder.${code}')`)).toBeNull();
      await axeClean(finder, `finder-forgotten-${language}-360`, violations);

      // A reload keeps it so: nothing of the conversation comes back.
      await finder.reload();
      await heading(finder, text.finderTitle);
      await finder.getByRole('button', { name: text.sendFirst }).waitFor();
      expect(await finder.getByText(content).count()).toBe(0);

      const owner = await openPage({ viewport: 'desktop' });
      await logInAt(owner, stack.base, user);
      await owner.goto(url(`/found/${code}`));
      await owner.getByRole('note').filter({ hasText: FINDER_LEFT_EN }).waitFor();
      expect(await owner.getByText(content).count()).toBe(0);
      expect(await owner.getByRole('button', { name: 'Send reply' }).count()).toBe(0);
      await axeClean(owner, `owner-finder-left-${language}-1280`, violations);

      expect(violations).toEqual([]);
    });
  }
});
