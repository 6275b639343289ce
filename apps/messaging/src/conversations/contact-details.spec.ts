import type { ContactKind } from '@homing/contracts';
import { maskContactDetails } from './contact-details';

interface Case {
  input: string;
  masked: string;
  kinds: ContactKind[];
  // Quoted, so a test of a multi-line message keeps its name on one line.
  shown: string;
}

// [written, as the other side sees it, kinds]. A masked text equal to the input means: left alone.
const table = (rows: [string, string, ContactKind[]][]): Case[] =>
  rows.map(([input, masked, kinds]) => ({ input, masked, kinds, shown: `${JSON.stringify(input)} as ${JSON.stringify(masked)}` }));

const english = table([
  ['Call me on +44 7911 123456 after work.', 'Call me on +44 7 • •••• ••56 after work.', ['phone']],
  ['My number is +1 (415) 555-2671', 'My number is +1 4 • •••• ••71', ['phone']],
  ['Text me: +49 151 23456789!', 'Text me: +49 1 •• •••• ••89!', ['phone']],
  ['I live in Amsterdam, reach me at 06-12345678.', 'I live in Amsterdam, reach me at +31 6 •••• ••78.', ['phone']],
  ['You can WhatsApp +31 6 12345678 anytime', 'You can WhatsApp +31 6 •••• ••78 anytime', ['phone']],
  ['Phone: +34 612 34 56 78 (Spain)', 'Phone: +34 6 •••• ••78 (Spain)', ['phone']],
  ['Call 0031 6 12345678 from abroad', 'Call +31 6 •••• ••78 from abroad', ['phone']],
  ['French mobile: +33 6 12 34 56 78.', 'French mobile: +33 6 •••• ••78.', ['phone']],
  ['Dots work too: +31 6.12.34.56.78', 'Dots work too: +31 6 •••• ••78', ['phone']],
  ['London office: +44 20 7946 0958', 'London office: +44 2 • •••• ••58', ['phone']],
  ['Saved as tel:+31612345678', 'Saved as tel:+31 6 •••• ••78', ['phone']],
  ['My IBAN is NL91 ABNA 0417 1643 00, thanks!', 'My IBAN is NL•• •••• •••• ••43 00, thanks!', ['iban']],
  ['Please send the reward to GB29 NWBK 6016 1331 9268 19.', 'Please send the reward to GB•• •••• •••• •••• ••68 19.', ['iban']],
  ['IBAN NL91 ABNA 0417 1643 01 (that one has a typo)', 'IBAN NL91 ABNA 0417 1643 01 (that one has a typo)', []],
  ['Email me at john.smith@example.com.', 'Email me at •••@•••.', ['email']],
  ['Contact: JOHN+lost@Example.co.uk, or reply here', 'Contact: •••@•••, or reply here', ['email']],
  ['See https://example.com/lost/item?id=0612345678, is that yours?', 'See http•••, is that yours?', ['link']],
  ['Photo here (https://photos.example.com/abc123).', 'Photo here (http•••).', ['link']],
  ['Like https://en.wikipedia.org/wiki/Umbrella_(disambiguation) says', 'Like http••• says', ['link']],
  ['Check www.lostandfound.org!', 'Check http•••!', ['link']],
  ['Found on 12/05/2024 at 14:30 near the station.', 'Found on 12/05/2024 at 14:30 near the station.', []],
  ['The reward is $1,299.99 or £250.', 'The reward is $1,299.99 or £250.', []],
  ['Order number 123456789 is on the receipt.', 'Order number 123456789 is on the receipt.', []],
  ['Tracking: 1Z999AA10123456784', 'Tracking: 1Z999AA10123456784', []],
  ['It was 2024-05-12, around 9:45 pm.', 'It was 2024-05-12, around 9:45 pm.', []],
  ['Call 112 in an emergency.', 'Call 112 in an emergency.', []],
  ['The bag cost 100000 yen in 2019.', 'The bag cost 100000 yen in 2019.', []],
  ['My card number is 1234 5678 9012 3456, just kidding.', 'My card number is 1234 5678 9012 3456, just kidding.', []],
  ['Not a full number: +44 7911', 'Not a full number: +44 7911', []],
  ['Reference A612345678B is on the tag', 'Reference A612345678B is on the tag', []],
  ['Postcode SW1A 1AA, flat 12', 'Postcode SW1A 1AA, flat 12', []],
  ['Thanks so much! 😊 I will pick it up tomorrow.', 'Thanks so much! 😊 I will pick it up tomorrow.', []],
  ['Phone +44 7911 123456 or email john@example.com', 'Phone +44 7 • •••• ••56 or email •••@•••', ['phone', 'email']],
  [
    'Reach me: jane99@example.org / +1 415 555 2671 / https://jane.example.org',
    'Reach me: •••@••• / +1 4 • •••• ••71 / http•••',
    ['phone', 'email', 'link'],
  ],
  ['Both work: GB29NWBK60161331926819 and +44 7911 123456', 'Both work: GB•• •••• •••• •••• ••68 19 and +44 7 • •••• ••56', ['phone', 'iban']],
  ['Hi!\nCall +44 7911 123456\nBye', 'Hi!\nCall +44 7 • •••• ••56\nBye', ['phone']],
]);

