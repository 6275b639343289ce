import { automatedReason, mailLanguage, messageOf, replyText, type MailHeaders } from './inbound-mail';

const headers = (values: Record<string, unknown>): MailHeaders => {
  const map = new Map(Object.entries(values));
  return { get: (name) => map.get(name), has: (name) => map.has(name) };
};

describe('replyText', () => {
  it.each([
    ['Gmail, English, the header wrapped', 'See you at 10.\n\nOn Thu, 26 Nov 2026 at 10:02, Homing <no-reply@homing.localhost>\nwrote:\n\n> The owner answered.', 'See you at 10.'],
    ['Apple Mail, English', 'Great, thanks!\n\nOn 26 Nov 2026, at 10:02, Homing <no-reply@homing.localhost> wrote:\n\n> Read the answer', 'Great, thanks!'],
    ['Dutch', 'Tot morgen.\n\nOp do 26 nov 2026 om 10:02 schreef Homing <no-reply@homing.localhost>:\n> Lees het antwoord', 'Tot morgen.'],
    ['Dutch, Outlook.com words', 'Prima.\n\nOp 26-11-2026 10:02 heeft Homing het volgende geschreven:\n> tekst', 'Prima.'],
    ['Spanish', 'Perfecto.\n\nEl jue, 26 nov 2026 a las 10:02, Homing (<no-reply@homing.localhost>) escribió:\n> Lee la respuesta', 'Perfecto.'],
    ['Outlook header block', 'Tomorrow works.\r\n\r\nFrom: Homing <no-reply@homing.localhost>\r\nSent: Thursday, 26 November 2026 10:00\r\nTo: me\r\nSubject: Re', 'Tomorrow works.'],
    ['Outlook, Dutch', 'Morgen kan.\n\nVan: Homing\nVerzonden: donderdag 26 november 2026 10:00\nAan: mij', 'Morgen kan.'],
    ['Outlook, Spanish', 'Mañana puedo.\n\nDe: Homing\nEnviado: jueves, 26 de noviembre de 2026 10:00\nPara: mí', 'Mañana puedo.'],
    ['original message line', 'Yes.\n\n-----Original Message-----\nFrom: Homing', 'Yes.'],
    ['signature delimiter', 'I have your bag.\n\n-- \nSam Jones\n+31 6 12345678', 'I have your bag.'],
    ['phone signature', 'On my way.\n\nSent from my iPhone', 'On my way.'],
    ['Dutch phone signature', 'Onderweg.\n\nVerstuurd vanaf mijn iPhone', 'Onderweg.'],
    ['Spanish phone signature', 'En camino.\n\nEnviado desde mi iPhone', 'En camino.'],
    ['answers between quotes', '> Where are you?\nAt the station.\n> When?\nAt 10.', 'At the station.\nAt 10.'],
    ['a plain first mail', 'Hello,\n\nI found your keys in the park.\nSam', 'Hello,\n\nI found your keys in the park.\nSam'],
  ])('keeps the new text only: %s', (_case, text, expected) => {
    expect(replyText(text)).toBe(expected);
  });

  it('keeps a sentence that only mentions writing', () => {
    expect(replyText('On Monday my friend wrote the address down: Main Street 1.')).toBe('On Monday my friend wrote the address down: Main Street 1.');
  });
});

describe('automatedReason', () => {
  it.each([
    ['a bounce (null sender)', {}, null, 'bounce'],
    ['a delivery report', { 'content-type': { value: 'multipart/report', params: {} } }, 'daemon@example.test', 'bounce'],
    ['an auto-reply', { 'auto-submitted': 'auto-replied' }, 'sam@example.test', 'auto-reply'],
    ['an auto-generated mail', { 'auto-submitted': 'auto-generated' }, 'sam@example.test', 'auto-reply'],
    ['bulk mail', { precedence: 'bulk' }, 'news@example.test', 'auto-reply'],
    ['a vacation responder without Auto-Submitted', { 'x-autoreply': 'yes' }, 'sam@example.test', 'auto-reply'],
    ['a person (Auto-Submitted: no)', { 'auto-submitted': 'no' }, 'sam@example.test', null],
    ['a person', {}, 'sam@example.test', null],
  ])('%s', (_case, values, sender, expected) => {
    expect(automatedReason(headers(values), sender)).toBe(expected);
  });
});

describe('mailLanguage', () => {
  it('takes the declared language when it is one we speak', () => {
    expect(mailLanguage('es-ES', 'I found your keys')).toBe('es');
    expect(mailLanguage('de', 'Hallo, ik heb je sleutels gevonden')).toBe('nl');
  });

  it('tells a short note’s language from its words, else English', () => {
    expect(mailLanguage(undefined, 'Hallo, ik heb je sleutels gevonden bij het station.')).toBe('nl');
    expect(mailLanguage(undefined, 'Hola, he encontrado tus llaves en la estación.')).toBe('es');
    expect(mailLanguage(undefined, 'Hello, I found your keys at the station.')).toBe('en');
    expect(mailLanguage(undefined, 'Bonjour')).toBe('en');
  });
});

describe('messageOf', () => {
  it('takes the subject when the body says nothing', () => {
    expect(messageOf({ text: '\n\n-- \nSam', subject: 'Re: Found your bike', attachmentNames: [] }, 2000)).toBe('Found your bike');
  });

  it('notes dropped attachments', () => {
    expect(messageOf({ text: 'Here is a photo.', subject: '', attachmentNames: ['bike.jpg'] }, 2000)).toBe('Here is a photo.\n\n[Attachment not passed on: bike.jpg]');
  });

  it('cuts a long text to the limit, never between the halves of a character', () => {
    const text = `${'a'.repeat(1998)}😀😀😀`;
    const message = messageOf({ text, subject: '', attachmentNames: [] }, 2000);
    expect(message.length).toBeLessThanOrEqual(2000);
    expect(message.endsWith('…')).toBe(true);
    expect(message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('removes control characters the thread refuses', () => {
    expect(messageOf({ text: 'a\u0000b\tc\u001bd', subject: '', attachmentNames: [] }, 2000)).toBe('ab cd');
  });

  it('is empty when there is nothing to say', () => {
    expect(messageOf({ text: '  ', subject: '', attachmentNames: [] }, 2000)).toBe('');
  });
});
