import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, checkAtBothSizes, chooseLanguage, chromiumForSuite, logIn as logInAt, waitWhileActive } from './browser';
import { ownerWithItem } from './owners';

// The safe hand-over in two browsers against the whole product: a finder writes their phone number and IBAN, the owner
// reads them masked until both agreed to share contact details (the finder first, then the owner); the owner's page
// shows the hand-over code of the day, the finder opens the safety card, tries a wrong code and then the one the owner
// tells, and the case closes on both sides. axe and the width at 360 and 1280 px on both pages.

// Where the web app keeps the push offer's snooze (apps/web/src/features/push/push-subscription.ts): the offer would
// cover the screens these tests look at.
const PUSH_SNOOZE_KEY = 'homing.push.snoozedUntil';

const FIRST_MESSAGE = 'Bel me op 06-12345678, IBAN NL91 ABNA 0417 1643 00';

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: {
    message: 'Message',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    messages: 'Messages',
    maskedNote: 'Hidden until you both agree to share contact details: a phone number and an IBAN.',
    consentTitle: 'Contact details',
    agree: 'Agree to share contact details',
    youAgreed: 'You agreed to share contact details. They stay hidden until the other side agrees too.',
    otherAgreed: 'The other side agreed to share contact details. Agree too to see them.',
    shared: 'You both agreed: contact details are shown as written.',
    codeTitle: 'Hand-over code',
    codeIntro: 'Tell this code only to the person who hands your item over to you. A new one every day.',
    handoverTitle: 'Hand-over',
    codeLabel: 'Hand-over code',
    confirm: 'Confirm hand-over',
    wrongCode: "This is not the owner's hand-over code. Check it and try again.",
    safetyTitle: 'Staying safe at the hand-over',
    safetyAddress: 'Never share your home address.',
    thanks: 'Thank you! The case is closed.',
    closed: 'This conversation is closed: the item was handed over.',
    ownerThanks: 'Your item is back. Thank you for using Homing.',
  },
  nl: {
    message: 'Bericht',
    sendFirst: 'Verstuur naar de eigenaar',
    sendReply: 'Antwoord versturen',
    messages: 'Berichten',
    maskedNote: 'Verborgen tot jullie allebei akkoord gaan met het delen van contactgegevens: een telefoonnummer en een IBAN.',
    consentTitle: 'Contactgegevens',
    agree: 'Akkoord met delen van contactgegevens',
    youAgreed: 'Je bent akkoord gegaan met het delen van contactgegevens. Ze blijven verborgen tot de ander ook akkoord gaat.',
    otherAgreed: 'De ander is akkoord gegaan met het delen van contactgegevens. Ga ook akkoord om ze te zien.',
    shared: 'Jullie zijn allebei akkoord: contactgegevens worden getoond zoals ze geschreven zijn.',
    codeTitle: 'Overdrachtscode',
    codeIntro: 'Geef deze code alleen aan de persoon die je voorwerp aan je overhandigt. Elke dag een nieuwe.',
    handoverTitle: 'Overdracht',
    codeLabel: 'Overdrachtscode',
    confirm: 'Overdracht bevestigen',
    wrongCode: 'Dit is niet de overdrachtscode van de eigenaar. Controleer hem en probeer het opnieuw.',
    safetyTitle: 'Veilig bij de overdracht',
    safetyAddress: 'Geef nooit je huisadres.',
    thanks: 'Dank je wel! De zaak is afgesloten.',
    closed: 'Dit gesprek is gesloten: het voorwerp is overgedragen.',
    ownerThanks: 'Je voorwerp is terug. Bedankt dat je Homing gebruikt.',
  },
  es: {
    message: 'Mensaje',
    sendFirst: 'Enviar al propietario',
    sendReply: 'Enviar respuesta',
    messages: 'Mensajes',
    maskedNote: 'Oculto hasta que ambas partes acepten compartir los datos de contacto: un número de teléfono y un IBAN.',
    consentTitle: 'Datos de contacto',
    agree: 'Aceptar compartir los datos de contacto',
    youAgreed: 'Has aceptado compartir los datos de contacto. Siguen ocultos hasta que la otra parte también lo acepte.',
    otherAgreed: 'La otra parte ha aceptado compartir los datos de contacto. Acéptalo tú también para verlos.',
    shared: 'Ambas partes lo han aceptado: los datos de contacto se muestran tal como se escribieron.',
    codeTitle: 'Código de entrega',
    codeIntro: 'Di este código solo a la persona que te entregue tu objeto. Cada día hay uno nuevo.',
    handoverTitle: 'Entrega',
    codeLabel: 'Código de entrega',
    confirm: 'Confirmar la entrega',
    wrongCode: 'Este no es el código de entrega del propietario. Compruébalo y vuelve a intentarlo.',
    safetyTitle: 'Seguridad en la entrega',
    safetyAddress: 'Nunca compartas la dirección de tu casa.',
    thanks: '¡Gracias! El caso está cerrado.',
    closed: 'Esta conversación está cerrada: el objeto se ha entregado.',
    ownerThanks: 'Tu objeto ha vuelto. Gracias por usar Homing.',
  },
} as const;
type Language = keyof typeof TEXTS;