const dutch = table([
  ['Bel me op 06-12345678.', 'Bel me op +31 6 •••• ••78.', ['phone']],
  ['Mijn nummer is 06 1234 5678', 'Mijn nummer is +31 6 •••• ••78', ['phone']],
  ['App gerust naar 0612345678!', 'App gerust naar +31 6 •••• ••78!', ['phone']],
  ['Vast nummer: 020-1234567, na 18:00 uur.', 'Vast nummer: +31 2 •••• ••67, na 18:00 uur.', ['phone']],
  ['Vanuit het buitenland: +31 6 12345678', 'Vanuit het buitenland: +31 6 •••• ••78', ['phone']],
  ['Of bel +31(0)6 12345678 als dat makkelijker is', 'Of bel +31 6 •••• ••78 als dat makkelijker is', ['phone']],
  ['Vanuit België: 0031 6 12345678', 'Vanuit België: +31 6 •••• ••78', ['phone']],
  ['06 12 34 56 78 is mijn mobiel', '+31 6 •••• ••78 is mijn mobiel', ['phone']],
  ['(+31) 6 12345678 is mijn nummer', '+31 6 •••• ••78 is mijn nummer', ['phone']],
  ['Mijn nummer: 06 - 12345678', 'Mijn nummer: +31 6 •••• ••78', ['phone']],
  ['Bel 0612345678, 0687654321 of 020 1234567', 'Bel +31 6 •••• ••78, +31 6 •••• ••21 of +31 2 •••• ••67', ['phone']],
  ['Telefoon (020) 123 4567', 'Telefoon +31 2 •••• ••67', ['phone']],
  ["De sleutels liggen bij café 't Hoekje, tel. 020 123 4567.", "De sleutels liggen bij café 't Hoekje, tel. +31 2 •••• ••67.", ['phone']],
  ['Mijn rekeningnummer is NL91 ABNA 0417 1643 00.', 'Mijn rekeningnummer is NL•• •••• •••• ••43 00.', ['iban']],
  ['IBAN: nl91abna0417164300 t.n.v. J. de Vries', 'IBAN: NL•• •••• •••• ••43 00 t.n.v. J. de Vries', ['iban']],
  ['Stort het op NL91 ABNA 0417 1643 01 aub', 'Stort het op NL91 ABNA 0417 1643 01 aub', []],
  ['Belgische rekening BE68 5390 0754 7034', 'Belgische rekening BE•• •••• •••• 7034', ['iban']],
  ['Mail me op jan.devries@example.nl.', 'Mail me op •••@•••.', ['email']],
  ['Stuur een mailtje naar info@gevonden-voorwerpen.nl, dan reageer ik.', 'Stuur een mailtje naar •••@•••, dan reageer ik.', ['email']],
  ['Kijk op https://www.marktplaats.nl/v/tassen/12345678-rugzak voor de foto.', 'Kijk op http••• voor de foto.', ['link']],
  ['Zie www.gevonden.nl.', 'Zie http•••.', ['link']],
  ['Ik heb hem gevonden op 12-05-2024 om 14:30.', 'Ik heb hem gevonden op 12-05-2024 om 14:30.', []],
  ['Gevonden op 12.05.2024 bij de bushalte.', 'Gevonden op 12.05.2024 bij de bushalte.', []],
  ['Het vindersloon is € 25,00.', 'Het vindersloon is € 25,00.', []],
  ['Hij kostte 1.250,00 euro.', 'Hij kostte 1.250,00 euro.', []],
  ['Mijn postcode is 1012 AB, huisnummer 12.', 'Mijn postcode is 1012 AB, huisnummer 12.', []],
  ['Postcode 1012AB Amsterdam', 'Postcode 1012AB Amsterdam', []],
  ['Bestelnummer 2024051234 staat op de bon.', 'Bestelnummer 2024051234 staat op de bon.', []],
  ['Bel bij nood 112.', 'Bel bij nood 112.', []],
  ['Het was in 2023, bij de Albert Heijn.', 'Het was in 2023, bij de Albert Heijn.', []],
  ['Mijn bankpas eindigt op 1234 5678 9012 3456.', 'Mijn bankpas eindigt op 1234 5678 9012 3456.', []],
  ['Bel 0800 1234 voor de klantenservice', 'Bel 0800 1234 voor de klantenservice', []],
  ['Nummer 06-1234567 klopt niet', 'Nummer 06-1234567 klopt niet', []],
  ['Volgnummer 3SABCD1234567890 van PostNL', 'Volgnummer 3SABCD1234567890 van PostNL', []],
  ['Een bedrag van 100000 is te veel', 'Een bedrag van 100000 is te veel', []],
  ['Bel me op 06-12345678 of mail jan@example.nl', 'Bel me op +31 6 •••• ••78 of mail •••@•••', ['phone', 'email']],
  ['Zowel NL91ABNA0417164300 als 0612345678 kun je gebruiken.', 'Zowel NL•• •••• •••• ••43 00 als +31 6 •••• ••78 kun je gebruiken.', ['phone', 'iban']],
  ['Groetjes, Anouk 🌷\nBel me: 06-12345678\nDank je wel!', 'Groetjes, Anouk 🌷\nBel me: +31 6 •••• ••78\nDank je wel!', ['phone']],
]);

