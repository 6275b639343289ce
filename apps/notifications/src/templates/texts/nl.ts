import type { EmailTexts } from './email-texts';

export const nl: EmailTexts = {
  layout: {
    greeting: 'Hallo,',
    linkHint: 'Werkt de knop niet? Kopieer dan dit adres naar je browser:',
    signature: 'Het Homing-team',
    footer: 'Je ontvangt deze e-mail omdat dit adres een Homing-account heeft. Homing brengt verloren spullen thuis.',
  },
  mails: {
    'login-code': {
      subject: 'Je inlogcode voor Homing',
      intro: ['Hier is de code om in te loggen bij Homing. Hij werkt één keer, 10 minuten lang.'],
      action: 'Inloggen',
      outro: ['Heb je geen code aangevraagd? Dan kun je deze e-mail negeren; zonder de code kan niemand inloggen.'],
    },
    'password-reset': {
      subject: 'Stel je Homing-wachtwoord opnieuw in',
      intro: ['Iemand heeft gevraagd het wachtwoord van je Homing-account opnieuw in te stellen. Kies een nieuw wachtwoord met de knop hieronder. De link werkt één keer, 60 minuten lang.'],
      action: 'Kies een nieuw wachtwoord',
      outro: ['Heb je dit niet gevraagd? Dan kun je deze e-mail negeren; je wachtwoord blijft zoals het is.'],
    },
    welcome: {
      subject: 'Welkom bij Homing',
      intro: ['Je Homing-account is klaar. Kies een wachtwoord, zodat je altijd kunt inloggen en ziet wie je spullen heeft gevonden.'],
      action: 'Stel je wachtwoord in',
      outro: ['De link werkt 7 dagen. Daarna kun je altijd inloggen met een code die naar dit adres wordt gestuurd.'],
    },
    'tag-activated': {
      subject: 'Je Homing-label is actief',
      intro: ['Je label {{tagCode}} is actief. Wie het vindt, kan je nu bereiken zonder je e-mailadres te zien.', 'Geef het een naam, zodat je weet op welk van je spullen het zit.'],
      action: 'Geef je voorwerp een naam',
      outro: [],
    },
    'new-message': {
      subject: 'Iemand schreef over je verloren spullen',
      intro: ['Een vinder schreef je over je item met label {{tagCode}}. Lees het bericht en antwoord op Homing.', 'Meer berichten in de komende 15 minuten komen zonder nieuwe e-mail binnen.'],
      action: 'Lees het bericht',
      outro: ['Je kunt ook antwoorden door deze e-mail te beantwoorden. Je e-mailadres wordt nooit aan de vinder getoond.'],
    },
    'owner-reply': {
      subject: 'De eigenaar heeft je bericht beantwoord',
      intro: ['De eigenaar van het gevonden item met label {{tagCode}} heeft je bericht beantwoord.'],
      action: 'Lees het antwoord',
      outro: ['Je kunt ook antwoorden door deze e-mail te beantwoorden. Je e-mailadres wordt nooit aan de eigenaar getoond.', 'De knop opent je gesprek in elke browser, tot er 30 dagen geen bericht in is geschreven.'],
      footer: 'Je ontvangt deze e-mail omdat je dit adres achterliet toen je op Homing schreef over een gevonden item.',
    },
    'resume-link': {
      subject: 'De link naar je gesprek op Homing',
      intro: ['Je vroeg om een link naar je gesprek over het gevonden item met label {{tagCode}}. De knop opent het in deze of een andere browser.'],
      action: 'Open mijn gesprek',
      outro: ['De link werkt tot er 30 dagen geen bericht in het gesprek is geschreven. Heb je er niet om gevraagd? Dan kun je deze e-mail negeren.'],
      footer: 'Je ontvangt deze e-mail omdat iemand op Homing om een link vroeg naar een gesprek dat vanaf dit adres is gevoerd.',
    },
    'relay-acknowledgement': {
      subject: 'Je bericht is bij de eigenaar aangekomen',
      intro: ['Bedankt dat je schreef over het item met label {{tagCode}}. Je bericht is bij de eigenaar aangekomen; hun antwoord komt naar dit adres.'],
      action: 'Open het gesprek',
      outro: [
        'Beantwoord deze e-mail om de eigenaar opnieuw te schrijven. Je e-mailadres wordt nooit aan de eigenaar getoond. Bijlagen worden niet doorgestuurd: beschrijf liever waar en wanneer je het item kunt overhandigen.',
        'De knop opent het gesprek in elke browser, tot er 30 dagen geen bericht in is geschreven.',
      ],
      footer: 'Je ontvangt deze e-mail omdat dit adres naar het adres van een Homing-label schreef over een gevonden item.',
    },
    'scan-alert': {
      subject: 'Het label van je kwijtgeraakte item is gescand',
      intro: [
        'Iemand heeft zojuist het label {{tagCode}} gescand van je item dat als kwijt is gemarkeerd: op {{scannedAt}}, {{place}}. De plek is een ruwe schatting op basis van het internetadres van het apparaat dat scande.',
        'Diegene ziet dat je het zoekt en kan je via Homing schrijven. Meer scans in de komende 15 minuten sturen geen nieuwe e-mail.',
      ],
      action: 'Open je item',
      outro: ['Je krijgt deze e-mails alleen zolang het item als kwijt is gemarkeerd. Heb je het terug? Zet de kwijtmodus uit op de pagina van het item.'],
    },
    'account-deleted': {
      subject: 'Je Homing-account is verwijderd',
      intro: [
        'Zoals je vroeg, is je Homing-account verwijderd. Je account, je spullen (de labels ervan zijn voorgoed buiten gebruik en werken niet meer), je gesprekken en je pushmeldingen zijn gewist.',
        'Dit is de laatste e-mail die je van Homing krijgt: er volgt niets meer.',
      ],
      action: 'Opnieuw beginnen bij Homing',
      outro: ['Bedankt dat je Homing hebt gebruikt. Je bent altijd welkom om opnieuw te beginnen met een nieuw label.'],
      footer: 'Je ontvangt deze e-mail omdat het Homing-account van dit adres is verwijderd.',
    },
    invitation: {
      subject: 'Je bent uitgenodigd om een item te delen op Homing',
      intro: [
        'Iemand die Homing gebruikt, heeft je uitgenodigd om een item met hem of haar te delen. Als mede-eigenaar hoor je het wanneer een vinder erover schrijft of het label wordt gescand, en kun je de vinder antwoorden.',
        'De uitnodiging is {{validDays}} dagen geldig en kan één keer worden gebruikt.',
      ],
      action: 'Bekijk de uitnodiging',
      outro: ['Had je dit niet verwacht? Negeer dan deze e-mail: er gebeurt niets zolang je niet accepteert.'],
      footer: 'Je ontvangt deze e-mail omdat iemand dit adres heeft uitgenodigd op Homing. Homing brengt verloren spullen thuis.',
    },
    'passkey-added': {
      subject: 'Er is een toegangssleutel toegevoegd aan je Homing-account',
      intro: ['Op {{occurredAt}} is {{passkey}} toegevoegd aan je Homing-account. Daarmee kan voortaan zonder wachtwoord of code op je account worden ingelogd.', 'Was jij dit? Dan hoef je verder niets te doen.'],
      action: 'Open je account',
      outro: ['Was jij dit niet? Dan is iemand anders misschien in je account gekomen. Log in, verwijder de toegangssleutel onder Account en wijzig je wachtwoord.'],
    },
    'passkey-deleted': {
      subject: 'Er is een toegangssleutel verwijderd uit je Homing-account',
      intro: ['Op {{occurredAt}} is {{passkey}} verwijderd uit je Homing-account. Daarmee kan niet meer worden ingelogd.', 'Was jij dit? Dan hoef je verder niets te doen.'],
      action: 'Open je account',
      outro: ['Was jij dit niet? Dan is iemand anders misschien in je account gekomen. Log in, verwijder onder Account elke toegangssleutel die je niet herkent en wijzig je wachtwoord.'],
    },
  },
  scanPlace: {
    cityAndCountry: 'in de buurt van {{city}}, {{country}}',
    city: 'in de buurt van {{city}}',
    country: 'ergens in {{country}}',
    unknown: 'op een plek die we niet konden bepalen',
  },
  passkey: {
    withProvider: 'een toegangssleutel van {{provider}}',
    unknown: 'een toegangssleutel',
  },
  welcomeWithPassword: {
    subject: 'Welkom bij Homing',
    intro: ['Je Homing-account is klaar. Log in met je e-mailadres en het wachtwoord dat je hebt gekozen om te zien wie je spullen heeft gevonden.'],
    action: 'Inloggen',
    outro: ['Wachtwoord vergeten? Je kunt altijd inloggen met een code die naar dit adres wordt gestuurd.'],
  },
  transferInvitation: {
    subject: 'Je bent uitgenodigd om een item over te nemen op Homing',
    intro: [
      'Je bent uitgenodigd om een item over te nemen op Homing: zodra je accepteert, is het van jou en bereiken vinders ervan jou.',
      'De uitnodiging is {{validDays}} dagen geldig en kan één keer worden gebruikt.',
    ],
    action: 'Bekijk de uitnodiging',
    outro: ['Had je dit niet verwacht? Negeer dan deze e-mail: er gebeurt niets zolang je niet accepteert.'],
    footer: 'Je ontvangt deze e-mail omdat iemand dit adres heeft uitgenodigd op Homing. Homing brengt verloren spullen thuis.',
  },
};