describe('the safe hand-over in two browsers', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;

  const bubble = (page: Page, language: Language, text: string) => page.getByRole('list', { name: TEXTS[language].messages }).getByRole('listitem').filter({ hasText: text });
  const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

  /** A page whose push offer is snoozed: it would cover what these tests look at. */
  async function pageWithoutPushOffer(options: Parameters<typeof openPage>[0]): Promise<Page> {
    const page = await openPage(options);
    await page.addInitScript(`localStorage.setItem(${JSON.stringify(PUSH_SNOOZE_KEY)}, String(Date.now() + 3600000))`);
    return page;
  }



  it.each(Object.keys(TEXTS) as Language[])(
    'masks contact details until both agree, and closes the case with the owner’s hand-over code, in %s, accessibly at 360 and 1280 px',
    async (language) => {
      const texts = TEXTS[language];
      const violations: string[] = [];
      const owner = await ownerWithItem(stack, 'Backpack');

      // The finder, before writing: the safety card is there, folded.
      const finder = await pageWithoutPushOffer({ viewport: 'phone' });
      await finder.goto(url(`/found/${owner.code}`));
      await appTookOver(finder);
      await chooseLanguage(finder, language);
      await finder.getByText(texts.safetyTitle, { exact: true }).waitFor();
      expect(await finder.getByText(texts.safetyAddress, { exact: true }).isVisible()).toBe(false);
      await finder.getByLabel(texts.message, { exact: true }).fill(FIRST_MESSAGE);
      await finder.getByRole('button', { name: texts.sendFirst }).click();
      await finder.getByRole('button', { name: texts.sendReply }).waitFor();
      // The writer reads their own text as written.
      await bubble(finder, language, '06-12345678').waitFor();
      const finderConsent = region(finder, texts.consentTitle);
      await finderConsent.waitFor();
      await checkAtBothSizes(finder, `handover-finder-wrote-${language}`, violations);

      // The owner reads it masked, with a word of what is hidden and why.
      const ownerPage = await pageWithoutPushOffer({ viewport: 'desktop' });
      await logInAt(ownerPage, stack.base, owner);
      await chooseLanguage(ownerPage, language);
      await ownerPage.goto(url(`/found/${owner.code}`));
      const masked = bubble(ownerPage, language, 'Bel me op');
      await masked.waitFor();
      const maskedText = await masked.innerText();
      expect(maskedText).not.toContain('12345678');
      expect(maskedText).not.toContain('0417');
      expect(maskedText).toContain('••');
      await masked.getByText(texts.maskedNote, { exact: true }).waitFor();
      await checkAtBothSizes(ownerPage, `handover-owner-masked-${language}`, violations);

      // The finder agrees first, then the owner: the owner reads the message as written.
      await finderConsent.getByRole('button', { name: texts.agree }).click();
      await finderConsent.getByText(texts.youAgreed, { exact: true }).waitFor();
      const ownerConsent = region(ownerPage, texts.consentTitle);
      await waitWhileActive(ownerPage, ownerConsent.getByText(texts.otherAgreed, { exact: true }));
      await ownerConsent.getByRole('button', { name: texts.agree }).click();
      await ownerConsent.getByText(texts.shared, { exact: true }).waitFor();
      await waitWhileActive(ownerPage, bubble(ownerPage, language, FIRST_MESSAGE));
      expect(await bubble(ownerPage, language, FIRST_MESSAGE).getByText(texts.maskedNote, { exact: true }).count()).toBe(0);
      await waitWhileActive(finder, finderConsent.getByText(texts.shared, { exact: true }));

      // The owner's page shows today's code, big, in two groups.
      const codeCard = region(ownerPage, texts.codeTitle);
      await codeCard.getByText(texts.codeIntro, { exact: true }).waitFor();
      const shownCode = (await codeCard.locator('.handover-code').innerText()).trim();
      expect(shownCode).toMatch(/^\d{3} \d{3}$/);
      const handoverCode = shownCode.replace(/\s/g, '');
      await checkAtBothSizes(ownerPage, `handover-owner-code-${language}`, violations);

      // The finder reads the safety card, tries a wrong code, then the one the owner tells.
      const handover = region(finder, texts.handoverTitle);
      await handover.getByText(texts.safetyTitle, { exact: true }).click();
      await handover.getByText(texts.safetyAddress, { exact: true }).waitFor();
      const input = handover.getByLabel(texts.codeLabel, { exact: true });
      expect(await input.getAttribute('inputmode')).toBe('numeric');
      expect(await input.getAttribute('autocomplete')).toBe('one-time-code');
      const wrong = String((Number(handoverCode) + 1) % 1_000_000).padStart(6, '0');
      await input.fill(wrong);
      await handover.getByRole('button', { name: texts.confirm }).click();
      await handover.getByRole('alert').filter({ hasText: texts.wrongCode }).waitFor();
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      await checkAtBothSizes(finder, `handover-finder-wrong-code-${language}`, violations);

      await input.fill(handoverCode);
      await handover.getByRole('button', { name: texts.confirm }).click();
      await finder.getByText(texts.thanks, { exact: true }).waitFor();
      await finder.getByText(texts.closed, { exact: true }).waitFor();
      expect(await finder.getByLabel(texts.message, { exact: true }).count()).toBe(0);
      expect(await region(finder, texts.handoverTitle).count()).toBe(0);
      await checkAtBothSizes(finder, `handover-finder-closed-${language}`, violations);

      // The owner's page learns it is closed, and thanks them.
      await waitWhileActive(ownerPage, ownerPage.getByText(texts.ownerThanks, { exact: true }));
      await ownerPage.getByText(texts.closed, { exact: true }).waitFor();
      expect(await ownerPage.getByLabel(texts.message, { exact: true }).count()).toBe(0);
      expect(await region(ownerPage, texts.codeTitle).count()).toBe(0);
      await checkAtBothSizes(ownerPage, `handover-owner-closed-${language}`, violations);

      // A reply through the API now finds the conversation closed.
      const reply = await fetch(`${stack.api}/items/${owner.code}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.206.0.1' },
        body: JSON.stringify({ content: 'One more thing' }),
      });
      expect(reply.status).toBe(409);

      expect(violations).toEqual([]);
    },
  );
});