const spanish = table([
  ['Llámame al 612 345 678, por favor.', 'Llámame al +34 6 •••• ••78, por favor.', ['phone']],
  ['Mi móvil es 612-34-56-78', 'Mi móvil es +34 6 •••• ••78', ['phone']],
  ['Desde el extranjero: +34 612 34 56 78', 'Desde el extranjero: +34 6 •••• ••78', ['phone']],
  ['Teléfono fijo: 91 123 45 67 (Madrid)', 'Teléfono fijo: +34 9 •••• ••67 (Madrid)', ['phone']],
  ['También 0034 612345678 por WhatsApp', 'También +34 6 •••• ••78 por WhatsApp', ['phone']],
  ['Escríbeme al 612345678.', 'Escríbeme al +34 6 •••• ••78.', ['phone']],
  ['Mi tel: +34-612-345-678.', 'Mi tel: +34 6 •••• ••78.', ['phone']],
  ['Mi número es +34 612345678 y estoy en Sevilla.', 'Mi número es +34 6 •••• ••78 y estoy en Sevilla.', ['phone']],
  ['Si no contesto, llama al 699 12 34 56', 'Si no contesto, llama al +34 6 •••• ••56', ['phone']],
  ['Mi cuenta es ES91 2100 0418 4502 0005 1332.', 'Mi cuenta es ES•• •••• •••• •••• •••• 1332.', ['iban']],
  ['IBAN: es9121000418450200051332', 'IBAN: ES•• •••• •••• •••• •••• 1332', ['iban']],
  ['Transfiere a ES91 2100 0418 4502 0005 1333, gracias', 'Transfiere a ES91 2100 0418 4502 0005 1333, gracias', []],
  ['La cuenta alemana de mi hermano: DE89 3704 0044 0532 0130 00', 'La cuenta alemana de mi hermano: DE•• •••• •••• •••• ••30 00', ['iban']],
  ['La cuenta DE89 3704 0044 0532 0130 01 está mal', 'La cuenta DE89 3704 0044 0532 0130 01 está mal', []],
  ['Escríbeme a maría.garcía@correo.es.', 'Escríbeme a •••@•••.', ['email']],
  ['Mi correo: pepe_perez99@gmail.com, gracias', 'Mi correo: •••@•••, gracias', ['email']],
  ['Mira la foto en https://fotos.example.es/objeto/123456789 ¡es mía!', 'Mira la foto en http••• ¡es mía!', ['link']],
  ['Más información en www.objetosperdidos.es.', 'Más información en http•••.', ['link']],
  ['Lo encontré el 12/05/2024 a las 14:30.', 'Lo encontré el 12/05/2024 a las 14:30.', []],
  ['Fecha: 2024-05-12.', 'Fecha: 2024-05-12.', []],
  ['La recompensa es de 25 euros.', 'La recompensa es de 25 euros.', []],
  ['Costó 1.250,00 € en la tienda.', 'Costó 1.250,00 € en la tienda.', []],
  ['Código postal 28013, Madrid.', 'Código postal 28013, Madrid.', []],
  ['Vivo en la calle Mayor 12, 3º B.', 'Vivo en la calle Mayor 12, 3º B.', []],
  ['El número de pedido es 123456789.', 'El número de pedido es 123456789.', []],
  ['En emergencias llama al 112.', 'En emergencias llama al 112.', []],
  ['Lo perdí en 2023 en el metro.', 'Lo perdí en 2023 en el metro.', []],
  ['El número de seguimiento es PQ4B7C0612345678X.', 'El número de seguimiento es PQ4B7C0612345678X.', []],
  ['Número 612 345 67 incompleto', 'Número 612 345 67 incompleto', []],
  ['Pagué 100000 pesos', 'Pagué 100000 pesos', []],
  ['La tarjeta 4000 1234 5678 9010 no es mía', 'La tarjeta 4000 1234 5678 9010 no es mía', []],
  ['Llámame al 612 345 678 o escribe a ana@example.es', 'Llámame al +34 6 •••• ••78 o escribe a •••@•••', ['phone', 'email']],
  [
    'Mi cuenta ES91 2100 0418 4502 0005 1332 y mi móvil 612345678',
    'Mi cuenta ES•• •••• •••• •••• •••• 1332 y mi móvil +34 6 •••• ••78',
    ['phone', 'iban'],
  ],
  ['¡Gracias! 🙏\nMi móvil: 612 345 678\nUn saludo', '¡Gracias! 🙏\nMi móvil: +34 6 •••• ••78\nUn saludo', ['phone']],
]);

describe('maskContactDetails', () => {
  it.each(english)('English: shows $shown', ({ input, masked, kinds }) => {
    expect(maskContactDetails(input)).toEqual({ text: masked, kinds });
  });

  it.each(dutch)('Dutch: shows $shown', ({ input, masked, kinds }) => {
    expect(maskContactDetails(input)).toEqual({ text: masked, kinds });
  });

  it.each(spanish)('Spanish: shows $shown', ({ input, masked, kinds }) => {
    expect(maskContactDetails(input)).toEqual({ text: masked, kinds });
  });

  it('returns a text without contact details exactly as written, with no kinds', () => {
    const text = 'Hallo! Ik heb je sleutels gevonden 🔑\n\nZe lagen op 12-05-2024 bij de bakker, Kerkstraat 12, 1012 AB.\n¿Hablas español?';
    const result = maskContactDetails(text);
    expect(result.text).toBe(text);
    expect(result.kinds).toEqual([]);
  });

  it('lists each kind once, in the order phone, iban, email, link', () => {
    const text = 'www.a.nl jan@a.nl NL91ABNA0417164300 0612345678 www.b.nl piet@b.nl BE68539007547034 0687654321';
    expect(maskContactDetails(text).kinds).toEqual(['phone', 'iban', 'email', 'link']);
  });

  it.each([
    ['a run of zeros', '0'.repeat(2000)],
    ['a run of digits in groups', '0612 '.repeat(400)],
    ['almost-addresses', 'a@'.repeat(1000)],
    ['a local part with no domain', 'a'.repeat(1999) + '@'],
    ['a very long link', 'http://' + 'a'.repeat(1990)],
    ['a link ending in brackets', 'http://a' + ')'.repeat(1992)],
    ['almost-IBANs', 'NL91 '.repeat(400)],
    ['a long message full of numbers', 'Bel 06-12345678 of 612 345 678, IBAN NL91ABNA0417164300, mail a@b.nl. '.repeat(28)],
  ])('reads %s of 2000 characters in under 50 ms', (_name, text) => {
    maskContactDetails(text);
    const startedAt = performance.now();
    maskContactDetails(text);
    expect(performance.now() - startedAt).toBeLessThan(50);
  });
});
